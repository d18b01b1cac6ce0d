// Package slot lets the work itself check that its execution holds a slot of the semaphore, as
// the first thing a Lambda work function does:
//
//	if err := slot.Verify(ctx, dynamoDBClient); err != nil {
//		return nil, err // Turnstile.NotHolder: this execution holds no slot
//	}
//
// Why: a redriven execution resumes at the step that did not finish, which for one aborted
// inside the work is the work task itself, before any state of the semaphore can run; its slot
// may have been freed by the cleanup and taken by another execution since. The redrive guard
// re-acquires a slot or stops the execution, but only after its RUNNING event. A Lambda work
// function that calls Verify does the same before it starts: it goes on if its execution holds
// a slot or can take a free one (the semaphore's own conditional acquire), and refuses to start
// otherwise, so a redriven execution never works beside the slot's new holder.
//
// The semaphore's LambdaWork invocation passes what Verify needs in the Lambda client context
// (machines.ClientContextKeyExecution and its siblings): the execution's ARN, the lock table,
// the lock name and the limit. Verify needs dynamodb:GetItem and dynamodb:UpdateItem on the
// lock table.
package slot
