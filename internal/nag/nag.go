// Package nag records, on Turnstile's own resources, the cdk-nag findings its constructs accept,
// each with the reason it is accepted, the way construct libraries travel with their
// suppressions: an app that runs cdk-nag's AwsSolutions checks gets no error from Turnstile's
// resources, and sees every accepted finding, with its reason, among the ignored ones.
//
//	nag.Suppress(role, nag.Suppression{
//		RuleID:    "AwsSolutions-IAM5",
//		AppliesTo: []string{"Resource::*"},
//		Reason:    "X-Ray tracing supports no resource-level permissions",
//	})
package nag

import (
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"
)

// Suppression is one cdk-nag finding accepted on a construct and its children, and why.
type Suppression struct {
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

// Suppress records the suppressions on scope and every construct below it.
func Suppress(scope constructs.IConstruct, suppressions ...Suppression) {
	out := make([]*cdknag.NagPackSuppression, 0, len(suppressions))
	for _, s := range suppressions {
		appliesTo := make([]any, 0, len(s.AppliesTo)+1)
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
	cdknag.NagSuppressions_AddResourceSuppressions(scope, &out, jsii.Bool(true))
}

// ExecutionsOfOneMachine is the pattern of the IAM5 finding for a grant on the executions of one
// state machine (arn:…:execution:<machine name>:*), whose names are made at run time.
const ExecutionsOfOneMachine = `/^Resource::arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:.*:\*$/`

// LoggingAndTracing is the IAM5 finding on a state machine role with logging and tracing on.
var LoggingAndTracing = Suppression{
	RuleID:    "AwsSolutions-IAM5",
	AppliesTo: []string{"Resource::*"},
	Reason: "Step Functions execution logging (logs:*LogDelivery, logs:PutResourcePolicy, logs:Describe*) " +
		"and X-Ray tracing (xray:PutTraceSegments, xray:PutTelemetryRecords, xray:GetSampling*) " +
		"support no resource-level permissions, so AWS requires Resource \"*\" for them",
}
