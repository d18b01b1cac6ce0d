package semcheck

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/emulator/dynamo"
)

// errorClient is what emulator/dynamo raises for a request of the AWS SDK integration that got
// no reply.
const errorClient = "DynamoDb.SdkClientException"

// conflictReason is the cancellation reason of a transaction that conflicted with another: the
// machine's read-back then finds the lock unchanged, and the client tries again.
const conflictReason = "TransactionConflict"

// MaxRequests bounds the requests of one operation: after that many transient failures its
// client gives up and the outcome stays unknown.
const MaxRequests = 40

// ErrUnexpected reports a DynamoDB error the semaphore's protocol does not expect (one its
// machine would fail on), or an error that is not a Step Functions error at all.
var ErrUnexpected = errors.New("semcheck: unexpected error")

// Variant is a version of the semaphore's protocol: the real one (the zero value), or one
// deliberately broken, to show that the checks catch it.
type Variant struct {
	// Name describes the variant in reports.
	Name string
	// WithoutLimit drops the acquire's condition on the counter (lock.AcquireCountCondition).
	WithoutLimit bool
	// WithoutReadBack takes a cancelled acquire for "full" without reading the holder back.
	WithoutReadBack bool
}

// LockClient runs the Poll semaphore machine's acquire, read-back and release against one lock,
// with the Parameters of the machine's own tasks (machines.StateAcquireSlot,
// machines.StateCheckHolder, machines.StateReleaseSlot, rendered by machines.Semaphore), through
// the emulator's DynamoDB integration, and records every operation: a change to the machine is
// what the checks test. A LockClient is used by one goroutine at a time; build it with
// NewLockClient.
type LockClient struct {
	// Variant is the protocol. Default: the semaphore's own.
	Variant Variant
	// Dynamo sends the requests, e.g. through a faultproxy. Required.
	Dynamo *dynamo.Integration
	// LockName is the lock's name. Required.
	LockName string
	// Recorder records every acquire and release. Required.
	Recorder *Recorder
	// Client is the client ID the operations are recorded with.
	Client int
	// Random paces the pauses and decides the crashes. Required.
	Random *rand.Rand
	// CrashRate is the chance that the client gives up right after a lost reply (a crash),
	// leaving the operation's outcome unknown. Default: 0.
	CrashRate float64

	tasks pollTasks
}

// NewLockClient returns a LockClient of the lock lockName in table, of limit slots, with the
// Poll machine's tasks rendered for them; set the remaining fields before use.
func NewLockClient(table, lockName string, limit int) (*LockClient, error) {
	tasks, err := renderPollTasks(table, lockName, limit)
	if err != nil {
		return nil, err
	}
	return &LockClient{LockName: lockName, tasks: tasks}, nil
}

// params resolves a task's Parameters for holder's execution.
func (c *LockClient) params(t task, holder string) (map[string]any, error) {
	resolved, err := newResolver(c.LockName, holder).apply(t.params)
	if err != nil {
		return nil, err
	}
	return resolved.(map[string]any), nil
}

// acquireParams is the machine's acquire transaction for holder, broken as the variant says.
func (c *LockClient) acquireParams(holder string) (map[string]any, error) {
	p, err := c.params(c.tasks.acquire, holder)
	if err != nil || !c.Variant.WithoutLimit {
		return p, err
	}
	items, _ := p["TransactItems"].([]any)
	for _, item := range items {
		update, _ := item.(map[string]any)["Update"].(map[string]any)
		if update == nil {
			continue
		}
		delete(update, "ConditionExpression")
		if values, ok := update["ExpressionAttributeValues"].(map[string]any); ok {
			delete(values, ":limit")
		}
		if names, ok := update["ExpressionAttributeNames"].(map[string]any); ok {
			// Only the condition names these; DynamoDB refuses names an expression does not use.
			delete(names, "#limit")
			delete(names, "#paused")
		}
	}
	return p, nil
}

// errorConflict names a transaction cancelled for a conflict with another transaction (not for
// a failed condition): the machine's read-back finds nothing changed and it tries again.
const errorConflict = "semcheck.TransactionConflict"

// errorName is the Step Functions error name of err (errorConflict for a cancellation by a
// conflicting transaction), or an ErrUnexpected error for anything else.
func errorName(err error) (string, error) {
	var failure *asl.Error
	if !errors.As(err, &failure) {
		return "", fmt.Errorf("%w: %w", ErrUnexpected, err)
	}
	if failure.Name == machines.ErrorTransactionCanceled && strings.Contains(failure.Cause, conflictReason) {
		return errorConflict, nil
	}
	return failure.Name, nil
}

// transient reports whether a retry can fix the error name, as the machine's Retry says.
func transient(name string) bool {
	return name == errorConflict || slices.Contains(machines.TransientDynamoDBErrors(), name)
}

// crashes decides whether the client gives up right after a lost reply.
func (c *LockClient) crashes() bool { return c.Random.Float64() < c.CrashRate }

// Acquire runs one acquire attempt for holder and returns its outcome: Acquired, Full, or
// Unknown when the client gave up without learning it. On a failed condition, or a lost reply,
// it reads its own holder back (unless the variant skips that): present means an earlier write
// landed. An operation given up is recorded with Call.Abandon.
func (c *LockClient) Acquire(ctx context.Context, holder string) (Outcome, error) {
	params, err := c.acquireParams(holder)
	if err != nil {
		return Unknown, err
	}
	call := c.Recorder.Begin(c.Client, Acquire(holder))
	for range MaxRequests {
		_, err := c.Dynamo.Invoke(ctx, c.tasks.acquire.resource, params)
		if err == nil {
			call.End(Acquired)
			return Acquired, nil
		}
		name, err := errorName(err)
		if err != nil {
			return Unknown, fmt.Errorf("acquire %s: %w", holder, err)
		}

		switch {
		case name == machines.ErrorTransactionCanceled && c.Variant.WithoutReadBack:
			call.End(Full)
			return Full, nil
		case name == machines.ErrorTransactionCanceled, name == errorClient && !c.Variant.WithoutReadBack:
			if name == errorClient && c.crashes() {
				call.Abandon()
				return Unknown, nil
			}
			held, known, err := c.Holds(ctx, holder)
			switch {
			case err != nil:
				return Unknown, err
			case !known:
				call.Abandon()
				return Unknown, nil
			case held:
				call.End(Acquired)
				return Acquired, nil
			case name == machines.ErrorTransactionCanceled:
				call.End(Full)
				return Full, nil
			}
			// The lost request never landed: send it again.
		case transient(name):
			if name == errorClient && c.crashes() {
				call.Abandon()
				return Unknown, nil
			}
		default:
			return Unknown, fmt.Errorf("acquire %s: %w %s", holder, ErrUnexpected, name)
		}
		c.Pause()
	}
	call.Abandon()
	return Unknown, nil
}

// Holds reads holder back with the machine's read-back (a consistent Query counting its holder
// item); known is false when every read failed.
func (c *LockClient) Holds(ctx context.Context, holder string) (held, known bool, err error) {
	params, err := c.params(c.tasks.checkHolder, holder)
	if err != nil {
		return false, false, err
	}
	for range MaxRequests {
		result, err := c.Dynamo.Invoke(ctx, c.tasks.checkHolder.resource, params)
		if err == nil {
			return countOf(result) > 0, true, nil
		}
		name, err := errorName(err)
		if err != nil {
			return false, false, fmt.Errorf("read back %s: %w", holder, err)
		}
		if !transient(name) {
			return false, false, fmt.Errorf("read back %s: %w %s", holder, ErrUnexpected, name)
		}
		c.Pause()
	}
	return false, false, nil
}

// Release gives holder's slot back, as the machine does: a failed condition means "already
// released". It returns Released when the holder holds no slot any more (a failed condition
// after a lost reply included: that reply's write may have landed), NotHeld when the first
// request's condition failed, and Unknown when every request failed and the client gave up.
// The history records what is certain: a failed condition after a lost reply is an operation
// of unknown outcome, over by then (Call.Abandon). Use ReleaseHeld when the caller knows it
// holds the slot.
func (c *LockClient) Release(ctx context.Context, holder string) (Outcome, error) {
	return c.release(ctx, holder, false)
}

// ReleaseHeld is Release for a caller that knows holder holds a slot (its acquire returned
// Acquired, and nothing else releases it): a failed condition after a lost reply can only mean
// that the lost request landed, and is recorded as Released.
func (c *LockClient) ReleaseHeld(ctx context.Context, holder string) (Outcome, error) {
	return c.release(ctx, holder, true)
}

// release sends the release until it has an answer; held says the caller knows it holds the
// slot.
func (c *LockClient) release(ctx context.Context, holder string, held bool) (Outcome, error) {
	params, err := c.params(c.tasks.release, holder)
	if err != nil {
		return Unknown, err
	}
	call := c.Recorder.Begin(c.Client, Release(holder))
	replyLost := false
	for range MaxRequests {
		_, err := c.Dynamo.Invoke(ctx, c.tasks.release.resource, params)
		if err == nil {
			call.End(Released)
			return Released, nil
		}
		name, err := errorName(err)
		if err != nil {
			return Unknown, fmt.Errorf("release %s: %w", holder, err)
		}
		switch {
		case name == machines.ErrorTransactionCanceled && replyLost && held:
			call.End(Released)
			return Released, nil
		case name == machines.ErrorTransactionCanceled && replyLost:
			// The holder is gone, but whether this release or another took it away depends on
			// whether the lost request landed: recorded as unknown, over by now.
			call.Abandon()
			return Released, nil
		case name == machines.ErrorTransactionCanceled:
			call.End(NotHeld)
			return NotHeld, nil
		case transient(name):
			replyLost = replyLost || name == errorClient
		default:
			return Unknown, fmt.Errorf("release %s: %w %s", holder, ErrUnexpected, name)
		}
		c.Pause()
	}
	call.Abandon()
	return Unknown, nil
}

// Pause waits a jittered moment (under a millisecond) before the next request, as the machine's
// Retry and Wait do.
func (c *LockClient) Pause() {
	time.Sleep(time.Duration(c.Random.IntN(1000)) * time.Microsecond)
}

// countOf reads the Count of a Query result.
func countOf(result any) float64 {
	switch n := result.(map[string]any)["Count"].(type) {
	case int64:
		return float64(n)
	case float64:
		return n
	}
	return 0
}
