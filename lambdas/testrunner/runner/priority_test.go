package runner

import (
	"errors"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/lock"
)

func TestInputsGiveTheLastOnesTheHighPriority(t *testing.T) {
	cfg, err := Config{
		StateMachineArn: "arn:aws:states:us-east-1:1:stateMachine:x",
		Executions:      4,
		PriorityPath:    "$.job.priority",
		HighPriority:    1,
	}.withDefaults(t0)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{`{"index": 0}`, `{"index": 2}`, `{"index":3,"job":{"priority":9}}`} {
		n := []int{0, 2, 3}[i]
		if got, err := cfg.input(n); err != nil || got != want {
			t.Errorf("input(%d) = %s, %v; want %s", n, got, err, want)
		}
	}
	for _, c := range []Config{
		{StateMachineArn: "arn:x", PriorityPath: "$.priority"},
		{StateMachineArn: "arn:x", HighPriority: 3},
		{StateMachineArn: "arn:x", PriorityPath: "priority", HighPriority: 3},
		{StateMachineArn: "arn:x", PriorityPath: "$.priority", HighPriority: 3, Executions: 2},
		{StateMachineArn: "arn:x", PriorityPath: "$.priority", HighPriority: 3, InputTemplate: "[{{index}}]"},
	} {
		if _, err := c.withDefaults(t0); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("withDefaults(%+v) = %v, want ErrInvalidConfig", c, err)
		}
	}
}

// TestPriorityOrder: ageing 2, so a high waiter overtakes the low ones fewer than 18 tickets
// older. A low waiter 31 tickets older is admitted first (aged), one 2 older after (overtaken):
// the promise kept; a low one 12 older admitted first breaks it.
func TestPriorityOrder(t *testing.T) {
	low, high := lock.MinPriority, lock.MaxPriority
	waiter := func(ticket int64, priority *int, admitted float64) *Trace {
		return &Trace{LockName: "L", Ticket: ticket, Priority: priority, Place: lock.Place(ticket, *priority, 2),
			Queued: t0, Admitted: t0.Add(time.Duration(admitted * float64(time.Second)))}
	}
	kept := []*Trace{waiter(1, &low, 10), waiter(30, &low, 30), waiter(32, &high, 20)}
	got := priorityOrder(kept)
	// Pairs (1, 32): 1+18 < 32, the low one first (aged); (30, 32): the high one first.
	if got == nil || got.Pairs != 2 || got.HigherFirst != 1 || got.AgedFirst != 1 || got.AgainstPromise != 0 || got.Waiters[high] != 1 || got.Waiters[low] != 2 {
		t.Fatalf("kept promise: %+v", got)
	}
	// The same admissions with the first low waiter closer: it should have been overtaken.
	broken := []*Trace{waiter(20, &low, 10), waiter(30, &low, 30), waiter(32, &high, 20)}
	if got := priorityOrder(broken); got.AgainstPromise != 1 || got.AgedFirst != 1 {
		t.Fatalf("broken promise: %+v", got)
	}
	simultaneous := []*Trace{waiter(30, &low, 20), waiter(32, &high, 20.5)}
	if got := priorityOrder(simultaneous); got.Simultaneous != 1 || got.AgainstPromise != 0 {
		t.Fatalf("simultaneous: %+v", got)
	}
	if got := priorityOrder([]*Trace{{LockName: "L", Ticket: 1, Place: 1, Queued: t0, Admitted: t0}}); got != nil {
		t.Fatalf("without priorities: %+v, want nil", got)
	}
}
