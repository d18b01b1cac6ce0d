package test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/cmd/app/demo"
	"github.com/turnstile-sfn/turnstile/constructs/semaphore"
	"github.com/turnstile-sfn/turnstile/internal/simulate"
	"github.com/turnstile-sfn/turnstile/lambdas/dowork/work"
	"github.com/turnstile-sfn/turnstile/lambdas/testrunner/runner"
)

// TestOriginalDemoNeverExceedsTheLimitAndLeaksNothing runs the original demo on the synthesized
// stack with the Poll strategy: executions through a semaphore of limit 5, each working 15 s and
// failing one time in ten; 100 as in the original with -large (make bench), 40 in make test
// (the cost of polling grows with the waiters times the makespan: 100 took two minutes under
// -race; TestCallbackDemoIsFIFOAndLeaksNothing runs the 100 with the default strategy).
func TestOriginalDemoNeverExceedsTheLimitAndLeaksNothing(t *testing.T) {
	cfg := demo.DefaultConfig()
	cfg.WaitStrategy = semaphore.WaitPoll
	checkDemo(t, cfg, sized(40, 100), 1)
}

// TestSmallDemoWithManyFailures runs a smaller semaphore with more failures.
func TestSmallDemoWithManyFailures(t *testing.T) {
	cfg := demo.DefaultConfig()
	cfg.Limit, cfg.WorkDuration, cfg.FailureRate = 3, 4*time.Second, 0.3
	checkDemo(t, cfg, 24, 7)
}

// TestCallbackDemoIsFIFOAndLeaksNothing runs the original demo with the default (Callback)
// wait strategy: waiters park in the lock's queue and are woken, oldest first, by the releases.
func TestCallbackDemoIsFIFOAndLeaksNothing(t *testing.T) {
	cfg := demo.DefaultConfig()
	if cfg.WaitStrategy != semaphore.WaitCallback {
		t.Fatalf("the demo waits with %q by default, want %q", cfg.WaitStrategy, semaphore.WaitCallback)
	}
	r := checkDemo(t, cfg, 100, 3)
	t.Logf("queued %d, admitted from the queue %d, out of order %d, left %d; hand-off p50 %.3fs p99 %.3fs",
		r.Queued, r.AdmittedFromQueue, r.AdmissionOrderInversions, r.WaitersLeft, r.HandOff.P50, r.HandOff.P99)
	// Nearly every execution finds the lock full and queues. Admission order is checked by
	// Violations; a waiter whose wake-up was lost (a hand-off function that timed out between
	// its write and SendTaskSuccess) finds its slot itself and carries no admission number.
	if r.Queued < 90 || r.AdmittedFromQueue == 0 {
		t.Errorf("%d executions queued and %d were admitted from the queue; want at least 90 queued", r.Queued, r.AdmittedFromQueue)
	}
}

// TestCallbackDemoUnderFaults runs the Callback demo through the soak's faults: DynamoDB
// requests applied with their reply lost (5 %) or lost before they arrive (2.5 %), status-change
// events dropped (5 %) and duplicated (30 %). Never over the limit, nothing leaked or left in the
// queue, in ticket order.
func TestCallbackDemoUnderFaults(t *testing.T) {
	cfg := demo.DefaultConfig()
	cfg.WorkDuration, cfg.FailureRate = 5*time.Second, 0.2
	faults := simulate.Faults{DropEvents: 0.05, DupEvents: 0.3}
	faults.DynamoDB.AppliedReplyLost, faults.DynamoDB.LostBefore = 0.05, 0.025
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := simulate.Run(ctx, simulate.Scenario{DynamoDB: database.Local, Demo: &cfg, Executions: 60, TimeScale: simulate.DefaultTimeScale, Seed: 5, Faults: faults})
	if err != nil {
		t.Fatalf("simulate.Run: %v", err)
	}
	r := res.Report
	t.Logf("faults %+v; failed %v; max %d; queued %d, admitted %d, out of order %d, left %d",
		res.Faults, r.FailedByError, r.MaxConcurrentWork, r.Queued, r.AdmittedFromQueue, r.AdmissionOrderInversions, r.WaitersLeft)
	for _, v := range res.Violations() {
		t.Errorf("violation: %s", v)
	}
	if res.Faults.DynamoDB.AppliedReplyLost == 0 || res.Faults.DynamoDB.LostBefore == 0 {
		t.Errorf("no DynamoDB fault was injected: %+v", res.Faults.DynamoDB)
	}
	if r.Started != 60 || r.Succeeded+r.Failed != 60 || r.Succeeded == 0 {
		t.Errorf("started %d, succeeded %d, failed %d; want 60 ended, some succeeded", r.Started, r.Succeeded, r.Failed)
	}
	if len(r.Locks) != 1 || r.Locks[0].Count != 0 || len(r.Locks[0].Holders) != 0 {
		t.Errorf("lock items after the run = %+v, want count 0 and no holders", r.Locks)
	}
}

// TestSkippingClockReplaysARun runs one seed twice on the clock that skips time: the reports,
// every execution's virtual timings included, are the same; only the real time differs. 20
// executions on 5 slots (40 with -large) queue, fail and hand off enough to diverge if anything
// real-time leaked into a run.
func TestSkippingClockReplaysARun(t *testing.T) {
	cfg := demo.DefaultConfig()
	cfg.WorkDuration, cfg.FailureRate = 5*time.Second, 0.2
	run := func() []byte {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		res, err := simulate.Run(ctx, simulate.Scenario{DynamoDB: database.Local, Demo: &cfg, Executions: sized(20, 40), Seed: 9})
		if err != nil {
			t.Fatalf("simulate.Run: %v", err)
		}
		res.WallSeconds, res.RunSeconds = 0, 0
		out, err := json.MarshalIndent(res, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	first, second := run(), run()
	if !bytes.Equal(first, second) {
		a, b := strings.Split(string(first), "\n"), strings.Split(string(second), "\n")
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				t.Fatalf("two runs of seed 9 differ at line %d of their reports: %q, then %q", i+1, a[i], b[i])
			}
		}
		t.Fatalf("two runs of seed 9 differ in length: %d, then %d lines", len(a), len(b))
	}
}

// checkDemo runs executions of the demo app built from cfg and checks the semaphore's promises.
func checkDemo(t *testing.T, cfg demo.Config, executions int, seed uint64) *runner.Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := simulate.Run(ctx, simulate.Scenario{DynamoDB: database.Local, Demo: &cfg, Executions: executions, TimeScale: simulate.DefaultTimeScale, Seed: seed})
	if err != nil {
		t.Fatalf("simulate.Run: %v", err)
	}
	r := res.Report
	t.Logf("started %d, succeeded %d, failed %v, max overlap %d, makespan %.1fs (ideal %.1fs), leaked %d",
		r.Started, r.Succeeded, r.FailedByError, r.MaxConcurrentWork, r.MakespanSeconds, res.IdealMakespanSeconds, r.LeakedSlots)
	if v := res.Violations(); len(v) > 0 {
		t.Errorf("violations: %v", v)
	}
	if len(res.UnexpectedFailures) > 0 {
		t.Errorf("executions failed with errors the scenario did not inject: %v", res.UnexpectedFailures)
	}
	if r.Started != executions || r.Succeeded+r.Failed != executions {
		t.Errorf("started %d, succeeded %d, failed %d; want %d in all", r.Started, r.Succeeded, r.Failed, executions)
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
		t.Errorf("no execution failed with a failure rate of %g over %d executions", cfg.FailureRate, executions)
	}
	if len(r.Locks) != 1 || r.Locks[0].Name != cfg.LockName || r.Locks[0].Count != 0 || len(r.Locks[0].Holders) != 0 {
		t.Errorf("lock items after the run = %+v, want one %s item with count 0 and no holders", r.Locks, cfg.LockName)
	}
	return r
}
