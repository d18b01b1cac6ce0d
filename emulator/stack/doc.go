// Package stack runs a synthesized CDK stack on this machine: it loads the CloudFormation
// template from a cdk.out directory, creates its DynamoDB tables in a real DynamoDB API server
// (AWS's DynamoDB Local on loopback), binds its Lambda functions to Go handlers, creates its state machines
// in the emulator, puts its EventBridge rules on a local event bus fed by the executions' status
// changes (and ticks its scheduled rules), and serves the Step Functions API on loopback so that
// unmodified AWS SDK clients can drive it.
//
// A function without a registered handler but with a Go package (the import path Turnstile's Go
// Lambda construct records in the turnstile:go-package metadata) runs unchanged: the stack builds
// its main package from Options.ModuleDir and runs the binary through the Lambda Runtime API
// (package runtimeapi), its AWS SDK clients pointed at the stack's DynamoDB and Step Functions
// endpoints.
//
//	st, err := stack.Start(ctx, "cdk.out", stack.Options{
//		Seed:      1, // TimeScale 0: the clock skips time
//		Handlers:  map[string]stack.HandlerFactory{"github.com/turnstile-sfn/turnstile/lambdas/dowork": doworkFactory},
//	})
//	if err != nil {
//		return err
//	}
//	defer st.Close()
//	sfnClient := st.StepFunctionsClient() // talks to st.APIURL()
package stack
