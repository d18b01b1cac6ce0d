package slot

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/aws/aws-lambda-go/lambda/messages"
	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/lock"
)

// The error names Verify's failures carry, as the state machine sees them.
const (
	// ErrorNotHolder: the execution holds no slot of its lock.
	ErrorNotHolder = machines.ErrorNotHolder
	// ErrorNoSlotContext: the invocation carries no Turnstile client context (it was not
	// invoked by a semaphore's LambdaWork).
	ErrorNoSlotContext = machines.ErrorNoSlotContext
)

// ErrNoSlotContext is wrapped by Verify's error when the invocation carries no Turnstile
// client context.
var ErrNoSlotContext = errors.New("slot: the invocation carries no Turnstile client context")

// Context is what the semaphore passes its Lambda work in the client context.
type Context struct {
	// Execution is the execution's ARN: its holder attribute's name.
	Execution string
	// Table is the lock table's name.
	Table string
	// Lock is the lock's name; empty when the execution holds several locks (Locks).
	Lock string
	// Limit is the lock's limit; 0 when the execution holds several locks.
	Limit int
	// Locks is the number of locks the execution holds during its work when its semaphore
	// has several (Locks or TotalLimit); 0 for a semaphore of one lock.
	Locks int
	// Redriven reports whether the execution was redriven (its redrive count is above 0, or
	// unknown).
	Redriven bool
}

// FromContext reads the Turnstile client context of a Lambda invocation.
func FromContext(ctx context.Context) (Context, error) {
	lc, ok := lambdacontext.FromContext(ctx)
	if !ok {
		return Context{}, fmt.Errorf("%w: no Lambda context", ErrNoSlotContext)
	}
	custom := lc.ClientContext.Custom
	c := Context{
		Execution: custom[machines.ClientContextKeyExecution],
		Table:     custom[machines.ClientContextKeyTable],
		Lock:      custom[machines.ClientContextKeyLock],
	}
	c.Redriven = custom[machines.ClientContextKeyRedriveCount] != "0"
	if several, ok := custom[machines.ClientContextKeyLocks]; ok {
		n, err := strconv.Atoi(several)
		if c.Execution == "" || c.Table == "" || err != nil || n < 1 {
			return Context{}, fmt.Errorf("%w: want the keys %s, %s and %s (a positive integer)", ErrNoSlotContext,
				machines.ClientContextKeyExecution, machines.ClientContextKeyTable, machines.ClientContextKeyLocks)
		}
		c.Locks = n
		return c, nil
	}
	limit, err := strconv.Atoi(custom[machines.ClientContextKeyLimit])
	if c.Execution == "" || c.Table == "" || c.Lock == "" || err != nil || limit < 1 {
		return Context{}, fmt.Errorf("%w: want the keys %s, %s, %s and %s (a positive integer)", ErrNoSlotContext,
			machines.ClientContextKeyExecution, machines.ClientContextKeyTable, machines.ClientContextKeyLock, machines.ClientContextKeyLimit)
	}
	c.Limit = limit
	return c, nil
}

// Verify returns nil when the invoking execution was never redriven (it reached its work
// through the acquire and holds its slot: no request is made), when it holds a slot of its
// lock, or when it has just taken a free one with the lock's own acquire transaction
// (lock.Client.TryAcquire): what the redrive guard would do, done before the work starts rather
// than after. Otherwise it returns an error that Lambda reports under the name ErrorNotHolder
// (every slot is taken: a redrive after the execution's slot was freed; or a redriven
// execution of a semaphore with several locks, which are not taken back) or ErrorNoSlotContext
// (not invoked by a semaphore), or the DynamoDB error. It needs dynamodb:UpdateItem and
// dynamodb:PutItem on the lock table (the transaction's two writes). *dynamodb.Client
// satisfies lock.DynamoDBAPI.
func Verify(ctx context.Context, ddb lock.DynamoDBAPI) error {
	c, err := FromContext(ctx)
	if err != nil {
		return messages.InvokeResponse_Error{Type: ErrorNoSlotContext, Message: err.Error()}
	}
	if !c.Redriven {
		// A never-redriven execution reaches its work only through the acquire, and its slot
		// is freed only once it is no longer RUNNING: it holds one. Nothing to read.
		return nil
	}
	if c.Locks > 0 {
		// Several locks cannot be taken back in their order from the work; the redrive guard
		// stops such an execution, and the cleanup frees what it still holds.
		return messages.InvokeResponse_Error{Type: ErrorNotHolder, Message: fmt.Sprintf(
			"the execution %s was redriven, and a semaphore with several locks does not take its %d locks back for it: start a new execution", c.Execution, c.Locks)}
	}
	locks, err := lock.New(c.Table, ddb, nil)
	if err != nil {
		return fmt.Errorf("slot: %w", err)
	}
	held, err := locks.TryAcquire(ctx, c.Lock, c.Execution, c.Limit)
	switch {
	case err != nil:
		return fmt.Errorf("slot: take a slot of the lock %q: %w", c.Lock, err)
	case !held:
		return messages.InvokeResponse_Error{Type: ErrorNotHolder, Message: fmt.Sprintf(
			"the execution %s holds no slot of the lock %q and all %d are taken: it was redriven after its slot was freed; start a new execution", c.Execution, c.Lock, c.Limit)}
	}
	return nil
}
