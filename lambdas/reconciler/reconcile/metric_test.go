package reconcile_test

import (
	"bytes"
	"testing"
	"time"

	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/turnstile-sfn/turnstile/lambdas/reconciler/reconcile"
	"github.com/turnstile-sfn/turnstile/lock"
	"github.com/turnstile-sfn/turnstile/metrics"
)

// TestRunWritesPerLockMetrics: two holders of lock A (one dead) and a waiter of 90 s, one live
// holder of lock B: each lock gets one line with the slots freed and the gauges as read.
func TestRunWritesPerLockMetrics(t *testing.T) {
	ctx := t.Context()
	table := server.CreateLockTable(t)
	start := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	clock := start
	now := func() time.Time { return clock }
	f := &fakeSFN{status: map[string]sfntypes.ExecutionStatus{
		exec + "live": sfntypes.ExecutionStatusRunning, exec + "dead": sfntypes.ExecutionStatusFailed,
		exec + "waiting": sfntypes.ExecutionStatusRunning, exec + "other": sfntypes.ExecutionStatusRunning,
	}}
	locks, err := lock.New(table, server.Client, f, lock.WithNow(now))
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []struct{ lock, execution string }{{"A", exec + "live"}, {"A", exec + "dead"}, {"B", exec + "other"}} {
		if ok, err := locks.TryAcquire(ctx, h.lock, h.execution, 2); err != nil || !ok {
			t.Fatalf("acquire %v: %v, %v", h, ok, err)
		}
	}
	if _, err := locks.Park(ctx, lock.ParkRequest{Lock: "A", Limit: 2, Execution: exec + "waiting", Ticket: 1, Token: "token-" + exec + "waiting"}); err != nil {
		t.Fatal(err)
	}
	clock = start.Add(90 * time.Second)
	var out bytes.Buffer
	r, err := reconcile.New(reconcile.Config{TableName: table, StateMachineArn: machineArn, Limit: 2}, f, server.Client,
		reconcile.WithNow(now), reconcile.WithMetrics(metrics.NewLogger(&out, "App/Sem", now)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(ctx); err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]float64{}
	for line := range bytes.Lines(out.Bytes()) {
		samples, err := metrics.Parse(bytes.TrimSpace(line))
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		for _, s := range samples {
			name, ok := s.Dimensions[metrics.DimensionLockName]
			if !ok {
				continue
			}
			if got[name] == nil {
				got[name] = map[string]float64{}
			}
			got[name][s.Name] = s.Value
		}
	}
	want := map[string]map[string]float64{
		"A": {metrics.SlotsFreedByReconciler: 1, metrics.SlotsHeld: 2, metrics.ExecutionsWaiting: 1, metrics.OldestWait: 90_000},
		"B": {metrics.SlotsFreedByReconciler: 0, metrics.SlotsHeld: 1, metrics.ExecutionsWaiting: 0, metrics.OldestWait: 0},
	}
	for name, w := range want {
		for metric, v := range w {
			if g, ok := got[name][metric]; !ok || g != v {
				t.Errorf("lock %s %s = %v (present %v), want %v", name, metric, g, ok, v)
			}
		}
	}
	if len(got) != len(want) {
		t.Errorf("locks in the metrics: %v, want A and B", got)
	}
}
