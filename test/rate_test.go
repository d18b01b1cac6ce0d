package test

import (
	"context"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/cmd/app/demo"
	"github.com/turnstile-sfn/turnstile/constructs/semaphore"
	"github.com/turnstile-sfn/turnstile/internal/simulate"
	"github.com/turnstile-sfn/turnstile/lambdas/dowork/work"
)

// runRate runs the demo with a Rate on the skipping clock and checks what every run must keep:
// no violation (the limit, leaks, and entries per window under the GCRA bound), every execution
// ended, and the lock settled with no holder.
func runRate(t *testing.T, cfg demo.Config, executions int, seed uint64) *simulate.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := simulate.Run(ctx, simulate.Scenario{Demo: &cfg, Executions: executions, TimeScale: simulate.DefaultTimeScale, Seed: seed})
	if err != nil {
		t.Fatalf("simulate.Run: %v", err)
	}
	r, f := res.Report, res.Rate
	if f == nil {
		t.Fatal("the run reports no Rate figures: the machine has no Rate gate")
	}
	t.Logf("succeeded %d, failed %v, max overlap %d; permits %d, rejected %d, %.2f entries/s, windows %+v, lag ≤ %.3fs, %.2f WU per permit, %.2f per rejection",
		r.Succeeded, r.FailedByError, r.MaxConcurrentWork, f.Permits, f.Rejected, f.EntriesPerSecond, f.Windows, f.MaxEntryLagSeconds, f.WriteUnitsPerPermit, f.WriteUnitsPerRejection)
	if v := res.Violations(); len(v) > 0 {
		t.Errorf("violations: %v", v)
	}
	if len(res.UnexpectedFailures) > 0 {
		t.Errorf("executions failed with errors the scenario did not ask for: %v", res.UnexpectedFailures)
	}
	if r.Started != executions || r.Succeeded+r.Failed != executions {
		t.Errorf("started %d, succeeded %d, failed %d; want %d in all", r.Started, r.Succeeded, r.Failed, executions)
	}
	for _, l := range r.Locks {
		if l.Count != 0 || len(l.Holders) != 0 {
			t.Errorf("lock item %q after the run: count %d, holders %v; want none held", l.Name, l.Count, l.Holders)
		}
	}
	return res
}

// TestRateDelayKeepsTheBound runs 200 executions through a limit of 10 and a Rate of 2 a
// second (Delay): the work (1 s) would let 10 a second in, so the rate binds. The permits never
// exceed the GCRA bound in any window, no execution enters before its permit, entries stay
// within the bound of a window one second longer (AWS waits to the second), nothing is
// rejected, and the entry rate is the rate.
func TestRateDelayKeepsTheBound(t *testing.T) {
	for _, strategy := range []semaphore.WaitStrategy{semaphore.WaitPoll, semaphore.WaitCallback} {
		t.Run(string(strategy), func(t *testing.T) {
			cfg := demo.DefaultConfig()
			cfg.Limit, cfg.WorkDuration, cfg.FailureRate, cfg.WaitStrategy = 10, time.Second, 0.1, strategy
			cfg.Rate = &semaphore.Rate{PerSecond: 2}
			res := runRate(t, cfg, 200, 11)
			f := res.Rate
			if f.Permits != 200 || f.Rejected != 0 {
				t.Errorf("%d permits, %d rejected; want 200 and 0 in Delay mode", f.Permits, f.Rejected)
			}
			// The bound is nearly tight: with a backlog the gate grants R·W permits a window,
			// and the burst once.
			if w := f.Windows[1]; w.MaxPermits < w.Bound-1 {
				t.Errorf("at most %d permits in a %gs window, want the bound %d: the rate does not bind", w.MaxPermits, w.Seconds, w.Bound)
			}
			if f.EntriesPerSecond < 1.9 || f.EntriesPerSecond > 2.01 {
				t.Errorf("%.3f entries a second, want 2", f.EntriesPerSecond)
			}
			if res.Report.MaxConcurrentWork > cfg.Limit {
				t.Errorf("%d executions worked at once, above the limit %d", res.Report.MaxConcurrentWork, cfg.Limit)
			}
		})
	}
}

// TestRateRejectGivesTheSlotBack runs executions at once through a Rate of 2 a second with a
// burst of 3 (Reject): those the rate refuses fail with Turnstile.RateLimited, and the lock
// settles with no slot held.
func TestRateRejectGivesTheSlotBack(t *testing.T) {
	cfg := demo.DefaultConfig()
	cfg.Limit, cfg.WorkDuration, cfg.FailureRate = 10, time.Second, 0
	cfg.Rate = &semaphore.Rate{PerSecond: 2, Burst: 3, Mode: semaphore.RateReject}
	res := runRate(t, cfg, 60, 13)
	r, f := res.Report, res.Rate
	if f.Rejected == 0 || f.Permits == 0 || f.Permits+f.Rejected != 60 {
		t.Errorf("%d permits and %d rejected of 60; want both, adding up", f.Permits, f.Rejected)
	}
	if r.FailedByError[machines.ErrorRateLimited] != f.Rejected || r.Failed != f.Rejected {
		t.Errorf("failures %v; want exactly the %d rejections, as %s", r.FailedByError, f.Rejected, machines.ErrorRateLimited)
	}
	if r.FailedByError[work.ErrorNameWorkFailed] != 0 {
		t.Errorf("the work failed %d times with a failure rate of 0", r.FailedByError[work.ErrorNameWorkFailed])
	}
}
