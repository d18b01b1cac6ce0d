// Package simulate runs the original AWS demo on this machine: it synthesizes the demo app (or
// takes a cdk.out), runs the stack in the local emulator against a real DynamoDB API server,
// starts N executions through the Step Functions API with the same load-test code that runs
// against AWS, and returns the report with the figures derived from it.
//
//	res, err := simulate.Run(ctx, simulate.Scenario{Executions: 100, Limit: 5, Seed: 1})
//	if err != nil {
//		return err
//	}
//	fmt.Println(res.Report.MaxConcurrentWork, res.Report.LeakedSlots)
//
// It backs `turnstile simulate` and the end-to-end tests.
package simulate
