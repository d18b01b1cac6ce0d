// Command perkey is a CDK app of a user's own: each order is processed by the app's own Go Lambda
// function, at most two orders of the same tenant at a time, behind a Turnstile semaphore whose
// lock name is the order's tenant. Orders of different tenants never wait for each other.
package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"

	"github.com/turnstile-sfn/turnstile/constructs/semaphore"
	"github.com/turnstile-sfn/turnstile/golambda"
)

func main() {
	defer jsii.Close()
	app := awscdk.NewApp(nil)
	stack := awscdk.NewStack(app, jsii.String("PerTenantOrders"), nil)

	// The app's own function, built from its own package for arm64 (no Docker).
	process := golambda.New(stack, jsii.String("ProcessOrder"), &golambda.Props{
		Package: jsii.String("example.com/perkey/processorder"),
		Timeout: awscdk.Duration_Seconds(jsii.Number(30)),
	})

	// At most 2 orders of one tenant at once; the tenant is read from each execution's input.
	// The work function is granted the slot check (slot.Verify) by the construct.
	// Submissions: producers may also hand orders to the submit function (directly, from an
	// EventBridge rule or an SQS queue); each order then starts only when its tenant has a slot.
	orders := semaphore.New(stack, jsii.String("OrdersPerTenant"), &semaphore.Props{
		LockNamePath: "$.tenant",
		Limit:        2,
		WorkFunction: process,
		Submissions:  jsii.Bool(true),
	})

	awscdk.NewCfnOutput(stack, jsii.String("StateMachineArn"), &awscdk.CfnOutputProps{
		Value: orders.StateMachine().StateMachineArn(),
	})
	awscdk.NewCfnOutput(stack, jsii.String("SubmitFunctionName"), &awscdk.CfnOutputProps{
		Value: orders.SubmitFunction().FunctionName(),
	})

	// cdk-nag's AwsSolutions checks: an error fails the synth.
	awscdk.Aspects_Of(app).Add(cdknag.NewAwsSolutionsChecks(&cdknag.NagPackProps{Verbose: jsii.Bool(true)}), nil)
	app.Synth(nil)
}
