package test

import (
	"context"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/cmd/app/demo"
	"github.com/turnstile-sfn/turnstile/internal/simulate"
	"github.com/turnstile-sfn/turnstile/lambdas/dowork/work"
)

// TestDemoNeverExceedsTheLimitAndLeaksNothing runs the original demo's scenario, scaled down,
// on the synthesized stack: executions through a semaphore, with failing work.
func TestDemoNeverExceedsTheLimitAndLeaksNothing(t *testing.T) {
	cfg := demo.DefaultConfig()
	cfg.Limit = 3
	cfg.WorkDuration = 4 * time.Second
	cfg.FailureRate = 0.2
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := simulate.Run(ctx, simulate.Scenario{Demo: &cfg, Executions: 24, TimeScale: 0.01, Seed: 7})
	if err != nil {
		t.Fatalf("simulate.Run: %v", err)
	}
	r := res.Report
	t.Logf("started %d, succeeded %d, failed %v, max overlap %d, makespan %.1fs (ideal %.1fs), leaked %d",
		r.Started, r.Succeeded, r.FailedByError, r.MaxConcurrentWork, r.MakespanSeconds, res.IdealMakespanSeconds, r.LeakedSlots)
	if v := res.Violations(); len(v) > 0 {
		t.Errorf("violations: %v", v)
	}
	if r.Started != 24 || r.Succeeded+r.Failed != 24 {
		t.Errorf("started %d, succeeded %d, failed %d; want 24 in all", r.Started, r.Succeeded, r.Failed)
	}
	if r.MaxConcurrentWork != cfg.Limit {
		t.Errorf("at most %d executions worked at once; the limit %d must be used", r.MaxConcurrentWork, cfg.Limit)
	}
	for name := range r.FailedByError {
		if name != work.ErrorNameWorkFailed {
			t.Errorf("%d executions failed with %q; only the work's own %q is expected", r.FailedByError[name], name, work.ErrorNameWorkFailed)
		}
	}
	if r.Failed == 0 {
		t.Error("no execution failed with a 20% failure rate over 24 executions")
	}
	if len(r.Locks) != 1 || r.Locks[0].Name != cfg.LockName || r.Locks[0].Count != 0 || len(r.Locks[0].Holders) != 0 {
		t.Errorf("lock items after the run = %+v, want one %s item with count 0 and no holders", r.Locks, cfg.LockName)
	}
}
