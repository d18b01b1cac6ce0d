package emulator

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/turnstile-sfn/turnstile/emulator/sfnapi"
)

// TestCrashAfterState: CrashAfter kills the execution after "Acquire" exits and before "Work"
// is entered: it ends ABORTED with ErrorCrash, its ABORTED status change goes out, and a
// redrive resumes it at "Work".
func TestCrashAfterState(t *testing.T) {
	var crashes atomic.Int32
	em := New(Options{Clock: NewScaledClock(testStart, 0), Seed: 42, CrashAfter: func(_, state string) bool {
		return state == "Acquire" && crashes.Add(1) == 1
	}})
	t.Cleanup(func() { _ = em.Close() })
	rec := recordStatus(em)
	first := runMachine(t, em, `{"StartAt":"Acquire","States":{
"Acquire":{"Type":"Pass","Result":"held","ResultPath":"$.slot","Next":"Work"},
"Work":{"Type":"Pass","End":true}}}`, `{}`)
	if first.Status != StatusAborted || deref(first.Error) != ErrorCrash {
		t.Fatalf("got %s %s, want ABORTED %s", first.Status, deref(first.Error), ErrorCrash)
	}
	events := history(t, em, first.ExecutionArn)
	if got := enteredStates(events); !slices.Equal(got, []string{"Acquire"}) {
		t.Errorf("states entered: %v, want [Acquire] only", got)
	}
	if last := events[len(events)-2]; last.Type != sfnapi.EventPassStateExited {
		t.Errorf("the event before the abort is %s, want the Acquire's exit", last.Type)
	}
	if changes := rec.await(t, 2); changes[1].Status != StatusAborted {
		t.Errorf("status changes %+v, want RUNNING then ABORTED", changes)
	}
	if _, err := em.RedriveExecution(context.Background(), first.ExecutionArn); err != nil {
		t.Fatal(err)
	}
	done, err := em.Wait(context.Background(), first.ExecutionArn)
	if err != nil || done.Status != StatusSucceeded || !sameJSON(mustJSON(t, *done.Output), mustJSON(t, `{"slot":"held"}`)) {
		t.Fatalf("after the redrive: %v %s %v", err, done.Status, done.Output)
	}
	if after := enteredStates(history(t, em, first.ExecutionArn)); !slices.Equal(after, []string{"Acquire", "Work"}) {
		t.Errorf("states entered in all: %v, want [Acquire Work]", after)
	}
}
