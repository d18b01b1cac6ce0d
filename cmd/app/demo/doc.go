// Package demo is Turnstile's demo stack, the one the AWS sample runs: the dowork Lambda
// function (15 s of work, 10 % failures) behind a semaphore of 5 slots on the lock
// "MySemaphore", so that at most 5 invocations run at once however many executions start.
//
// The stack is configured from the CDK context:
//
//	cdk synth                                    # TurnstileDemo, MySemaphore, limit 5
//	cdk synth -c limit=3 -c lockName=Reports     # another lock and limit
//	cdk synth -c stackName=Gate -c prefix=CC     # a second copy: CCSemaphore…, CCDoWork…
//	cdk synth -c reservedConcurrency=5           # also cap dowork with reserved concurrency
//
// and built by the app in cmd/app:
//
//	cfg, err := demo.ConfigFromContext(app.Node())
//	if err != nil {
//		return err // a *ContextError naming the key, e.g. "context limit must be an integer, got \"five\""
//	}
//	stack := demo.NewStack(app, cfg)
//
// Reserved concurrency is the Lambda-native cap described in the seed documents, a second line
// of defence under the semaphore: with it at the limit, an invocation beyond the limit is
// throttled (Lambda.TooManyRequestsException, retried by the state machine) instead of running.
// Lambda keeps 100 of the account's concurrent executions unreserved, so small accounts cannot
// reserve any.
//
// The stack's outputs name the state machine to start (StateMachineArn), the lock table and the
// function. Its cdk-nag AwsSolutions findings are all resolved or suppressed with a reason: the
// semaphore and its cleanup record their own suppressions, the demo those of its load test (see
// TestRunnerRoleSuppressions).
package demo
