package emulator

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/emulator/sfnapi"
)

const passMachine = `{"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}}`

// waitingMachine waits for a task token until stopped.
const waitingMachine = `{"StartAt":"Hold","States":{"Hold":{"Type":"Task","Resource":"` + sendMessage + `.waitForTaskToken",
"Parameters":{"MessageBody":{"TaskToken.$":"$$.Task.Token"}},"End":true}}}`

// statusRecorder collects status changes.
type statusRecorder struct {
	mu      sync.Mutex
	changes []StatusChange
	seen    chan struct{}
}

func recordStatus(em *Emulator) *statusRecorder {
	r := &statusRecorder{seen: make(chan struct{}, 100)}
	em.OnStatusChange(func(c StatusChange) {
		r.mu.Lock()
		r.changes = append(r.changes, c)
		r.mu.Unlock()
		r.seen <- struct{}{}
	})
	return r
}

// await returns the first n changes, waiting for them.
func (r *statusRecorder) await(t *testing.T, n int) []StatusChange {
	t.Helper()
	for {
		r.mu.Lock()
		if len(r.changes) >= n {
			out := append([]StatusChange(nil), r.changes[:n]...)
			r.mu.Unlock()
			return out
		}
		r.mu.Unlock()
		select {
		case <-r.seen:
		case <-time.After(30 * time.Second):
			t.Fatalf("got fewer than %d status changes", n)
		}
	}
}

func TestStartExecutionNames(t *testing.T) {
	ctx := context.Background()
	fake, _ := tokenQueue()
	em := newEmulator(t, 0, fake)
	arn := create(t, em, waitingMachine)
	first, err := em.StartExecution(ctx, arn, "order-1", `{"n":1}`)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, execName, input string
		want                  error
	}{
		{"same name and input while running returns it again", "order-1", `{"n":1}`, nil},
		{"same name with another input", "order-1", `{"n":2}`, ErrExecutionAlreadyExists},
		{"invalid name", "bad name", `{}`, ErrInvalidName},
		{"input that is not JSON", "order-2", `{"n":`, ErrInvalidExecutionInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := em.StartExecution(ctx, arn, tt.execName, tt.input)
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
			if tt.want == nil && got != first {
				t.Errorf("got %+v, want the first start %+v", got, first)
			}
		})
	}
	if _, err := em.StopExecution(ctx, first.ExecutionArn, "", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := em.StartExecution(ctx, arn, "order-1", `{"n":1}`); !errors.Is(err, ErrExecutionAlreadyExists) {
		t.Errorf("restarting a closed execution's name: got %v, want ExecutionAlreadyExists", err)
	}
	if _, err := em.StartExecution(ctx, arn+"-missing", "", `{}`); !errors.Is(err, ErrStateMachineDoesNotExist) {
		t.Errorf("unknown machine: got %v, want StateMachineDoesNotExist", err)
	}
	if _, err := em.DescribeExecution(ctx, first.ExecutionArn+"-missing"); !errors.Is(err, ErrExecutionDoesNotExist) {
		t.Errorf("unknown execution: got %v, want ExecutionDoesNotExist", err)
	}
}

func TestStopExecution(t *testing.T) {
	ctx := context.Background()
	fake, tokens := tokenQueue()
	em := newEmulator(t, 0, fake)
	rec := recordStatus(em)
	started, err := em.StartExecution(ctx, create(t, em, waitingMachine), "", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	token := <-tokens
	if _, err := em.StopExecution(ctx, started.ExecutionArn, "Operator.Stop", "maintenance"); err != nil {
		t.Fatal(err)
	}
	d, err := em.DescribeExecution(ctx, started.ExecutionArn)
	if err != nil || d.Status != StatusAborted || deref(d.Error) != "Operator.Stop" || deref(d.Cause) != "maintenance" || d.StopDate == nil {
		t.Fatalf("got %v %+v, want ABORTED with the error, cause and a stop date", err, d)
	}
	if d.RedriveStatus != RedriveStatusRedrivable {
		t.Errorf("redrive status: got %s, want REDRIVABLE", d.RedriveStatus)
	}
	events := history(t, em, started.ExecutionArn)
	if last := events[len(events)-1]; last.Type != sfnapi.EventExecutionAborted || last.ExecutionAbortedEventDetails.Cause != "maintenance" {
		t.Errorf("last event: got %s, want ExecutionAborted with the cause", last.Type)
	}
	if err := em.SendTaskSuccess(ctx, token, `{}`); !errors.Is(err, ErrTaskTimedOut) {
		t.Errorf("SendTaskSuccess after the stop: got %v, want TaskTimedOut", err)
	}
	changes := rec.await(t, 2)
	if changes[0].Status != StatusRunning || changes[1].Status != StatusAborted || deref(changes[1].Error) != "Operator.Stop" || changes[1].StopDate == nil {
		t.Errorf("status changes: got %+v, want RUNNING then ABORTED with the error", changes)
	}
}

func TestStatusChanges(t *testing.T) {
	em := newEmulator(t, 0)
	rec := recordStatus(em)
	ok := execute(t, em, create(t, em, passMachine), `{"in":1}`)
	failed := execute(t, em, create(t, em, `{"StartAt":"F","States":{"F":{"Type":"Fail","Error":"Boom","Cause":"it broke"}}}`), `{}`)
	changes := rec.await(t, 4)
	type summary struct {
		arn    string
		status ExecutionStatus
		output string
		err    string
	}
	var got []summary
	for _, c := range changes {
		got = append(got, summary{c.ExecutionArn, c.Status, deref(c.Output), deref(c.Error)})
	}
	want := []summary{
		{ok.ExecutionArn, StatusRunning, "<nil>", "<nil>"},
		{ok.ExecutionArn, StatusSucceeded, `{"in":1}`, "<nil>"},
		{failed.ExecutionArn, StatusRunning, "<nil>", "<nil>"},
		{failed.ExecutionArn, StatusFailed, "<nil>", "Boom"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if c := changes[1]; c.Input != `{"in":1}` || c.StateMachineArn == "" || c.Name != ok.Name || c.StopDate == nil ||
		c.RedriveStatus != RedriveStatusNotRedrivable {
		t.Errorf("SUCCEEDED change: got %+v", c)
	}
}

func TestListExecutions(t *testing.T) {
	ctx := context.Background()
	em := newEmulator(t, 0)
	okArn := create(t, em, passMachine)
	var want []string
	for range 5 {
		want = append(want, execute(t, em, okArn, `{}`).ExecutionArn)
	}
	failArn := create(t, em, `{"StartAt":"F","States":{"F":{"Type":"Fail","Error":"E"}}}`)
	failed := execute(t, em, failArn, `{}`)

	var got []string
	token := ""
	for {
		page, next, err := em.ListExecutions(ctx, ListExecutionsInput{StateMachineArn: okArn, MaxResults: 2, NextToken: token})
		if err != nil {
			t.Fatal(err)
		}
		for _, item := range page {
			got = append(got, item.ExecutionArn)
		}
		if token = next; token == "" {
			break
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("paged listing: got %v, want %v", got, want)
	}
	items, _, err := em.ListExecutions(ctx, ListExecutionsInput{StateMachineArn: failArn, StatusFilter: StatusFailed})
	if err != nil || len(items) != 1 || items[0].ExecutionArn != failed.ExecutionArn {
		t.Errorf("FAILED filter: got %v %+v, want only %s", err, items, failed.ExecutionArn)
	}
	items, _, _ = em.ListExecutions(ctx, ListExecutionsInput{StateMachineArn: failArn, StatusFilter: StatusSucceeded})
	if len(items) != 0 {
		t.Errorf("SUCCEEDED filter: got %+v, want none", items)
	}
}

func TestHistoryEvents(t *testing.T) {
	const invoke = "arn:aws:states:::lambda:invoke"
	const function = "arn:aws:lambda:us-east-1:123456789012:function:Work"
	em := newEmulator(t, 0, newFake().handle(invoke, returning(map[string]any{"Payload": "ok"})).handle(function, returning("ok")))
	done := runMachine(t, em, `{"StartAt":"Optimized","States":{
"Optimized":{"Type":"Task","Resource":"`+invoke+`","Parameters":{"FunctionName":"Work"},"TimeoutSeconds":30,"Next":"Legacy"},
"Legacy":{"Type":"Task","Resource":"`+function+`","End":true}}}`, `{"k":"v"}`)
	events := history(t, em, done.ExecutionArn)
	want := []sfnapi.HistoryEventType{sfnapi.EventExecutionStarted,
		sfnapi.EventTaskStateEntered, sfnapi.EventTaskScheduled, sfnapi.EventTaskStarted, sfnapi.EventTaskSucceeded, sfnapi.EventTaskStateExited,
		sfnapi.EventTaskStateEntered, sfnapi.EventLambdaFunctionScheduled, sfnapi.EventLambdaFunctionStarted, sfnapi.EventLambdaFunctionSucceeded, sfnapi.EventTaskStateExited,
		sfnapi.EventExecutionSucceeded}
	if got := eventTypes(events); !slices.Equal(got, want) {
		t.Fatalf("history: got %v, want %v", got, want)
	}
	for i, e := range events {
		if e.ID != int64(i+1) || (i > 1 && e.PreviousEventID != int64(i)) || (i > 0 && e.Timestamp.Before(events[i-1].Timestamp.Time)) {
			t.Errorf("event %d: id %d, previous %d, at %v", i, e.ID, e.PreviousEventID, e.Timestamp)
		}
	}
	if d := events[0].ExecutionStartedEventDetails; d.Input != `{"k":"v"}` || d.RoleArn == "" {
		t.Errorf("ExecutionStarted: got %+v", d)
	}
	scheduled := events[2].TaskScheduledEventDetails
	if scheduled.ResourceType != "lambda" || scheduled.Resource != "invoke" || scheduled.Region != DefaultRegion ||
		scheduled.Parameters != `{"FunctionName":"Work"}` || scheduled.TimeoutInSeconds != 30 {
		t.Errorf("TaskScheduled: got %+v", scheduled)
	}
	if d := events[7].LambdaFunctionScheduledEventDetails; d.Resource != function || d.Input != `{"Payload":"ok"}` {
		t.Errorf("LambdaFunctionScheduled: got %+v", d)
	}
}

func TestHistoryCap(t *testing.T) {
	em := New(Options{Clock: NewScaledClock(testStart, 0), MaxHistoryEvents: 20})
	t.Cleanup(func() { _ = em.Close() })
	loop := `{"StartAt":"A","States":{"A":{"Type":"Pass","Next":"B"},"B":{"Type":"Pass","Next":"A"}}}`
	done := runMachine(t, em, loop, `{}`)
	if done.Status != StatusFailed || deref(done.Error) != asl.ErrorRuntime ||
		deref(done.Cause) != "The execution reached the maximum number of history events (20)." {
		t.Fatalf("got %s %s %q, want FAILED at the history cap", done.Status, deref(done.Error), deref(done.Cause))
	}
	events := history(t, em, done.ExecutionArn)
	if len(events) != 20 || events[19].Type != sfnapi.EventExecutionFailed {
		t.Errorf("got %d events ending with %s, want 20 ending with ExecutionFailed", len(events), events[len(events)-1].Type)
	}
	if done.RedriveStatus != RedriveStatusNotRedrivable {
		t.Errorf("redrive status: got %s, want NOT_REDRIVABLE", done.RedriveStatus)
	}
	if _, err := em.RedriveExecution(context.Background(), done.ExecutionArn); !errors.Is(err, ErrExecutionNotRedrivable) {
		t.Errorf("redrive: got %v, want ExecutionNotRedrivable", err)
	}
}
