package semcheck_test

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
	"github.com/turnstile-sfn/turnstile/internal/semcheck"
)

const (
	updateItemResource = "arn:aws:states:::dynamodb:updateItem"
	getItemResource    = "arn:aws:states:::dynamodb:getItem"
	// errorClient is what emulator/dynamo raises for a request that got no reply.
	errorClient = "DynamoDB.SdkClientException"
	// maxRequests bounds the requests of one operation: after that many transient failures its
	// client gives up and the outcome stays unknown.
	maxRequests = 40
)

// variant is a version of the semaphore's protocol: the real one, or one deliberately broken.
type variant struct {
	name string
	// withoutLimit drops "#count < :limit" from the acquire's condition.
	withoutLimit bool
	// withoutReadBack takes a failed condition for "full" without reading the holder back.
	withoutReadBack bool
}

// lockClient runs the semaphore's acquire and release against one lock item, as the semaphore
// machine does, with the machine's own expressions, and records every operation.
type lockClient struct {
	variant  variant
	dynamo   *dynamo.Integration
	table    string
	lockName string
	limit    int
	recorder *semcheck.Recorder
	client   int
	random   *rand.Rand
	// abandonRate is the chance that the client crashes right after a lost reply, leaving the
	// operation's outcome unknown.
	abandonRate float64
}

func (c *lockClient) key() map[string]any {
	return map[string]any{machines.AttributeLockName: map[string]any{"S": c.lockName}}
}

func (c *lockClient) acquireParams(holder string) map[string]any {
	condition := machines.AcquireConditionExpression
	values := map[string]any{
		":zero":  map[string]any{"N": "0"},
		":one":   map[string]any{"N": "1"},
		":limit": map[string]any{"N": strconv.Itoa(c.limit)},
		":now":   map[string]any{"S": "2026-01-01T00:00:00Z"},
	}
	if c.variant.withoutLimit {
		condition = "attribute_not_exists(#holder)"
		delete(values, ":limit")
	}
	return map[string]any{
		"TableName":                 c.table,
		"Key":                       c.key(),
		"UpdateExpression":          machines.AcquireUpdateExpression,
		"ConditionExpression":       condition,
		"ExpressionAttributeNames":  map[string]any{"#count": machines.AttributeHolderCount, "#holder": holder},
		"ExpressionAttributeValues": values,
	}
}

func (c *lockClient) releaseParams(holder string) map[string]any {
	return map[string]any{
		"TableName":                 c.table,
		"Key":                       c.key(),
		"UpdateExpression":          machines.ReleaseUpdateExpression,
		"ConditionExpression":       machines.ReleaseConditionExpression,
		"ExpressionAttributeNames":  map[string]any{"#count": machines.AttributeHolderCount, "#holder": holder},
		"ExpressionAttributeValues": map[string]any{":one": map[string]any{"N": "1"}},
	}
}

// errorName is the Step Functions error name of err, or err itself for anything else.
func errorName(err error) (string, error) {
	var failure *asl.Error
	if !errors.As(err, &failure) {
		return "", err
	}
	return failure.Name, nil
}

// transient reports whether a retry can fix the error name, as the machine's Retry says.
func transient(name string) bool { return slices.Contains(machines.TransientDynamoDBErrors(), name) }

// crashes decides whether the client gives up right after a lost reply.
func (c *lockClient) crashes() bool { return c.random.Float64() < c.abandonRate }

// acquire runs one acquire attempt for holder and returns its outcome, Unknown when the client
// gave up without learning it. On a failed condition, or a lost reply, it reads its own holder
// back (unless the variant skips that): present means an earlier write landed.
func (c *lockClient) acquire(ctx context.Context, holder string) (semcheck.Outcome, error) {
	call := c.recorder.Begin(c.client, semcheck.Acquire(holder))
	for range maxRequests {
		_, err := c.dynamo.Invoke(ctx, updateItemResource, c.acquireParams(holder))
		if err == nil {
			call.End(semcheck.Acquired)
			return semcheck.Acquired, nil
		}
		name, err := errorName(err)
		if err != nil {
			return semcheck.Unknown, err
		}
		switch {
		case name == machines.ErrorConditionalCheckFailed && c.variant.withoutReadBack:
			call.End(semcheck.Full)
			return semcheck.Full, nil
		case name == machines.ErrorConditionalCheckFailed, name == errorClient && !c.variant.withoutReadBack:
			if name == errorClient && c.crashes() {
				return semcheck.Unknown, nil
			}
			held, known, err := c.holds(ctx, holder)
			switch {
			case err != nil:
				return semcheck.Unknown, err
			case !known:
				return semcheck.Unknown, nil
			case held:
				call.End(semcheck.Acquired)
				return semcheck.Acquired, nil
			case name == machines.ErrorConditionalCheckFailed:
				call.End(semcheck.Full)
				return semcheck.Full, nil
			}
			// The lost request never landed: send it again.
		case transient(name):
			if name == errorClient && c.crashes() {
				return semcheck.Unknown, nil
			}
		default:
			return semcheck.Unknown, fmt.Errorf("acquire %s: unexpected error %s", holder, name)
		}
		c.pause()
	}
	return semcheck.Unknown, nil
}

// holds reads holder back with a consistent read; known is false when every read failed.
func (c *lockClient) holds(ctx context.Context, holder string) (held, known bool, err error) {
	for range maxRequests {
		result, err := c.dynamo.Invoke(ctx, getItemResource, map[string]any{
			"TableName":                c.table,
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
			return false, false, err
		}
		if !transient(name) {
			return false, false, fmt.Errorf("read back %s: unexpected error %s", holder, name)
		}
		c.pause()
	}
	return false, false, nil
}

// release gives holder's slot back. A failed condition after a lost reply means that reply's
// write landed (Released); a failed condition on the first request means the holder held nothing.
func (c *lockClient) release(ctx context.Context, holder string) (semcheck.Outcome, error) {
	call := c.recorder.Begin(c.client, semcheck.Release(holder))
	replyLost := false
	for range maxRequests {
		_, err := c.dynamo.Invoke(ctx, updateItemResource, c.releaseParams(holder))
		if err == nil {
			call.End(semcheck.Released)
			return semcheck.Released, nil
		}
		name, err := errorName(err)
		if err != nil {
			return semcheck.Unknown, err
		}
		switch {
		case name == machines.ErrorConditionalCheckFailed && replyLost:
			call.End(semcheck.Released)
			return semcheck.Released, nil
		case name == machines.ErrorConditionalCheckFailed:
			call.End(semcheck.NotHeld)
			return semcheck.NotHeld, nil
		case transient(name):
			replyLost = replyLost || name == errorClient
		default:
			return semcheck.Unknown, fmt.Errorf("release %s: unexpected error %s", holder, name)
		}
		c.pause()
	}
	return semcheck.Unknown, nil
}

// pause waits a jittered moment before the next request, as the machine's Retry and Wait do.
func (c *lockClient) pause() {
	time.Sleep(time.Duration(c.random.IntN(1000)) * time.Microsecond)
}
