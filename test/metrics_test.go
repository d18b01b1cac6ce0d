package test

import (
	"context"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/cmd/app/demo"
	"github.com/turnstile-sfn/turnstile/emulator/stack"
	"github.com/turnstile-sfn/turnstile/internal/simulate"
	"github.com/turnstile-sfn/turnstile/metrics"
)

// TestDemoRunWritesMetrics runs 25 executions of the demo (Callback, limit 5, 90 s of work: five
// rounds, 7.5 virtual minutes, so that the 5-minute reconciler runs while slots are held and
// executions wait) and reads the metrics its functions wrote as EMF lines, as CloudWatch would
// receive them: one WaitTime per waiter admitted from the queue, one SlotsHandedOn and one
// HandOffLatency per hand-off the load test saw, waits no longer than the longest wait for a
// slot, and a reconciler that read the lock full, with waiters, and freed nothing.
func TestDemoRunWritesMetrics(t *testing.T) {
	cfg := demo.DefaultConfig()
	cfg.WorkDuration, cfg.FailureRate = 90*time.Second, 0.2
	res, err := simulate.Run(context.Background(), simulate.Scenario{DynamoDB: database.Local, Demo: &cfg, Executions: 25, Seed: 21})
	if err != nil {
		t.Fatal(err)
	}
	r, m := res.Report, res.Metrics
	t.Logf("metrics: %+v", m)
	if r.AdmittedFromQueue == 0 || m[metrics.WaitTime].Samples != r.AdmittedFromQueue {
		t.Errorf("WaitTime has %d samples, want one per waiter admitted from the queue (%d)", m[metrics.WaitTime].Samples, r.AdmittedFromQueue)
	}
	if handed := m[metrics.SlotsHandedOn]; handed.Sum != float64(r.HandOff.Count) || handed.Sum == 0 {
		t.Errorf("SlotsHandedOn sums to %v, want the load test's %d hand-offs", handed.Sum, r.HandOff.Count)
	}
	if lat := m[metrics.HandOffLatency]; float64(lat.Samples) != m[metrics.SlotsHandedOn].Sum || lat.Min < 0 {
		t.Errorf("HandOffLatency = %+v, want one non-negative sample per hand-off", lat)
	}
	if w := m[metrics.WaitTime]; w.Min <= 0 || w.Max > r.WaitForSlot.Max*1000 {
		t.Errorf("WaitTime from %v to %v ms, want above 0 and at most the longest wait for a slot (%v s)", w.Min, w.Max, r.WaitForSlot.Max)
	}
	if rec := m[metrics.SlotsFreedByReconciler]; rec.Samples == 0 || rec.Sum != 0 {
		t.Errorf("SlotsFreedByReconciler = %+v, want reconciler runs that freed nothing", rec)
	}
	// The gauges: one of each per reconciler run, within what the run can have; the run at 5
	// minutes read every slot taken and executions waiting.
	for name, bounds := range map[string][2]float64{
		metrics.SlotsHeld:         {float64(cfg.Limit), float64(cfg.Limit)},
		metrics.ExecutionsWaiting: {1, float64(r.Started)},
		metrics.OldestWait:        {1, r.WaitForSlot.Max * 1000},
	} {
		if g := m[name]; g.Samples != m[metrics.SlotsFreedByReconciler].Samples || g.Min < 0 || g.Max < bounds[0] || g.Max > bounds[1] {
			t.Errorf("%s = %+v, want one per reconciler run, the largest from %v to %v", name, g, bounds[0], bounds[1])
		}
	}
	if m[metrics.AcquireTimeouts].Sum != 0 || m[metrics.SlotsFreedByCleanup].Sum != 0 {
		t.Errorf("acquire time-outs %v, slots freed by the cleanup %v; want none in a run without either", m[metrics.AcquireTimeouts].Sum, m[metrics.SlotsFreedByCleanup].Sum)
	}
}

// sumsSince sums the per-lock samples of Turnstile's metrics written after the first skip.
func sumsSince(st *stack.Stack, skip int) map[string]float64 {
	out := map[string]float64{}
	for _, s := range st.Metrics()[skip:] {
		if _, perLock := s.Dimensions[metrics.DimensionLockName]; perLock && s.Namespace == metrics.Namespace {
			out[s.Name] += s.Value
		}
	}
	return out
}

// TestCleanupAndReconcilerWriteMetrics: on the Callback demo of limit 1, A holds and B parks;
// A is aborted and its cleanup hands the slot to B (SlotsFreedByCleanup, SlotsHandedOn, B's
// WaitTime); with every event lost B is aborted and the reconciler frees its slot
// (SlotsFreedByReconciler).
func TestCleanupAndReconcilerWriteMetrics(t *testing.T) {
	st := startCallbackStack(t)
	skip := len(st.Metrics())
	a := startHolder(t, st)
	waitForLock(t, st, "A to hold the slot", heldBy(a))
	b := startHolder(t, st)
	waitForLock(t, st, "B to park", queued(b))
	stop(t, st, a)
	waitForLock(t, st, "the cleanup to hand A's slot to B", heldBy(b))
	waitVirtual(t, st, "the cleanup's metrics", func() (bool, string) {
		got := sumsSince(st, skip)
		return got[metrics.SlotsFreedByCleanup] == 1 && got[metrics.SlotsHandedOn] == 1 && got[metrics.WaitTime] > 0, ""
	})

	callbackStack.dropEvents.Store(true)
	defer callbackStack.dropEvents.Store(false)
	stop(t, st, b)
	waitForLock(t, st, "the reconciler to free B's slot", free)
	got := sumsSince(st, skip)
	if got[metrics.SlotsFreedByReconciler] != 1 || got[metrics.SlotsFreedByCleanup] != 1 || got[metrics.SlotsHandedOn] != 1 {
		t.Errorf("metrics since the test began: %v, want one slot freed by the cleanup, one by the reconciler, one handed on", got)
	}
	// The run that freed B's slot read it held first: the gauge saw the lock's one slot taken.
	most := 0.0
	for _, s := range st.Metrics()[skip:] {
		if s.Name == metrics.SlotsHeld {
			most = max(most, s.Value)
		}
	}
	if most != 1 {
		t.Errorf("SlotsHeld reached %v, want 1 (the limit, when the reconciler read B's slot)", most)
	}
	if st.InvalidMetricLines() != 0 {
		t.Errorf("%d metric lines break the EMF specification", st.InvalidMetricLines())
	}
}
