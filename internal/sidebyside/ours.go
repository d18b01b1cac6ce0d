package sidebyside

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/turnstile-sfn/turnstile/emulator"
	"github.com/turnstile-sfn/turnstile/emulator/dynamo"
)

// ErrExecutionFailed reports an execution that did not succeed: the workload or the interpreter
// is broken, and the run measures nothing.
var ErrExecutionFailed = errors.New("sidebyside: an execution did not succeed")

// RunOurs runs load executions of w in a new emulator on a skipping clock, its DynamoDB tasks
// (if any) sent to w.Endpoint, and measures them. Any execution that does not succeed fails the
// run with ErrExecutionFailed.
func RunOurs(ctx context.Context, w Workload, load Load) (Result, error) {
	if err := load.check(); err != nil {
		return Result{}, err
	}
	em := emulator.New(emulator.Options{Clock: emulator.NewSkippingClock(time.Time{}, 1), Seed: 1})
	defer em.Close()
	counter := &countingInvoker{}
	if w.Endpoint != "" {
		in, err := dynamo.New(w.Endpoint)
		if err != nil {
			return Result{}, fmt.Errorf("sidebyside: %w", err)
		}
		counter.inv = in
		em.RegisterIntegration(emulator.FromResourceInvoker(counter))
	}
	arn, err := em.CreateStateMachine(w.Name, w.Definition, emulator.StateMachineOptions{})
	if err != nil {
		return Result{}, fmt.Errorf("sidebyside: create the %s machine: %w", w.Name, err)
	}

	var first string
	runOne := func(i int) error {
		started, err := em.StartExecution(ctx, arn, "", w.Input)
		if err != nil {
			return fmt.Errorf("sidebyside: start execution %d: %w", i, err)
		}
		done, err := em.Wait(ctx, started.ExecutionArn)
		if err != nil {
			return fmt.Errorf("sidebyside: wait for execution %d: %w", i, err)
		}
		if done.Status != emulator.StatusSucceeded {
			return fmt.Errorf("%w: execution %d ended %s (%s: %s)", ErrExecutionFailed, i, done.Status, deref(done.Error), deref(done.Cause))
		}
		if i == 0 {
			first = deref(done.Output)
		}
		return nil
	}
	r, err := runConcurrently(load, runOne)
	if err != nil {
		return Result{}, err
	}
	r.DynamoDBRequests, r.FirstOutput = counter.calls.Load(), json.RawMessage(first)
	return r, nil
}

// countingInvoker counts the calls of the DynamoDB integration it wraps.
type countingInvoker struct {
	inv   emulator.ResourceInvoker
	calls atomic.Int64
}

// Supports asks the wrapped invoker.
func (c *countingInvoker) Supports(resource string) bool { return c.inv.Supports(resource) }

// Invoke counts the call and passes it on.
func (c *countingInvoker) Invoke(ctx context.Context, resource string, params any) (any, error) {
	c.calls.Add(1)
	return c.inv.Invoke(ctx, resource, params)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
