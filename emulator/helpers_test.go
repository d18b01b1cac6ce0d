package emulator

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/emulator/sfnapi"
)

// testStart is the virtual start time of the tests' clocks.
var testStart = time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)

// newEmulator returns an emulator at the given time scale, closed when the test ends.
func newEmulator(t testing.TB, scale float64, integrations ...Integration) *Emulator {
	t.Helper()
	em := New(Options{Clock: NewScaledClock(testStart, scale), Seed: 42})
	for _, i := range integrations {
		em.RegisterIntegration(i)
	}
	t.Cleanup(func() { _ = em.Close() })
	return em
}

var machineCounter struct {
	sync.Mutex
	n int
}

// create creates a state machine with a fresh name.
func create(t testing.TB, em *Emulator, definition string) string {
	t.Helper()
	machineCounter.Lock()
	machineCounter.n++
	name := fmt.Sprintf("machine-%d", machineCounter.n)
	machineCounter.Unlock()
	arn, err := em.CreateStateMachine(name, definition, StateMachineOptions{})
	if err != nil {
		t.Fatalf("CreateStateMachine: %v", err)
	}
	return arn
}

// execute runs an execution to its end.
func execute(t testing.TB, em *Emulator, arn, input string) ExecutionDescription {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	started, err := em.StartExecution(ctx, arn, "", input)
	if err != nil {
		t.Fatalf("StartExecution: %v", err)
	}
	done, err := em.Wait(ctx, started.ExecutionArn)
	if err != nil {
		t.Fatalf("Wait: %v", err)
	}
	return done
}

// runMachine creates a machine and runs one execution of it.
func runMachine(t testing.TB, em *Emulator, definition, input string) ExecutionDescription {
	t.Helper()
	return execute(t, em, create(t, em, definition), input)
}

// history returns an execution's history.
func history(t testing.TB, em *Emulator, executionArn string) []HistoryEvent {
	t.Helper()
	events, err := em.GetExecutionHistory(context.Background(), executionArn)
	if err != nil {
		t.Fatal(err)
	}
	return events
}

// eventTypes lists the types of events.
func eventTypes(events []HistoryEvent) []sfnapi.HistoryEventType {
	out := make([]sfnapi.HistoryEventType, len(events))
	for i, e := range events {
		out[i] = e.Type
	}
	return out
}

// enteredStates lists the names of the states entered, in order.
func enteredStates(events []HistoryEvent) []string {
	var out []string
	for _, e := range events {
		if e.StateEnteredEventDetails != nil {
			out = append(out, e.StateEnteredEventDetails.Name)
		}
	}
	return out
}

// handlerFunc runs one Task attempt of a fake integration.
type handlerFunc func(ctx context.Context, call *TaskCall) (any, error)

// fakeIntegration runs the resources it has handlers for and counts the calls.
type fakeIntegration struct {
	mu       sync.Mutex
	handlers map[string]handlerFunc
	calls    map[string]int
	params   map[string][]any
}

func newFake() *fakeIntegration {
	return &fakeIntegration{handlers: map[string]handlerFunc{}, calls: map[string]int{}, params: map[string][]any{}}
}

// handle registers a handler and returns the fake for chaining.
func (f *fakeIntegration) handle(resource string, h handlerFunc) *fakeIntegration {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.handlers[resource] = h
	return f
}

func (f *fakeIntegration) Supports(resource string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.handlers[resource]
	return ok
}

func (f *fakeIntegration) Invoke(ctx context.Context, call *TaskCall) (any, error) {
	f.mu.Lock()
	h := f.handlers[call.Resource]
	f.calls[call.Resource]++
	f.params[call.Resource] = append(f.params[call.Resource], call.Parameters)
	f.mu.Unlock()
	return h(ctx, call)
}

// count returns how many times a resource was invoked.
func (f *fakeIntegration) count(resource string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[resource]
}

// received returns the parameters of every call of a resource.
func (f *fakeIntegration) received(resource string) []any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]any(nil), f.params[resource]...)
}

// returning is a handler that always returns v.
func returning(v any) handlerFunc {
	return func(context.Context, *TaskCall) (any, error) { return v, nil }
}

// mustJSON decodes JSON text for comparisons.
func mustJSON(t testing.TB, text string) any {
	t.Helper()
	return decode(t, []byte(text))
}
