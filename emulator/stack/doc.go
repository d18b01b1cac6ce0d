// Package stack runs a synthesized CDK stack on this machine: it loads the CloudFormation
// template from a cdk.out directory, creates its DynamoDB tables in a real DynamoDB API server
// (AWS's DynamoDB Local on loopback), binds its Lambda functions to Go handlers, creates its state machines
// in the emulator, puts its EventBridge rules on a local event bus fed by the executions' status
// changes (and ticks its scheduled rules), and serves the Step Functions API on loopback so that
// unmodified AWS SDK clients can drive it.
//
//	st, err := stack.Start(ctx, "cdk.out", stack.Options{
//		TimeScale: 0.01,
//		Seed:      1,
//		Handlers:  map[string]stack.HandlerFactory{"lambdas/dowork": doworkFactory},
//	})
//	if err != nil {
//		return err
//	}
//	defer st.Close()
//	sfnClient := st.StepFunctionsClient() // talks to st.APIURL()
package stack
