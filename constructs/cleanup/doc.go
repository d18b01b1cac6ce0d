// Package cleanup is the Cleanup construct: it frees what dead executions of a Turnstile
// semaphore hold (docs/architecture.md, "Cleanup"). The Semaphore construct creates one by
// default; use this package directly for a semaphore built with Props.Cleanup set to false.
//
//   - An EventBridge rule on the semaphore's FAILED, TIMED_OUT and ABORTED status changes starts
//     the cleanup machine (machines.Cleanup), which checks with DescribeExecution that the
//     execution is not RUNNING and then releases its holder with the conditional release, so
//     duplicated and stale events release nothing wrongly. The target retries for 24 hours and
//     then sends the event to an SQS dead-letter queue, whose depth raises a CloudWatch alarm.
//   - A scheduled reconciler (lambdas/reconciler, every 5 minutes by default) releases holders
//     whose execution is not RUNNING or does not exist: a lost event leaks a slot for one
//     period at most.
//   - A redrive guard (machines.RedriveGuard) reacts to RUNNING events with a redriveCount above
//     0: it takes a slot back for the redriven execution, or stops it with
//     Turnstile.RedriveWithoutSlot when every slot is taken.
//
// Permissions are least privilege: states:DescribeExecution (and StopExecution for the guard)
// on the semaphore's executions only; dynamodb:UpdateItem, GetItem and Scan on the lock table.
//
//	c := cleanup.New(stack, jsii.String("Cleanup"), &cleanup.Props{
//		StateMachine: sem.StateMachine(),
//		Table:        sem.Table(),
//		LockName:     sem.LockName(),
//		Limit:        sem.Limit(),
//	})
//	c.DeadLetterAlarm() // wire it to your alarm actions
package cleanup
