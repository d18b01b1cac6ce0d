package eventbus_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/emulator/eventbus"
)

// virtualClock is a Clock whose Sleep advances time at once and records the wait.
type virtualClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

func newVirtualClock() *virtualClock {
	return &virtualClock{now: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)}
}

func (c *virtualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *virtualClock) Go(f func()) { go f() }

func (c *virtualClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if d > 0 {
		c.now = c.now.Add(d)
		c.sleeps = append(c.sleeps, d)
	}
	return nil
}

func (c *virtualClock) recordedSleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

// recorder is a target that records what it receives and fails its first failures calls.
type recorder struct {
	mu       sync.Mutex
	clock    eventbus.Clock
	failures int
	err      error
	calls    int
	events   []eventbus.Event
	times    []time.Time
}

func (r *recorder) invoke(_ context.Context, event eventbus.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls++
	if r.calls <= r.failures {
		return r.err
	}
	r.events = append(r.events, event)
	if r.clock != nil {
		r.times = append(r.times, r.clock.Now())
	}
	return nil
}

func (r *recorder) snapshot() (calls int, events []eventbus.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls, append([]eventbus.Event(nil), r.events...)
}

// deadLetterLog collects dead letters.
type deadLetterLog struct {
	mu      sync.Mutex
	letters []eventbus.DeadLetter
}

func (l *deadLetterLog) sink(d eventbus.DeadLetter) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.letters = append(l.letters, d)
}

func (l *deadLetterLog) snapshot() []eventbus.DeadLetter {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]eventbus.DeadLetter(nil), l.letters...)
}

func mustPattern(t testing.TB, pattern string) *eventbus.Pattern {
	t.Helper()
	p, err := eventbus.CompilePattern(pattern)
	if err != nil {
		t.Fatalf("CompilePattern: %v", err)
	}
	return p
}

func testEvent(status string) eventbus.Event {
	return eventbus.Event{
		ID:         "event-" + status,
		Source:     "aws.states",
		DetailType: "Step Functions Execution Status Change",
		Account:    "000000000000",
		Region:     "us-east-1",
		Time:       "2024-01-01T00:00:00Z",
		Detail:     json.RawMessage(`{"status":"` + status + `"}`),
	}
}

const failedPattern = `{"source": ["aws.states"], "detail": {"status": ["FAILED"]}}`

func drain(t *testing.T, bus *eventbus.Bus) {
	t.Helper()
	if err := bus.Drain(context.Background()); err != nil {
		t.Fatalf("Drain: %v", err)
	}
}

func TestBusDeliversToMatchingEnabledRules(t *testing.T) {
	bus := eventbus.New(eventbus.Options{Clock: newVirtualClock()})
	matching, other, disabled := &recorder{}, &recorder{}, &recorder{}
	rules := []eventbus.Rule{
		{Name: "on-failure", Pattern: mustPattern(t, failedPattern), Targets: []eventbus.Target{{ID: "t", Invoke: matching.invoke}}},
		{Name: "on-success", Pattern: mustPattern(t, `{"detail": {"status": ["SUCCEEDED"]}}`), Targets: []eventbus.Target{{ID: "t", Invoke: other.invoke}}},
		{Name: "disabled", Pattern: mustPattern(t, failedPattern), Targets: []eventbus.Target{{ID: "t", Invoke: disabled.invoke}}, Disabled: true},
	}
	for _, r := range rules {
		if err := bus.PutRule(r); err != nil {
			t.Fatalf("PutRule(%s): %v", r.Name, err)
		}
	}
	if err := bus.Publish(context.Background(), testEvent("FAILED")); err != nil {
		t.Fatalf("Publish: %v", err)
	}
	drain(t, bus)
	if calls, events := matching.snapshot(); calls != 1 || events[0].ID != "event-FAILED" || events[0].Version != "0" {
		t.Errorf("matching target: calls = %d, events = %+v", calls, events)
	}
	if calls, _ := other.snapshot(); calls != 0 {
		t.Errorf("non-matching target called %d times", calls)
	}
	if calls, _ := disabled.snapshot(); calls != 0 {
		t.Errorf("disabled rule's target called %d times", calls)
	}
	if !bus.RemoveRule("on-failure") || bus.RemoveRule("on-failure") {
		t.Errorf("RemoveRule should report true once, then false")
	}
	if err := bus.Publish(context.Background(), testEvent("FAILED")); err != nil {
		t.Fatal(err)
	}
	drain(t, bus)
	if calls, _ := matching.snapshot(); calls != 1 {
		t.Errorf("removed rule's target called again: %d calls", calls)
	}
}

func TestBusRetries(t *testing.T) {
	errBusy := errors.New("busy")
	tests := []struct {
		name           string
		failures       int
		targetErr      error
		retry          *eventbus.RetryPolicy
		wantCalls      int
		wantDelivered  int
		wantReason     string
		wantRetries    int
		wantBackoffMax []time.Duration
	}{
		{
			name: "succeeds after two failures", failures: 2, targetErr: errBusy,
			retry:     &eventbus.RetryPolicy{MaximumRetryAttempts: 5, MaximumEventAge: time.Hour},
			wantCalls: 3, wantDelivered: 1, wantBackoffMax: []time.Duration{time.Second, 2 * time.Second},
		},
		{
			name: "retry attempts exhausted", failures: 100, targetErr: errBusy,
			retry:     &eventbus.RetryPolicy{MaximumRetryAttempts: 3, MaximumEventAge: time.Hour},
			wantCalls: 4, wantReason: eventbus.ReasonRetryAttemptsExhausted, wantRetries: 3,
			wantBackoffMax: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second},
		},
		{
			name: "no retries", failures: 100, targetErr: errBusy,
			retry:     &eventbus.RetryPolicy{MaximumRetryAttempts: 0, MaximumEventAge: time.Hour},
			wantCalls: 1, wantReason: eventbus.ReasonRetryAttemptsExhausted, wantRetries: 0,
		},
		{
			name: "permanent failure is not retried", failures: 100, targetErr: eventbus.Permanent(errBusy),
			wantCalls: 1, wantReason: eventbus.ReasonPermanentFailure, wantRetries: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newVirtualClock()
			var dead deadLetterLog
			bus := eventbus.New(eventbus.Options{Clock: clock, DeadLetters: dead.sink, Seed: 7})
			target := &recorder{failures: tt.failures, err: tt.targetErr}
			err := bus.PutRule(eventbus.Rule{Name: "r", Pattern: mustPattern(t, failedPattern), Targets: []eventbus.Target{{
				ID: "t", ARN: "arn:aws:states:us-east-1:000000000000:stateMachine:cleanup", Invoke: target.invoke,
				Retry: tt.retry, DeadLetterQueueARN: "arn:aws:sqs:us-east-1:000000000000:dlq",
			}}})
			if err != nil {
				t.Fatal(err)
			}
			if err := bus.Publish(context.Background(), testEvent("FAILED")); err != nil {
				t.Fatal(err)
			}
			drain(t, bus)
			calls, delivered := target.snapshot()
			if calls != tt.wantCalls || len(delivered) != tt.wantDelivered {
				t.Errorf("calls = %d, delivered = %d; want %d, %d", calls, len(delivered), tt.wantCalls, tt.wantDelivered)
			}
			sleeps := clock.recordedSleeps()
			if len(sleeps) != len(tt.wantBackoffMax) {
				t.Fatalf("backoff sleeps = %v, want %d of them", sleeps, len(tt.wantBackoffMax))
			}
			for i, max := range tt.wantBackoffMax {
				if sleeps[i] < max/2 || sleeps[i] > max {
					t.Errorf("backoff %d = %v, want within [%v, %v]", i, sleeps[i], max/2, max)
				}
			}
			letters := dead.snapshot()
			if tt.wantReason == "" {
				if len(letters) != 0 {
					t.Errorf("unexpected dead letters %+v", letters)
				}
				return
			}
			if len(letters) != 1 {
				t.Fatalf("dead letters = %+v, want one", letters)
			}
			got := letters[0]
			if got.Reason != tt.wantReason || got.RetryAttempts != tt.wantRetries || !errors.Is(got.Err, errBusy) ||
				got.QueueARN != "arn:aws:sqs:us-east-1:000000000000:dlq" || got.RuleName != "r" || got.TargetID != "t" ||
				got.TargetARN != "arn:aws:states:us-east-1:000000000000:stateMachine:cleanup" || got.Event.ID != "event-FAILED" {
				t.Errorf("dead letter = %+v", got)
			}
		})
	}
}

func TestBusGivesUpWhenTheEventIsTooOld(t *testing.T) {
	clock := newVirtualClock()
	var dead deadLetterLog
	bus := eventbus.New(eventbus.Options{Clock: clock, DeadLetters: dead.sink, Backoff: eventbus.Backoff{Initial: time.Minute, Max: time.Minute}})
	target := &recorder{failures: 1000, err: errors.New("down")}
	err := bus.PutRule(eventbus.Rule{Name: "r", Pattern: mustPattern(t, failedPattern), Targets: []eventbus.Target{{
		ID: "t", Invoke: target.invoke, Retry: &eventbus.RetryPolicy{MaximumRetryAttempts: 185, MaximumEventAge: 5 * time.Minute},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.Publish(context.Background(), testEvent("FAILED")); err != nil {
		t.Fatal(err)
	}
	drain(t, bus)
	letters := dead.snapshot()
	if len(letters) != 1 || letters[0].Reason != eventbus.ReasonEventAgeExhausted || letters[0].QueueARN != "" {
		t.Fatalf("dead letters = %+v, want one for the event age, without a queue", letters)
	}
	// Waits of 30 s to 1 min within 5 minutes allow 5 to 10 retries after the first attempt.
	if calls, _ := target.snapshot(); calls < 6 || calls > 11 || letters[0].RetryAttempts != calls-1 {
		t.Errorf("calls = %d, retries = %d", calls, letters[0].RetryAttempts)
	}
}

func TestDeliveryPolicies(t *testing.T) {
	tests := []struct {
		name       string
		policy     eventbus.DeliveryPolicy
		wantEvents []string // sorted IDs the target receives
	}{
		{"deliver once", eventbus.DeliverOnce, []string{"e1", "e2", "e3", "e4"}},
		{"drop every other delivery", eventbus.DeliveryPolicyFunc(func(d eventbus.Delivery) []time.Duration {
			if d.Sequence%2 == 0 {
				return nil
			}
			return []time.Duration{0}
		}), []string{"e1", "e3"}},
		{"duplicate every delivery", eventbus.DeliveryPolicyFunc(func(eventbus.Delivery) []time.Duration {
			return []time.Duration{0, time.Second}
		}), []string{"e1", "e1", "e2", "e2", "e3", "e3", "e4", "e4"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var dead deadLetterLog
			bus := eventbus.New(eventbus.Options{Clock: newVirtualClock(), Policy: tt.policy, DeadLetters: dead.sink})
			target := &recorder{}
			if err := bus.PutRule(eventbus.Rule{Name: "r", Pattern: mustPattern(t, `{"source": ["test"]}`), Targets: []eventbus.Target{{ID: "t", Invoke: target.invoke}}}); err != nil {
				t.Fatal(err)
			}
			for i := 1; i <= 4; i++ {
				// Publish one at a time so that Sequence numbers follow event order.
				if err := bus.Publish(context.Background(), eventbus.Event{ID: fmt.Sprintf("e%d", i), Source: "test", DetailType: "t"}); err != nil {
					t.Fatal(err)
				}
			}
			drain(t, bus)
			_, events := target.snapshot()
			got := make([]string, len(events))
			for i, e := range events {
				got[i] = e.ID
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.wantEvents) {
				t.Errorf("received %v, want %v", got, tt.wantEvents)
			}
			if letters := dead.snapshot(); len(letters) != 0 {
				t.Errorf("a policy's drops must not reach the dead-letter sink: %+v", letters)
			}
		})
	}
}

func TestDeliveryPolicyDelay(t *testing.T) {
	clock := newVirtualClock()
	start := clock.Now()
	bus := eventbus.New(eventbus.Options{Clock: clock, Policy: eventbus.DeliveryPolicyFunc(func(eventbus.Delivery) []time.Duration {
		return []time.Duration{10 * time.Minute}
	})})
	target := &recorder{clock: clock}
	if err := bus.PutRule(eventbus.Rule{Name: "r", Pattern: mustPattern(t, failedPattern), Targets: []eventbus.Target{{ID: "t", Invoke: target.invoke}}}); err != nil {
		t.Fatal(err)
	}
	if err := bus.Publish(context.Background(), testEvent("FAILED")); err != nil {
		t.Fatal(err)
	}
	drain(t, bus)
	target.mu.Lock()
	defer target.mu.Unlock()
	if len(target.times) != 1 || target.times[0].Sub(start) < 10*time.Minute {
		t.Errorf("delivered at %v, want at least 10 minutes after %v", target.times, start)
	}
}

type ctxKey struct{}

func TestTargetSeesPublishContextValues(t *testing.T) {
	bus := eventbus.New(eventbus.Options{Clock: newVirtualClock()})
	got := make(chan any, 1)
	target := func(ctx context.Context, _ eventbus.Event) error {
		got <- ctx.Value(ctxKey{})
		return nil
	}
	if err := bus.PutRule(eventbus.Rule{Name: "r", Pattern: mustPattern(t, failedPattern), Targets: []eventbus.Target{{ID: "t", Invoke: target}}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), ctxKey{}, "trace-1"))
	if err := bus.Publish(ctx, testEvent("FAILED")); err != nil {
		t.Fatal(err)
	}
	cancel() // cancelling the publisher's context must not cancel the delivery
	drain(t, bus)
	if v := <-got; v != "trace-1" {
		t.Errorf("context value = %v, want trace-1", v)
	}
}

func TestBusClose(t *testing.T) {
	var dead deadLetterLog
	bus := eventbus.New(eventbus.Options{Clock: newVirtualClock(), DeadLetters: dead.sink})
	invoked := make(chan struct{}, 1)
	stuck := func(ctx context.Context, _ eventbus.Event) error {
		invoked <- struct{}{}
		<-ctx.Done()
		return ctx.Err()
	}
	if err := bus.PutRule(eventbus.Rule{Name: "r", Pattern: mustPattern(t, failedPattern), Targets: []eventbus.Target{{ID: "t", Invoke: stuck}}}); err != nil {
		t.Fatal(err)
	}
	if err := bus.Publish(context.Background(), testEvent("FAILED")); err != nil {
		t.Fatal(err)
	}
	<-invoked
	expired, cancel := context.WithCancel(context.Background())
	cancel()
	if err := bus.Close(expired); !errors.Is(err, context.Canceled) {
		t.Fatalf("Close = %v, want context.Canceled", err)
	}
	if letters := dead.snapshot(); len(letters) != 1 || letters[0].Reason != eventbus.ReasonBusClosed {
		t.Errorf("dead letters = %+v, want one with ReasonBusClosed", letters)
	}
	if err := bus.Publish(context.Background(), testEvent("FAILED")); !errors.Is(err, eventbus.ErrBusClosed) {
		t.Errorf("Publish after Close = %v, want ErrBusClosed", err)
	}
	if err := bus.PutRule(eventbus.Rule{Name: "x", Pattern: mustPattern(t, failedPattern)}); !errors.Is(err, eventbus.ErrBusClosed) {
		t.Errorf("PutRule after Close = %v, want ErrBusClosed", err)
	}
	if err := bus.Close(context.Background()); err != nil {
		t.Errorf("second Close = %v, want nil", err)
	}
}

func TestPutRuleValidation(t *testing.T) {
	noop := func(context.Context, eventbus.Event) error { return nil }
	p := mustPattern(t, failedPattern)
	tests := []struct {
		name string
		rule eventbus.Rule
	}{
		{"no name", eventbus.Rule{Pattern: p}},
		{"no pattern", eventbus.Rule{Name: "r"}},
		{"target without ID", eventbus.Rule{Name: "r", Pattern: p, Targets: []eventbus.Target{{Invoke: noop}}}},
		{"target without function", eventbus.Rule{Name: "r", Pattern: p, Targets: []eventbus.Target{{ID: "t"}}}},
		{"duplicate target IDs", eventbus.Rule{Name: "r", Pattern: p, Targets: []eventbus.Target{{ID: "t", Invoke: noop}, {ID: "t", Invoke: noop}}}},
		{"too many retries", eventbus.Rule{Name: "r", Pattern: p, Targets: []eventbus.Target{{ID: "t", Invoke: noop, Retry: &eventbus.RetryPolicy{MaximumRetryAttempts: 186, MaximumEventAge: time.Hour}}}}},
		{"event age too short", eventbus.Rule{Name: "r", Pattern: p, Targets: []eventbus.Target{{ID: "t", Invoke: noop, Retry: &eventbus.RetryPolicy{MaximumEventAge: time.Second}}}}},
	}
	bus := eventbus.New(eventbus.Options{})
	for _, tt := range tests {
		if err := bus.PutRule(tt.rule); !errors.Is(err, eventbus.ErrInvalidRule) {
			t.Errorf("%s: PutRule = %v, want ErrInvalidRule", tt.name, err)
		}
	}
}

func TestPublishValidation(t *testing.T) {
	tests := []struct {
		name  string
		event eventbus.Event
	}{
		{"no source", eventbus.Event{DetailType: "t"}},
		{"no detail-type", eventbus.Event{Source: "s"}},
		{"detail not an object", eventbus.Event{Source: "s", DetailType: "t", Detail: json.RawMessage(`[1]`)}},
		{"detail not JSON", eventbus.Event{Source: "s", DetailType: "t", Detail: json.RawMessage(`{`)}},
	}
	bus := eventbus.New(eventbus.Options{})
	for _, tt := range tests {
		if err := bus.Publish(context.Background(), tt.event); !errors.Is(err, eventbus.ErrInvalidEvent) {
			t.Errorf("%s: Publish = %v, want ErrInvalidEvent", tt.name, err)
		}
	}
}

func TestBusConcurrentUse(t *testing.T) {
	const publishers, perPublisher = 8, 50
	bus := eventbus.New(eventbus.Options{Clock: newVirtualClock(), Policy: eventbus.DeliveryPolicyFunc(func(eventbus.Delivery) []time.Duration {
		return []time.Duration{0, time.Millisecond}
	})})
	target := &recorder{}
	if err := bus.PutRule(eventbus.Rule{Name: "r", Pattern: mustPattern(t, failedPattern), Targets: []eventbus.Target{{ID: "t", Invoke: target.invoke}}}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for p := 0; p < publishers; p++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := 0; i < perPublisher; i++ {
				if err := bus.Publish(context.Background(), testEvent("FAILED")); err != nil {
					t.Error(err)
				}
			}
		}()
		go func() { // churn unrelated rules while publishing
			defer wg.Done()
			for i := 0; i < perPublisher; i++ {
				name := fmt.Sprintf("churn-%d", p)
				if err := bus.PutRule(eventbus.Rule{Name: name, Pattern: mustPattern(t, `{"source": ["nothing"]}`)}); err != nil {
					t.Error(err)
				}
				bus.RemoveRule(name)
				_ = bus.Drain(context.Background())
			}
		}()
	}
	wg.Wait()
	if err := bus.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if calls, _ := target.snapshot(); calls != 2*publishers*perPublisher {
		t.Errorf("deliveries = %d, want %d", calls, 2*publishers*perPublisher)
	}
}
