package demo

import (
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"

	"github.com/turnstile-sfn/turnstile/internal/nag"
)

// TestRunnerRoleSuppressions are the cdk-nag findings accepted on the load-test function's
// role: reading the executions it started needs the executions of one state machine, whose ARNs
// are not known in advance. The semaphore and its cleanup record their own.
var TestRunnerRoleSuppressions = []nag.Suppression{{
	RuleID:           "AwsSolutions-IAM5",
	AppliesToPattern: nag.ExecutionsOfOneMachine,
	Reason: "the load test reads the histories of the executions it starts (states:DescribeExecution, " +
		"states:GetExecutionHistory); their names are made at run time, so the grant covers the " +
		"executions of the semaphore's state machine and nothing else",
}}

// suppressNagFindings records the findings accepted on the load test's role (its default policy
// included).
func suppressNagFindings(testRunner awslambda.Function) {
	nag.Suppress(testRunner.Role(), TestRunnerRoleSuppressions...)
}
