package handoff_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/lambdas/handoff/handoff"
	"github.com/turnstile-sfn/turnstile/lock"
	"github.com/turnstile-sfn/turnstile/metrics"
)

// TestMetrics: a hand-off writes SlotsHandedOn, HandOffLatency and the waiter's WaitTime; a
// leave AcquireTimeouts; the cleanup's release of a held slot SlotsFreedByCleanup, and of a
// slot no longer held nothing; each under the semaphore and the lock.
func TestMetrics(t *testing.T) {
	table := server.CreateLockTable(t)
	clock := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	now := func() time.Time { clock = clock.Add(250 * time.Millisecond); return clock }
	var out bytes.Buffer
	m := metrics.NewLogger(&out, "App/Sem", now)
	locks, err := lock.New(table, server.Client, &runningSFN{}, lock.WithNow(now), handoff.WaitTimes(m))
	if err != nil {
		t.Fatal(err)
	}
	h := handoff.New(locks, handoff.WithMetrics(m))
	ctx := t.Context()
	for _, req := range []handoff.Request{
		{Action: machines.HandOffActionPark, LockName: "L", Limit: 1, ExecutionArn: a, Ticket: 1, TaskToken: "ta"},
		{Action: machines.HandOffActionPark, LockName: "L", Limit: 1, ExecutionArn: b, Ticket: 2, TaskToken: "tb"},
		{Action: machines.HandOffActionPark, LockName: "L", Limit: 1, ExecutionArn: c, Ticket: 3, TaskToken: "tc"},
		{Action: machines.HandOffActionRelease, LockName: "L", Limit: 1, ExecutionArn: a},
		{Action: machines.HandOffActionLeave, LockName: "L", Limit: 1, ExecutionArn: c, Ticket: 3},
		{Action: machines.HandOffActionRelease, LockName: "L", Limit: 1, ExecutionArn: b, IfHeld: true},
		{Action: machines.HandOffActionRelease, LockName: "L", Limit: 1, ExecutionArn: b, IfHeld: true},
	} {
		if _, err := h.Handle(ctx, req); err != nil {
			t.Fatalf("%+v: %v", req, err)
		}
	}
	got := map[string][]float64{}
	for line := range bytes.Lines(out.Bytes()) {
		samples, err := metrics.Parse(bytes.TrimSpace(line))
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		for _, s := range samples {
			if s.Dimensions[metrics.DimensionSemaphore] != "App/Sem" {
				t.Errorf("%s without the semaphore: %v", s.Name, s.Dimensions)
			}
			if s.Dimensions[metrics.DimensionLockName] == "L" {
				got[s.Name] = append(got[s.Name], s.Value)
			}
		}
	}
	for _, name := range []string{metrics.SlotsHandedOn, metrics.AcquireTimeouts, metrics.SlotsFreedByCleanup} {
		if len(got[name]) != 1 || got[name][0] != 1 {
			t.Errorf("%s = %v, want one 1", name, got[name])
		}
	}
	// B queued at its park and was woken by A's release: at least two ticks of the clock apart.
	if w := got[metrics.WaitTime]; len(w) != 1 || w[0] < 500 {
		t.Errorf("WaitTime = %v, want one of at least 500 ms", w)
	}
	if l := got[metrics.HandOffLatency]; len(l) != 1 || l[0] <= 0 {
		t.Errorf("HandOffLatency = %v, want one above 0", l)
	}
	if len(got) != 5 {
		t.Errorf("metrics %v, want exactly the five above", got)
	}
}
