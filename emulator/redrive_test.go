package emulator

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/emulator/sfnapi"
)

func TestRedriveResumesAtTheFailedState(t *testing.T) {
	ctx := context.Background()
	const (
		prepare = "arn:aws:states:::lambda:invoke:prepare"
		flaky   = "arn:aws:states:::lambda:invoke:flaky"
		finish  = "arn:aws:states:::lambda:invoke:finish"
	)
	fake := newFake().
		handle(prepare, returning(map[string]any{"prepared": true})).
		handle(flaky, failing("Work.Crashed")).
		handle(finish, returning("finished"))
	em := newEmulator(t, 0, fake)
	rec := recordStatus(em)
	first := runMachine(t, em, `{"StartAt":"Prepare","States":{
"Prepare":{"Type":"Task","Resource":"`+prepare+`","ResultPath":"$.prepare","Next":"Flaky"},
"Flaky":{"Type":"Task","Resource":"`+flaky+`","ResultPath":"$.flaky","Next":"Finish"},
"Finish":{"Type":"Task","Resource":"`+finish+`","ResultPath":"$.finish","End":true}}}`, `{"order":7}`)
	if first.Status != StatusFailed || deref(first.Error) != "Work.Crashed" || first.RedriveStatus != RedriveStatusRedrivable {
		t.Fatalf("first run: got %s %s %s, want FAILED Work.Crashed REDRIVABLE", first.Status, deref(first.Error), first.RedriveStatus)
	}
	date, err := em.RedriveExecution(ctx, first.ExecutionArn)
	if err != nil {
		t.Fatal(err)
	}
	done, err := em.Wait(ctx, first.ExecutionArn)
	if err != nil || done.Status != StatusSucceeded {
		t.Fatalf("after the redrive: got %v %s %s", err, done.Status, deref(done.Cause))
	}
	want := `{"order":7,"prepare":{"prepared":true},"flaky":"done","finish":"finished"}`
	if !sameJSON(mustJSON(t, *done.Output), mustJSON(t, want)) {
		t.Errorf("output: got %s, want %s", *done.Output, want)
	}
	calls := []int{fake.count(prepare), fake.count(flaky), fake.count(finish)}
	if !slices.Equal(calls, []int{1, 2, 1}) {
		t.Errorf("invocations of Prepare, Flaky, Finish: got %v, want [1 2 1]", calls)
	}
	if done.RedriveCount != 1 || done.RedriveDate == nil || !done.RedriveDate.Equal(date) {
		t.Errorf("redrive count and date: got %d %v, want 1 %v", done.RedriveCount, done.RedriveDate, date)
	}
	events := history(t, em, first.ExecutionArn)
	i := slices.IndexFunc(events, func(e HistoryEvent) bool { return e.Type == sfnapi.EventExecutionRedriven })
	if i < 0 || events[i-1].Type != sfnapi.EventExecutionFailed || events[i].ExecutionRedrivenEventDetails.RedriveCount != 1 {
		t.Fatalf("history: got %v, want ExecutionFailed then ExecutionRedriven", eventTypes(events))
	}
	if after := enteredStates(events[i:]); !slices.Equal(after, []string{"Flaky", "Finish"}) {
		t.Errorf("states after the redrive: got %v, want [Flaky Finish]", after)
	}
	changes := rec.await(t, 4)
	if c := changes[2]; c.Status != StatusRunning || c.RedriveCount != 1 || c.RedriveDate == nil {
		t.Errorf("third status change: got %+v, want RUNNING with redrive count 1", c)
	}
	if _, err := em.RedriveExecution(ctx, first.ExecutionArn); !errors.Is(err, ErrExecutionNotRedrivable) {
		t.Errorf("redriving a SUCCEEDED execution: got %v, want ExecutionNotRedrivable", err)
	}
}

func TestRedriveParallelAndMapRerunOnlyWhatFailed(t *testing.T) {
	ctx := context.Background()
	const (
		steady = "arn:aws:states:::lambda:invoke:steady"
		flaky  = "arn:aws:states:::lambda:invoke:flaky"
	)
	tests := []struct {
		name       string
		definition string
		input      string
		steady     string // the state that must complete before flaky fails
		want       string
		wantCalls  []int // steady, flaky
	}{
		{
			name: "Parallel",
			definition: `{"StartAt":"Both","States":{"Both":{"Type":"Parallel","End":true,"Branches":[
{"StartAt":"A","States":{"A":{"Type":"Task","Resource":"` + steady + `","End":true}}},
{"StartAt":"B","States":{"B":{"Type":"Task","Resource":"` + flaky + `","End":true}}}]}}}`,
			input:     `{}`,
			steady:    "A",
			want:      `["steady","done"]`,
			wantCalls: []int{1, 2},
		},
		{
			name: "Map",
			definition: `{"StartAt":"Each","States":{"Each":{"Type":"Map","MaxConcurrency":1,"End":true,"ItemProcessor":{"StartAt":"Pick","States":{
"Pick":{"Type":"Choice","Choices":[{"Variable":"$","NumericEquals":2,"Next":"Flaky"}],"Default":"Steady"},
"Steady":{"Type":"Task","Resource":"` + steady + `","End":true},
"Flaky":{"Type":"Task","Resource":"` + flaky + `","End":true}}}}}}`,
			input:     `[1,2,3]`,
			steady:    "Steady",
			want:      `["steady","done","steady"]`,
			wantCalls: []int{2, 2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			em := newEmulator(t, 0)
			fail := failing("Boom")
			fake := newFake().handle(steady, returning("steady")).handle(flaky, func(ctx context.Context, call *TaskCall) (any, error) {
				// Fail only once the steady branches have completed, as a slower job would.
				waitForExit(t, em, call.ExecutionArn, tt.steady)
				return fail(ctx, call)
			})
			em.RegisterIntegration(fake)
			first := runMachine(t, em, tt.definition, tt.input)
			if first.Status != StatusFailed {
				t.Fatalf("first run: got %s, want FAILED", first.Status)
			}
			if _, err := em.RedriveExecution(ctx, first.ExecutionArn); err != nil {
				t.Fatal(err)
			}
			done, _ := em.Wait(ctx, first.ExecutionArn)
			if done.Status != StatusSucceeded || !sameJSON(mustJSON(t, deref(done.Output)), mustJSON(t, tt.want)) {
				t.Fatalf("after the redrive: got %s %s (%s), want %s", done.Status, deref(done.Output), deref(done.Cause), tt.want)
			}
			if calls := []int{fake.count(steady), fake.count(flaky)}; !slices.Equal(calls, tt.wantCalls) {
				t.Errorf("invocations (steady, flaky): got %v, want %v", calls, tt.wantCalls)
			}
		})
	}
}

// waitForExit waits until the history shows that the named state has exited.
func waitForExit(t *testing.T, em *Emulator, executionArn, name string) {
	for range 10000 {
		if slices.ContainsFunc(history(t, em, executionArn), func(e HistoryEvent) bool {
			return e.StateExitedEventDetails != nil && e.StateExitedEventDetails.Name == name
		}) {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Errorf("the state %s never completed", name)
}

func TestRedriveAbortedAndTimedOut(t *testing.T) {
	ctx := context.Background()
	t.Run("an aborted execution resumes at the waiting task", func(t *testing.T) {
		fake, tokens := tokenQueue()
		em := newEmulator(t, 0, fake)
		started, err := em.StartExecution(ctx, create(t, em, waitingMachine), "", `{"job":1}`)
		if err != nil {
			t.Fatal(err)
		}
		<-tokens
		if _, err := em.StopExecution(ctx, started.ExecutionArn, "", ""); err != nil {
			t.Fatal(err)
		}
		if _, err := em.RedriveExecution(ctx, started.ExecutionArn); err != nil {
			t.Fatal(err)
		}
		if err := em.SendTaskSuccess(ctx, <-tokens, `"approved"`); err != nil {
			t.Fatal(err)
		}
		done, _ := em.Wait(ctx, started.ExecutionArn)
		if done.Status != StatusSucceeded || deref(done.Output) != `"approved"` || fake.count(sendMessage) != 2 {
			t.Fatalf("got %s %s after %d sends, want SUCCEEDED \"approved\" after 2", done.Status, deref(done.Output), fake.count(sendMessage))
		}
	})
	t.Run("a timed-out execution resumes at the waiting state", func(t *testing.T) {
		em := newEmulator(t, 0)
		first := runMachine(t, em, `{"StartAt":"Short","TimeoutSeconds":60,"States":{"Short":{"Type":"Wait","Seconds":10,"Next":"Long"},
"Long":{"Type":"Wait","Seconds":50,"Next":"Done"},"Done":{"Type":"Pass","End":true}}}`, `{}`)
		if first.Status != StatusTimedOut {
			t.Fatalf("first run: got %s, want TIMED_OUT", first.Status)
		}
		if _, err := em.RedriveExecution(ctx, first.ExecutionArn); err != nil {
			t.Fatal(err)
		}
		done, _ := em.Wait(ctx, first.ExecutionArn)
		events := history(t, em, first.ExecutionArn)
		i := slices.IndexFunc(events, func(e HistoryEvent) bool { return e.Type == sfnapi.EventExecutionRedriven })
		if done.Status != StatusSucceeded || !slices.Equal(enteredStates(events[i:]), []string{"Long", "Done"}) {
			t.Fatalf("got %s through %v, want SUCCEEDED through [Long Done]", done.Status, enteredStates(events[i:]))
		}
	})
}

func TestRedriveWindow(t *testing.T) {
	// At this scale a real millisecond is more than eleven virtual days.
	em := New(Options{Clock: NewScaledClock(testStart, 1e-9)})
	t.Cleanup(func() { _ = em.Close() })
	done := runMachine(t, em, `{"StartAt":"F","States":{"F":{"Type":"Fail","Error":"E"}}}`, `{}`)
	time.Sleep(5 * time.Millisecond) // more than 57 virtual days
	d, err := em.DescribeExecution(context.Background(), done.ExecutionArn)
	if err != nil || d.RedriveStatus != RedriveStatusNotRedrivable || d.RedriveStatusReason != "Execution stopped more than 14 days ago" {
		t.Errorf("got %v %s %q, want NOT_REDRIVABLE after 14 days", err, d.RedriveStatus, d.RedriveStatusReason)
	}
	if _, err := em.RedriveExecution(context.Background(), done.ExecutionArn); !errors.Is(err, ErrExecutionNotRedrivable) {
		t.Errorf("redriving after 14 days: got %v, want ExecutionNotRedrivable", err)
	}
}
