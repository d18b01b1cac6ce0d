package test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/cmd/app/demo"
	"github.com/turnstile-sfn/turnstile/emulator"
	"github.com/turnstile-sfn/turnstile/emulator/ddblocal/ddblocaltest"
	"github.com/turnstile-sfn/turnstile/emulator/eventbus"
	"github.com/turnstile-sfn/turnstile/emulator/stack"
	"github.com/turnstile-sfn/turnstile/internal/simulate"
	"github.com/turnstile-sfn/turnstile/lock"
)

// eventFault is what the cleanup stack's bus does to ABORTED status changes.
type eventFault int32

const (
	deliverEvents eventFault = iota
	dropAborted
	duplicateAborted
)

// cleanupStack is one demo stack (limit 1, work that waits 20 virtual minutes, no failures)
// shared by the cleanup tests, which run one after the other and leave the lock free.
var cleanupStack struct {
	once  sync.Once
	err   error
	st    *stack.Stack
	dir   string
	fault atomic.Int32
	// work records the dowork invocations that passed the slot check.
	work *workRecord
	// crashNext makes the next execution that takes a slot (leaves Acquire Slot, or Wait In
	// Queue under Callback) crash there.
	crashNext atomic.Bool
}

// The end-to-end tests run their stacks on the skipping clock (stack.Options.TimeScale 0), so
// that a loaded machine cannot fail them: each shared stack starts with its clock held
// (stack.Options.Held) and the tests, which run one after the other, own that hold. Virtual
// time stands still while a test acts on running executions and reads their state, and moves
// only while the test sleeps on the clock between two reads (waitVirtual), pollStep at a time.
const (
	// pollStep is the virtual time a waiting test lets pass between two reads.
	pollStep = time.Second
	// waitBound is the virtual time a test waits for a condition before it fails: twenty runs of
	// the reconciler's default schedule.
	waitBound = 100 * time.Minute
)

// waitVirtual lets the stack's virtual time run, pollStep at a time, until done reports true;
// done's string describes the state for the failure message when waitBound passes first. The
// caller owns the clock's hold (see pollStep).
func waitVirtual(t *testing.T, st *stack.Stack, what string, done func() (bool, string)) {
	t.Helper()
	clock := st.Clock()
	deadline := clock.Now().Add(waitBound)
	for {
		ok, state := done()
		if ok {
			return
		}
		if clock.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s after %s of virtual time; %s", what, waitBound, state)
		}
		if err := clock.Sleep(context.Background(), pollStep); err != nil {
			t.Fatalf("sleep on the stack's clock: %v", err)
		}
	}
}

// closeHeld gives back the hold the tests own on a shared stack's clock, so that what still
// runs can end, closes the stack and removes its assembly.
func closeHeld(st *stack.Stack, dir string) {
	if st != nil {
		st.ReleaseHold()
		_ = st.Close()
	}
	if dir != "" {
		_ = os.RemoveAll(dir)
	}
}

// startCleanupStack synthesizes the demo once and runs it; the bus applies cleanupStack.fault.
func startCleanupStack(t *testing.T) *stack.Stack {
	t.Helper()
	c := &cleanupStack
	c.once.Do(func() {
		if c.dir, c.err = os.MkdirTemp("", "turnstile-cleanup-"); c.err != nil {
			return
		}
		cfg := demo.DefaultConfig()
		cfg.Limit, cfg.WorkDuration, cfg.FailureRate = 1, 20*time.Minute, 0
		if c.err = simulate.Synthesize(c.dir, cfg); c.err != nil {
			return
		}
		policy := eventbus.DeliveryPolicyFunc(func(d eventbus.Delivery) []time.Duration {
			var detail struct{ Status string }
			_ = json.Unmarshal(d.Event.Detail, &detail)
			if detail.Status != eventbus.StatusAborted {
				return []time.Duration{0}
			}
			switch eventFault(c.fault.Load()) {
			case dropAborted:
				return nil
			case duplicateAborted:
				return []time.Duration{0, time.Second, 3 * time.Second}
			}
			return []time.Duration{0}
		})
		c.work = newWorkRecord()
		crash := func(_, state string) bool {
			return (state == machines.StateAcquireSlot || state == machines.StateWaitInQueue) && c.crashNext.CompareAndSwap(true, false)
		}
		c.st, c.err = stack.Start(context.Background(), c.dir, stack.Options{
			DynamoDB: database.Local, Held: true, Seed: 3, Handlers: c.work.handlers(), EventPolicy: policy, CrashAfter: crash,
		})
	})
	if c.err != nil {
		t.Fatalf("start the cleanup stack: %v", c.err)
	}
	return c.st
}

// database is the DynamoDB Local of the package's stacks: one JVM for the test binary instead of
// one per stack. Each stack keeps its tables in a database of its own on it.
var database ddblocaltest.Server

// TestMain starts the package's DynamoDB Local, runs the tests, closes the shared stacks, and
// stops the server.
func TestMain(m *testing.M) { os.Exit(ddblocaltest.Main(closingSharedStacks{m}, &database)) }

// closingSharedStacks runs the tests, then closes the stacks they share.
type closingSharedStacks struct{ m *testing.M }

// Run runs the tests and closes the shared stacks.
func (c closingSharedStacks) Run() int {
	code := c.m.Run()
	closeHeld(timedStack.st, timedStack.dir)
	closeHeld(callbackStack.st, callbackStack.dir)
	closeHeld(cleanupStack.st, cleanupStack.dir)
	return code
}

// lockView is the lock as read: its counter, its holders and its wait queue.
type lockView struct {
	count   int
	holders []string
	queue   []string
}

// readLock reads the demo lock, strongly consistent.
func readLock(t *testing.T, st *stack.Stack) lockView {
	t.Helper()
	ctx := context.Background()
	ddb, err := st.DynamoDBClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var table string
	for _, tb := range st.Template.Tables {
		table = tb.Name
	}
	locks, err := lock.New(table, ddb, nil)
	if err != nil {
		t.Fatal(err)
	}
	state, err := locks.Read(ctx, demo.DefaultLockName)
	if err != nil {
		t.Fatalf("read the lock: %v", err)
	}
	l := lockView{count: state.Count}
	for _, h := range state.Holders {
		l.holders = append(l.holders, h.Execution)
	}
	for _, w := range state.Waiters {
		l.queue = append(l.queue, w.Execution)
	}
	return l
}

// waitForLock reads the lock every pollStep of virtual time until done says so, checking the
// invariant (counter == holders <= 1) at every read; it fails the test after waitBound.
func waitForLock(t *testing.T, st *stack.Stack, what string, done func(lockView) bool) lockView {
	t.Helper()
	var l lockView
	waitVirtual(t, st, what, func() (bool, string) {
		l = readLock(t, st)
		if l.count != len(l.holders) || l.count > 1 {
			t.Fatalf("invariant broken while waiting for %s: counter %d, holders %v (limit 1)", what, l.count, l.holders)
		}
		return done(l), fmt.Sprintf("lock: %+v", l)
	})
	return l
}

func heldBy(arn string) func(lockView) bool {
	return func(l lockView) bool { return len(l.holders) == 1 && l.holders[0] == arn }
}

func free(l lockView) bool { return l.count == 0 && len(l.holders) == 0 }

// startHolder starts an execution of the semaphore and waits until it holds the slot.
func startHolder(t *testing.T, st *stack.Stack) string {
	t.Helper()
	var arn string
	for _, sm := range st.Template.StateMachines {
		if strings.HasPrefix(sm.LogicalID, demo.SemaphoreID+"StateMachine") {
			arn = sm.ARN
		}
	}
	started, err := st.Emulator.StartExecution(context.Background(), arn, "", `{}`)
	if err != nil {
		t.Fatalf("StartExecution: %v", err)
	}
	return started.ExecutionArn
}

func stop(t *testing.T, st *stack.Stack, arn string) {
	t.Helper()
	if _, err := st.Emulator.StopExecution(context.Background(), arn, "Test.Abort", "aborted inside the work"); err != nil {
		t.Fatalf("StopExecution: %v", err)
	}
}

// abortedAndFreed starts an execution, waits until it holds the slot, aborts it, waits for the
// cleanup to give the slot back, and returns the execution's ARN.
func abortedAndFreed(t *testing.T, st *stack.Stack) string {
	t.Helper()
	a := startHolder(t, st)
	waitForLock(t, st, "A to hold the slot", heldBy(a))
	stop(t, st, a)
	waitForLock(t, st, "the cleanup to free A's slot", free)
	return a
}

// TestAbortedHolderIsReleasedByCleanup: an execution aborted while it holds the slot has its
// slot back after its ABORTED event.
func TestAbortedHolderIsReleasedByCleanup(t *testing.T) {
	st := startCleanupStack(t)
	cleanupStack.fault.Store(int32(deliverEvents))
	abortedAndFreed(t, st)
}

// TestLostEventIsReleasedByReconciler: with the bus dropping the ABORTED event, the scheduled
// reconciler frees the slot on its next run.
func TestLostEventIsReleasedByReconciler(t *testing.T) {
	st := startCleanupStack(t)
	cleanupStack.fault.Store(int32(dropAborted))
	defer cleanupStack.fault.Store(int32(deliverEvents))
	a := startHolder(t, st)
	waitForLock(t, st, "A to hold the slot", heldBy(a))
	stop(t, st, a)
	waitForLock(t, st, "the reconciler to free A's slot", free)
}

// TestDuplicatedEventsReleaseNothingWrongly: three copies of A's ABORTED event, the later ones
// arriving while B holds the slot, release A once and never B; the counter equals the holders
// at every read.
func TestDuplicatedEventsReleaseNothingWrongly(t *testing.T) {
	st := startCleanupStack(t)
	cleanupStack.fault.Store(int32(duplicateAborted))
	defer cleanupStack.fault.Store(int32(deliverEvents))
	a := startHolder(t, st)
	waitForLock(t, st, "A to hold the slot", heldBy(a))
	b := startHolder(t, st) // waits for the slot
	stop(t, st, a)
	waitForLock(t, st, "B to take A's freed slot", heldBy(b))
	// The late copies arrive up to 3 virtual seconds later; watch past them.
	until := st.Emulator.Clock().Now().Add(10 * time.Second)
	waitForLock(t, st, "the late duplicates to pass", func(l lockView) bool {
		if !heldBy(b)(l) {
			t.Fatalf("a duplicated event changed B's slot: %+v", l)
		}
		return st.Emulator.Clock().Now().After(until)
	})
	stop(t, st, b)
	waitForLock(t, st, "the cleanup to free B's slot", free)
}

// TestRedriveAfterCleanupNeverAdmitsTwo: limit 1; A holds and is aborted inside the work, the
// cleanup frees its slot, B takes it, A is redriven. The redrive resumes A at its work task:
// the work's slot check refuses it (Turnstile.NotHolder), or the redrive guard stops A first
// (Turnstile.RedriveWithoutSlot); either way A's work never starts again while B works, and A
// never holds a slot beside B. (A's first invocation, orphaned by the abort, runs on as it does
// on AWS, where StopExecution does not stop a running Lambda invocation.)
func TestRedriveAfterCleanupNeverAdmitsTwo(t *testing.T) {
	st := startCleanupStack(t)
	cleanupStack.fault.Store(int32(deliverEvents))
	ctx := context.Background()
	a := abortedAndFreed(t, st)
	aStarts := cleanupStack.work.startedBy(a)
	b := startHolder(t, st)
	waitForLock(t, st, "B to hold the slot", heldBy(b))
	waitForLock(t, st, "B to be working", func(lockView) bool { return cleanupStack.work.startedBy(b) == 1 })
	if _, err := st.Emulator.RedriveExecution(ctx, a); err != nil {
		t.Fatalf("RedriveExecution: %v", err)
	}
	var desc emulator.ExecutionDescription
	waitForLock(t, st, "the guard to stop A", func(l lockView) bool {
		if !heldBy(b)(l) {
			t.Fatalf("the redriven A changed the lock held by B: %+v", l)
		}
		var err error
		if desc, err = st.Emulator.DescribeExecution(ctx, a); err != nil {
			t.Fatal(err)
		}
		return desc.Status != emulator.StatusRunning
	})
	refused := desc.Status == emulator.StatusFailed && desc.Error != nil && *desc.Error == machines.ErrorNotHolder
	stopped := desc.Status == emulator.StatusAborted && desc.Error != nil && *desc.Error == machines.ErrorRedriveWithoutSlot
	if !refused && !stopped {
		t.Errorf("A after the redrive: status %s, error %v; want FAILED with %s or ABORTED with %s",
			desc.Status, deref(desc.Error), machines.ErrorNotHolder, machines.ErrorRedriveWithoutSlot)
	}
	if n := cleanupStack.work.startedBy(a); n != aStarts {
		t.Errorf("A's work started %d times after its redrive; the slot check must refuse it", n-aStarts)
	}

	if desc.RedriveCount != 1 {
		t.Errorf("A's redrive count = %d, want 1", desc.RedriveCount)
	}
	// A's second ABORTED event reaches the cleanup too: it must not free B's slot.
	until := st.Emulator.Clock().Now().Add(10 * time.Second)
	waitForLock(t, st, "A's second cleanup to pass", func(l lockView) bool {
		if !heldBy(b)(l) {
			t.Fatalf("A's second cleanup changed B's slot: %+v", l)
		}
		return st.Emulator.Clock().Now().After(until)
	})
	stop(t, st, b)
	waitForLock(t, st, "the cleanup to free B's slot", free)
}

// deref renders an optional string.
func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// TestCrashAfterAcquireIsReleased: an execution that dies right after its acquire, before the
// next state, has its slot back: from its ABORTED event's cleanup, and with that event lost,
// from the reconciler.
func TestCrashAfterAcquireIsReleased(t *testing.T) {
	st := startCleanupStack(t)
	for _, fault := range []eventFault{deliverEvents, dropAborted} {
		cleanupStack.fault.Store(int32(fault))
		cleanupStack.crashNext.Store(true)
		a := startHolder(t, st)
		waitForLock(t, st, "the crashed A's slot to come back", func(l lockView) bool {
			d, err := st.Emulator.DescribeExecution(context.Background(), a)
			if err != nil {
				t.Fatal(err)
			}
			return d.Status != emulator.StatusRunning && free(l)
		})
		d, err := st.Emulator.DescribeExecution(context.Background(), a)
		if err != nil || d.Status != emulator.StatusAborted || deref(d.Error) != emulator.ErrorCrash {
			t.Errorf("fault %d: A ended %s %s (%v), want ABORTED %s", fault, d.Status, deref(d.Error), err, emulator.ErrorCrash)
		}
		if got := enteredStates(t, st, a); slices.Contains(got, machines.StateRunWork) {
			t.Errorf("fault %d: the crashed A entered %v", fault, got)
		}
	}
	cleanupStack.fault.Store(int32(deliverEvents))
}
