package semcheck

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/emulator/dynamo"
)

// The resources of the Step Functions DynamoDB integration the lock client calls.
const (
	updateItemResource = "arn:aws:states:::dynamodb:updateItem"
	getItemResource    = "arn:aws:states:::dynamodb:getItem"
)

// errorClient is what emulator/dynamo raises for a request that got no reply.
const errorClient = "DynamoDB.SdkClientException"

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
	// WithoutLimit drops "#count < :limit" from the acquire's condition.
	WithoutLimit bool
	// WithoutReadBack takes a failed condition for "full" without reading the holder back.
	WithoutReadBack bool
}

// LockClient runs the semaphore's acquire and release against one lock item as the semaphore
// machine does, with the machine's own expressions (asl/machines), through the emulator's
// DynamoDB integration, and records every operation. A LockClient is used by one goroutine at a
// time.
type LockClient struct {
	// Variant is the protocol. Default: the semaphore's own.
	Variant Variant
	// Dynamo sends the requests, e.g. through a faultproxy. Required.
	Dynamo *dynamo.Integration
	// Table is the lock table. Required.
	Table string
	// LockName is the lock item's key. Required.
	LockName string
	// Limit is the lock's limit of holders. Required.
	Limit int
	// Recorder records every acquire and release. Required.
	Recorder *Recorder
	// Client is the client ID the operations are recorded with.
	Client int
	// Random paces the pauses and decides the crashes. Required.
	Random *rand.Rand
	// CrashRate is the chance that the client gives up right after a lost reply (a crash),
	// leaving the operation's outcome unknown. Default: 0.
	CrashRate float64
}

// key is the lock item's key.
func (c *LockClient) key() map[string]any {
	return map[string]any{machines.AttributeLockName: map[string]any{"S": c.LockName}}
}

// acquireParams is the acquire's UpdateItem, as the semaphore machine sends it.
func (c *LockClient) acquireParams(holder string) map[string]any {
	condition := machines.AcquireConditionExpression
	values := map[string]any{
		":zero":  map[string]any{"N": "0"},
		":one":   map[string]any{"N": "1"},
		":limit": map[string]any{"N": strconv.Itoa(c.Limit)},
		":now":   map[string]any{"S": "2026-01-01T00:00:00Z"},
	}
	names := map[string]any{}
	for k, v := range machines.AcquireExpressionNames(holder) {
		names[k] = v
	}
	if c.Variant.WithoutLimit {
		condition = "attribute_not_exists(#holder)"
		delete(values, ":limit")
		delete(names, "#queue")
	}
	return map[string]any{
		"TableName":                 c.Table,
		"Key":                       c.key(),
		"UpdateExpression":          machines.AcquireUpdateExpression,
		"ConditionExpression":       condition,
		"ExpressionAttributeNames":  names,
		"ExpressionAttributeValues": values,
	}
}

// releaseParams is the release's UpdateItem, as the semaphore machine sends it.
func (c *LockClient) releaseParams(holder string) map[string]any {
	return map[string]any{
		"TableName":                 c.Table,
		"Key":                       c.key(),
		"UpdateExpression":          machines.ReleaseUpdateExpression,
		"ConditionExpression":       machines.ReleaseConditionExpression,
		"ExpressionAttributeNames":  map[string]any{"#count": machines.AttributeHolderCount, "#holder": holder},
		"ExpressionAttributeValues": map[string]any{":one": map[string]any{"N": "1"}},
	}
}

// errorName is the Step Functions error name of err, or an ErrUnexpected error for anything
// else.
func errorName(err error) (string, error) {
	var failure *asl.Error
	if !errors.As(err, &failure) {
		return "", fmt.Errorf("%w: %w", ErrUnexpected, err)
	}
	return failure.Name, nil
}

// transient reports whether a retry can fix the error name, as the machine's Retry says.
func transient(name string) bool { return slices.Contains(machines.TransientDynamoDBErrors(), name) }

// crashes decides whether the client gives up right after a lost reply.
func (c *LockClient) crashes() bool { return c.Random.Float64() < c.CrashRate }

// Acquire runs one acquire attempt for holder and returns its outcome: Acquired, Full, or
// Unknown when the client gave up without learning it. On a failed condition, or a lost reply,
// it reads its own holder back (unless the variant skips that): present means an earlier write
// landed. An operation given up is recorded with Call.Abandon.
func (c *LockClient) Acquire(ctx context.Context, holder string) (Outcome, error) {
	call := c.Recorder.Begin(c.Client, Acquire(holder))
	for range MaxRequests {
		_, err := c.Dynamo.Invoke(ctx, updateItemResource, c.acquireParams(holder))
		if err == nil {
			call.End(Acquired)
			return Acquired, nil
		}
		name, err := errorName(err)
		if err != nil {
			return Unknown, fmt.Errorf("acquire %s: %w", holder, err)
		}
		switch {
		case name == machines.ErrorConditionalCheckFailed && c.Variant.WithoutReadBack:
			call.End(Full)
			return Full, nil
		case name == machines.ErrorConditionalCheckFailed, name == errorClient && !c.Variant.WithoutReadBack:
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
			case name == machines.ErrorConditionalCheckFailed:
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

// Holds reads holder back with a consistent read; known is false when every read failed.
func (c *LockClient) Holds(ctx context.Context, holder string) (held, known bool, err error) {
	for range MaxRequests {
		result, err := c.Dynamo.Invoke(ctx, getItemResource, map[string]any{
			"TableName":                c.Table,
			"Key":                      c.key(),
			"ConsistentRead":           true,
			"ProjectionExpression":     machines.HolderProjectionExpression,
			"ExpressionAttributeNames": map[string]any{"#holder": holder},
		})
		if err == nil {
			item, _ := result.(map[string]any)["Item"].(map[string]any)
			return len(item) > 0, true, nil
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
	call := c.Recorder.Begin(c.Client, Release(holder))
	replyLost := false
	for range MaxRequests {
		_, err := c.Dynamo.Invoke(ctx, updateItemResource, c.releaseParams(holder))
		if err == nil {
			call.End(Released)
			return Released, nil
		}
		name, err := errorName(err)
		if err != nil {
			return Unknown, fmt.Errorf("release %s: %w", holder, err)
		}
		switch {
		case name == machines.ErrorConditionalCheckFailed && replyLost && held:
			call.End(Released)
			return Released, nil
		case name == machines.ErrorConditionalCheckFailed && replyLost:
			// The holder is gone, but whether this release or another took it away depends on
			// whether the lost request landed: recorded as unknown, over by now.
			call.Abandon()
			return Released, nil
		case name == machines.ErrorConditionalCheckFailed:
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
