package emulator

import (
	"os"
	"testing"

	"github.com/turnstile-sfn/turnstile/emulator/sfnapi"
)

// eventByState returns the first event of a type for a state name ("" for events without one)
// after the event with id after.
func eventByState(t *testing.T, events []HistoryEvent, typ sfnapi.HistoryEventType, name string, after int64) HistoryEvent {
	t.Helper()
	for _, e := range events {
		if e.ID <= after || e.Type != typ {
			continue
		}
		got := ""
		switch {
		case e.StateEnteredEventDetails != nil:
			got = e.StateEnteredEventDetails.Name
		case e.StateExitedEventDetails != nil:
			got = e.StateExitedEventDetails.Name
		}
		if got == name {
			return e
		}
	}
	t.Fatalf("no %s event for %q after #%d", typ, name, after)
	return HistoryEvent{}
}

// TestParallelHistoryAsRecorded runs the recorded case scenarios--parallel-state-parallel-state
// (LocalStack's test_parallel_state) and checks the ids AWS gave its events: 12 branch events
// #6-#17, each of the three branches' chains starting after ParallelStateStarted #5, then #18 (the
// ParallelStateSucceeded the recording tool dropped, after #17), ParallelStateExited #19 after
// #17 and ExecutionSucceeded #20 after #19.
func TestParallelHistoryAsRecorded(t *testing.T) {
	file := conformanceDir + "/scenarios/scenarios--parallel-state-parallel-state.json"
	if _, err := os.Stat(file); err != nil {
		t.Skipf("recorded case not found: %v", err)
	}
	c := loadCase(t, file)
	em := newEmulator(t, 0)
	d := runMachine(t, em, string(c.Definition), string(c.Input))
	events := history(t, em, d.ExecutionArn)
	if len(events) != 20 {
		t.Fatalf("got %d events, want 20: %v", len(events), eventTypes(events))
	}
	for _, first := range []string{"Branch1", "Branch21", "Branch31"} { // the branches' StartAt
		if e := eventByState(t, events, sfnapi.EventPassStateEntered, first, 5); e.PreviousEventID != 5 {
			t.Errorf("#%d %s %s: previous #%d, want #5 (ParallelStateStarted)", e.ID, e.Type, first, e.PreviousEventID)
		}
	}
	want := []struct {
		typ  sfnapi.HistoryEventType
		prev int64
	}{{sfnapi.EventParallelStateSucceeded, 17}, {sfnapi.EventParallelStateExited, 17}, {sfnapi.EventExecutionSucceeded, 19}}
	for i, w := range want {
		if e := events[17+i]; e.Type != w.typ || e.PreviousEventID != w.prev {
			t.Errorf("#%d: got %s after #%d, want %s after #%d", e.ID, e.Type, e.PreviousEventID, w.typ, w.prev)
		}
	}
}

// TestNestedParallelHistory checks a Parallel inside a Parallel: every branch keeps its own
// chain of previous event ids, so the inner Parallel's ParallelStateSucceeded and
// ParallelStateExited follow the inner branch's last event, whatever the sibling branch of the
// outer Parallel records meanwhile, and the outer ones follow the last event of its branches.
func TestNestedParallelHistory(t *testing.T) {
	em := newEmulator(t, 0)
	const definition = `{"StartAt":"Outer","States":{"Outer":{"Type":"Parallel","End":true,"Branches":[
		{"StartAt":"Inner","States":{"Inner":{"Type":"Parallel","End":true,"Branches":[
			{"StartAt":"A","States":{"A":{"Type":"Wait","Seconds":5,"Next":"A2"},"A2":{"Type":"Pass","End":true}}}]}}},
		{"StartAt":"B","States":{"B":{"Type":"Pass","Next":"B2"},"B2":{"Type":"Wait","Seconds":10,"End":true}}}]}}}`
	for range 20 {
		d := runMachine(t, em, definition, `{}`)
		events := history(t, em, d.ExecutionArn)
		outerStarted := eventByState(t, events, sfnapi.EventParallelStateStarted, "", 2)
		innerEntered := eventByState(t, events, sfnapi.EventParallelStateEntered, "Inner", 0)
		innerStarted := eventByState(t, events, sfnapi.EventParallelStateStarted, "", innerEntered.ID)
		a2Exited := eventByState(t, events, sfnapi.EventPassStateExited, "A2", 0)
		innerSucceeded := eventByState(t, events, sfnapi.EventParallelStateSucceeded, "", innerStarted.ID)
		innerExited := eventByState(t, events, sfnapi.EventParallelStateExited, "Inner", 0)
		bEntered := eventByState(t, events, sfnapi.EventPassStateEntered, "B", 0)
		b2Exited := eventByState(t, events, sfnapi.EventWaitStateExited, "B2", 0)
		outerExited := eventByState(t, events, sfnapi.EventParallelStateExited, "Outer", 0)
		outerSucceeded := events[outerExited.ID-2]
		checks := []struct {
			what      string
			got, want int64
		}{
			{"inner ParallelStateEntered follows the outer ParallelStateStarted", innerEntered.PreviousEventID, outerStarted.ID},
			{"B follows the outer ParallelStateStarted", bEntered.PreviousEventID, outerStarted.ID},
			{"inner ParallelStateSucceeded follows A2's exit", innerSucceeded.PreviousEventID, a2Exited.ID},
			{"inner ParallelStateExited follows A2's exit", innerExited.PreviousEventID, a2Exited.ID},
			{"outer ParallelStateSucceeded follows the later branch end", outerSucceeded.PreviousEventID, max(innerExited.ID, b2Exited.ID)},
			{"outer ParallelStateExited follows the later branch end", outerExited.PreviousEventID, max(innerExited.ID, b2Exited.ID)},
			{"ExecutionSucceeded follows the outer exit", events[len(events)-1].PreviousEventID, outerExited.ID},
		}
		if outerSucceeded.Type != sfnapi.EventParallelStateSucceeded {
			t.Fatalf("#%d before the outer exit is %s, want ParallelStateSucceeded", outerSucceeded.ID, outerSucceeded.Type)
		}
		for _, c := range checks {
			if c.got != c.want {
				t.Fatalf("%s: got previous #%d, want #%d\n%v", c.what, c.got, c.want, eventTypes(events))
			}
		}
	}
}
