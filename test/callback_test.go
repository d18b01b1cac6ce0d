package test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/cmd/app/demo"
	"github.com/turnstile-sfn/turnstile/constructs/semaphore"
	"github.com/turnstile-sfn/turnstile/emulator"
	"github.com/turnstile-sfn/turnstile/emulator/eventbus"
	"github.com/turnstile-sfn/turnstile/emulator/stack"
	"github.com/turnstile-sfn/turnstile/internal/simulate"
)

// callbackStack is the demo with the Callback strategy (limit 1, work that waits 20 virtual
// minutes, no failures), shared by the callback tests.
var callbackStack struct {
	once sync.Once
	err  error
	st   *stack.Stack
	dir  string
	// dropEvents makes the bus drop every status-change event (the reconciler's schedule
	// still ticks), so only the reconciler frees slots.
	dropEvents atomic.Bool
}

// startCallbackStack synthesizes the Callback demo once and runs it.
func startCallbackStack(t *testing.T) *stack.Stack {
	t.Helper()
	c := &callbackStack
	c.once.Do(func() {
		if c.dir, c.err = os.MkdirTemp("", "turnstile-callback-"); c.err != nil {
			return
		}
		cfg := demo.DefaultConfig()
		cfg.Limit, cfg.WorkDuration, cfg.FailureRate, cfg.WaitStrategy = 1, 20*time.Minute, 0, semaphore.WaitCallback
		if c.err = simulate.Synthesize(c.dir, cfg); c.err != nil {
			return
		}
		policy := eventbus.DeliveryPolicyFunc(func(d eventbus.Delivery) []time.Duration {
			if c.dropEvents.Load() && d.Event.DetailType != eventbus.DetailTypeScheduled {
				return nil
			}
			return []time.Duration{0}
		})
		c.st, c.err = stack.Start(context.Background(), c.dir, stack.Options{
			DynamoDB: database.Local, Held: true, Seed: 11, Handlers: simulate.Handlers(), EventPolicy: policy,
		})
	})
	if c.err != nil {
		t.Fatalf("start the callback stack: %v", c.err)
	}
	return c.st
}

func queued(arns ...string) func(lockView) bool {
	return func(l lockView) bool { return slices.Equal(l.queue, arns) }
}

// TestCallbackCleanupDequeuesAndHandsOff: limit 1; A holds, B and C park in that order. B is
// aborted while parked: its cleanup removes it from the queue and touches no slot. A is aborted
// while it holds: its cleanup hands the slot to C, the oldest waiter left, and wakes it, so C
// runs its work. Every read keeps counter == holders <= 1.
func TestCallbackCleanupDequeuesAndHandsOff(t *testing.T) {
	st := startCallbackStack(t)
	a := startHolder(t, st)
	waitForLock(t, st, "A to hold the slot", heldBy(a))
	b := startHolder(t, st)
	waitForLock(t, st, "B to park", queued(b))
	c := startHolder(t, st)
	waitForLock(t, st, "C to park behind B", queued(b, c))

	stop(t, st, b)
	l := waitForLock(t, st, "the cleanup to take B out of the queue", queued(c))
	if !heldBy(a)(l) {
		t.Fatalf("B's cleanup changed the slot: %+v", l)
	}
	stop(t, st, a)
	waitForLock(t, st, "the cleanup to hand A's slot to C", func(l lockView) bool { return heldBy(c)(l) && len(l.queue) == 0 })
	waitForState(t, st, c, "Run Work")

	stop(t, st, c)
	waitForLock(t, st, "the cleanup to free C's slot", free)
}

// TestCallbackReconcilerSkipsDeadWaiter: with every event lost, A (holding) and B (parked first)
// die; the reconciler hands A's slot on, finds B dead, passes the slot to C and wakes it.
func TestCallbackReconcilerSkipsDeadWaiter(t *testing.T) {
	st := startCallbackStack(t)
	a := startHolder(t, st)
	waitForLock(t, st, "A to hold the slot", heldBy(a))
	b := startHolder(t, st)
	waitForLock(t, st, "B to park", queued(b))
	c := startHolder(t, st)
	waitForLock(t, st, "C to park behind B", queued(b, c))

	callbackStack.dropEvents.Store(true)
	stop(t, st, b)
	stop(t, st, a)
	waitForLock(t, st, "the reconciler to hand the slot to C", func(l lockView) bool { return heldBy(c)(l) && len(l.queue) == 0 })
	waitForState(t, st, c, "Run Work")
	callbackStack.dropEvents.Store(false)

	stop(t, st, c)
	waitForLock(t, st, "the cleanup to free C's slot", free)
}

// waitForState waits, in virtual time, until the execution has entered the named state.
func waitForState(t *testing.T, st *stack.Stack, arn, state string) {
	t.Helper()
	waitVirtual(t, st, fmt.Sprintf("%s to enter %q", arn, state), func() (bool, string) {
		if slices.Contains(enteredStates(t, st, arn), state) {
			return true, ""
		}
		desc, err := st.Emulator.DescribeExecution(context.Background(), arn)
		if err != nil {
			t.Fatal(err)
		}
		if desc.Status != emulator.StatusRunning {
			t.Fatalf("%s never entered %q (status %s)", arn, state, desc.Status)
		}
		return false, fmt.Sprintf("status %s", desc.Status)
	})
}

// waitForEnd waits, in virtual time, until the execution is no longer running and returns its
// description.
func waitForEnd(t *testing.T, st *stack.Stack, arn string) emulator.ExecutionDescription {
	t.Helper()
	var desc emulator.ExecutionDescription
	waitVirtual(t, st, arn+" to end", func() (bool, string) {
		var err error
		if desc, err = st.Emulator.DescribeExecution(context.Background(), arn); err != nil {
			t.Fatal(err)
		}
		return desc.Status != emulator.StatusRunning, fmt.Sprintf("status %s", desc.Status)
	})
	return desc
}
