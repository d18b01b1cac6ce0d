// Package semaphore is a CDK construct that puts a distributed counting semaphore in front of
// work run by AWS Step Functions: at most Limit executions run the work at once, the others
// wait their turn.
//
// It creates a DynamoDB lock table (on demand, point-in-time recovery, AWS-managed encryption;
// or uses the Table given) and a Standard state machine that acquires a slot with one
// conditional write, runs the work in a Parallel state, and releases the slot, also when the
// work fails (the execution then fails with the work's own error). An execution that finds
// every slot taken waits by Props.WaitStrategy: WaitCallback (the default) parks it in the
// lock's FIFO queue on a task token and a release hands the slot to the oldest waiter through
// a small hand-off Lambda function the construct deploys; WaitPoll retries after jittered
// pauses. The definition is asl/machines.Semaphore; its golden files show exactly what is
// deployed. The state machine's role may only update (and, polling, read) items of its lock
// table, invoke the hand-off function, plus what the work needs.
//
// Lambda work should call slot.Verify first (package slot): a redriven execution whose slot
// was freed then refuses to work beside the slot's new holder.
//
// Usage, with a Lambda function as the work:
//
//	sem := semaphore.New(stack, jsii.String("Semaphore"), &semaphore.Props{
//		LockName:     "MySemaphore",
//		Limit:        5,
//		WorkFunction: fn,
//	})
//	sem.StateMachine().GrantStartExecution(starter)
//
// Per-key locks read the lock name from the execution input, so that unrelated keys never wait
// for each other; the work may also be a chain of your own states or a child state machine:
//
//	semaphore.New(stack, jsii.String("DeployGate"), &semaphore.Props{
//		LockNamePath: "$.environment",
//		Limit:        1,
//		Work:         plan.Next(apply),
//	})
//
// Invalid props panic at construction with the prop and its value named, e.g.
// "semaphore: Props.Limit must be > 0, got 0".
//
// What a semaphore cannot catch itself (an execution that times out, is stopped, or fails
// with States.Runtime while it holds a slot) is released by the cleanup construct.
package semaphore
