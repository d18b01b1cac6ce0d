// Package runner is the load test behind the testrunner Lambda and `turnstile simulate`: it
// starts N executions of a semaphore-protected state machine through the Step Functions API,
// waits for them, reads their execution histories and the lock table, and reports what happened:
// how many succeeded and failed (by error), the largest number of executions inside the work
// step at once, the makespan, the time spent waiting for a slot, what each execution cost in
// state transitions and DynamoDB requests, how fast a freed slot was handed on, and the slots
// left held once everything has settled.
//
// It talks to Step Functions and DynamoDB only through the AWS SDK clients it is given, so the
// same code runs against AWS and against the local emulator:
//
//	cfg, _ := config.LoadDefaultConfig(ctx)
//	r := &runner.Runner{StepFunctions: sfn.NewFromConfig(cfg), DynamoDB: dynamodb.NewFromConfig(cfg)}
//	report, err := r.Run(ctx, runner.Config{StateMachineArn: arn, LockTable: table})
package runner
