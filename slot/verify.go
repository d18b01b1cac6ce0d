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
	// Lock is the lock's name.
	Lock string
	// Limit is the lock's limit.
	Limit int
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
	limit, err := strconv.Atoi(custom[machines.ClientContextKeyLimit])
	if c.Execution == "" || c.Table == "" || c.Lock == "" || err != nil || limit < 1 {
		return Context{}, fmt.Errorf("%w: want the keys %s, %s, %s and %s (a positive integer)", ErrNoSlotContext,
			machines.ClientContextKeyExecution, machines.ClientContextKeyTable, machines.ClientContextKeyLock, machines.ClientContextKeyLimit)
	}
	c.Limit = limit
	c.Redriven = custom[machines.ClientContextKeyRedriveCount] != "0"
	return c, nil
}

// Verify returns nil when the invoking execution was never redriven (it reached its work
// through the acquire and holds its slot: no request is made), when it holds a slot of its
// lock, or when it has just taken a free one with the lock's own acquire transaction
// (lock.Client.TryAcquire): what the redrive guard would do, done before the work starts rather
// than after. Otherwise it returns an error that Lambda reports under the name ErrorNotHolder
// (every slot is taken: a redrive after the execution's slot was freed) or ErrorNoSlotContext
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
