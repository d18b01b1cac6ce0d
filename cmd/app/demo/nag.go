package demo

import (
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"

	"github.com/turnstile-sfn/turnstile/constructs/semaphore"
)

// NagSuppression is one cdk-nag AwsSolutions finding the demo accepts, and why.
type NagSuppression struct {
	// RuleID is the cdk-nag rule, e.g. "AwsSolutions-IAM5".
	RuleID string
	// AppliesTo lists the findings of the rule that are accepted, e.g. "Resource::*".
	AppliesTo []string
	// AppliesToPattern accepts the findings matching an ECMA-262 regular expression, for
	// findings that name generated logical IDs.
	AppliesToPattern string
	// Reason says why the finding is accepted.
	Reason string
}

// StateMachineRoleSuppressions are the findings accepted on the semaphore's state machine role.
// Both wildcards are required by AWS: the CloudWatch Logs delivery actions and the X-Ray
// actions support no resource-level permissions.
var StateMachineRoleSuppressions = []NagSuppression{{
	RuleID:    "AwsSolutions-IAM5",
	AppliesTo: []string{"Resource::*"},
	Reason: "Step Functions execution logging (logs:*LogDelivery, logs:PutResourcePolicy, logs:Describe*) " +
		"and X-Ray tracing (xray:PutTraceSegments, xray:PutTelemetryRecords, xray:GetSampling*) " +
		"support no resource-level permissions, so AWS requires Resource \"*\" for them",
}}

// TestRunnerRoleSuppressions are the findings accepted on the load-test function's role: reading
// the executions it started needs the executions of one state machine, whose ARNs are not known
// in advance.
var TestRunnerRoleSuppressions = []NagSuppression{{
	RuleID:           "AwsSolutions-IAM5",
	AppliesToPattern: `/^Resource::arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:.*:\*$/`,
	Reason: "the load test reads the histories of the executions it starts (states:DescribeExecution, " +
		"states:GetExecutionHistory); their names are made at run time, so the grant covers the " +
		"executions of the semaphore's state machine and nothing else",
}}

// CleanupSuppressions are the findings accepted on the semaphore's cleanup: its machines' and
// its reconciler's roles.
var CleanupSuppressions = []NagSuppression{
	{
		RuleID:    "AwsSolutions-IAM5",
		AppliesTo: []string{"Resource::*"},
		Reason: "the cleanup machines' execution logging (logs:*LogDelivery, logs:PutResourcePolicy, logs:Describe*) " +
			"and X-Ray tracing support no resource-level permissions, so AWS requires Resource \"*\" for them",
	},
	{
		RuleID:           "AwsSolutions-IAM5",
		AppliesToPattern: `/^Resource::arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:.*:\*$/`,
		Reason: "the cleanup, the redrive guard and the reconciler describe (and the guard stops) executions of the " +
			"semaphore's state machine whose names are made at run time: the grant covers that machine's executions only",
	},
}

// HandOffSuppressions are the findings accepted on the hand-off function's own policy (Callback
// strategy).
var HandOffSuppressions = []NagSuppression{{
	RuleID:           "AwsSolutions-IAM5",
	AppliesToPattern: `/^Resource::arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:.*:\*$/`,
	Reason: "the hand-off function describes the waiters it wakes, executions of the semaphore's state machine " +
		"whose names are made at run time, to skip the dead ones: the grant covers that machine's executions only",
}}

// DeadLetterQueueSuppressions are the findings accepted on the cleanup's dead-letter queue.
var DeadLetterQueueSuppressions = []NagSuppression{{
	RuleID: "AwsSolutions-SQS3",
	Reason: "this queue is itself the dead-letter queue of the cleanup's rule targets; its depth raises an alarm",
}}

// suppressNagFindings records the accepted findings, with their reasons, on the state machine's
// role and the load test's role (their default policies included).
func suppressNagFindings(sem semaphore.Semaphore, testRunner awslambda.Function) {
	cdknag.NagSuppressions_AddResourceSuppressions(sem.StateMachine().Role(), nagSuppressions(StateMachineRoleSuppressions), jsii.Bool(true))
	cdknag.NagSuppressions_AddResourceSuppressions(testRunner.Role(), nagSuppressions(TestRunnerRoleSuppressions), jsii.Bool(true))
	if policy := sem.Node().TryFindChild(jsii.String(semaphore.HandOffPolicyID)); policy != nil {
		cdknag.NagSuppressions_AddResourceSuppressions(policy, nagSuppressions(HandOffSuppressions), jsii.Bool(true))
	}
	if c := sem.Cleanup(); c != nil {
		cdknag.NagSuppressions_AddResourceSuppressions(c, nagSuppressions(CleanupSuppressions), jsii.Bool(true))
		cdknag.NagSuppressions_AddResourceSuppressions(c.DeadLetterQueue(), nagSuppressions(DeadLetterQueueSuppressions), jsii.Bool(true))
	}
}

// nagSuppressions converts suppressions to cdk-nag's form.
func nagSuppressions(list []NagSuppression) *[]*cdknag.NagPackSuppression {
	out := make([]*cdknag.NagPackSuppression, 0, len(list))
	for _, s := range list {
		appliesTo := make([]any, 0, len(s.AppliesTo))
		for _, a := range s.AppliesTo {
			appliesTo = append(appliesTo, a)
		}
		if s.AppliesToPattern != "" {
			appliesTo = append(appliesTo, &cdknag.RegexAppliesTo{Regex: jsii.String(s.AppliesToPattern)})
		}
		suppression := &cdknag.NagPackSuppression{Id: jsii.String(s.RuleID), Reason: jsii.String(s.Reason)}
		if len(appliesTo) > 0 { // a rule without granular findings is suppressed as a whole
			suppression.AppliesTo = &appliesTo
		}
		out = append(out, suppression)
	}
	return &out
}
