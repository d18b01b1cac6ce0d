package test

import (
	"context"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/cmd/app/demo"
	"github.com/turnstile-sfn/turnstile/constructs/semaphore"
	"github.com/turnstile-sfn/turnstile/internal/simulate"
)

// runPriorities runs the demo with priorities (ageing step ageing) on the skipping clock.
func runPriorities(t *testing.T, sc simulate.Scenario, ageing int) *simulate.Result {
	t.Helper()
	return runSettled(t, priorityDemo(ageing), sc, 17)
}

// priorityDemo is the demo with priorities of runPriorities.
func priorityDemo(ageing int) demo.Config {
	cfg := demo.DefaultConfig()
	cfg.Limit, cfg.FailureRate, cfg.WaitStrategy, cfg.PriorityAgeing = 5, 0, semaphore.WaitCallback, ageing
	return cfg
}

// synthesized synthesizes the demo of cfg once into a temporary directory, for several runs
// (simulate.Scenario.CDKOut) of a test. Such a run accepts any failure (it cannot know the
// demo's): the test asserts the failures it expects, and that there are no others.
func synthesized(t *testing.T, cfg demo.Config) string {
	t.Helper()
	dir := t.TempDir()
	if err := simulate.Synthesize(dir, cfg); err != nil {
		t.Fatalf("synthesize: %v", err)
	}
	return dir
}

// runSettled runs the demo of cfg with scenario sc on the skipping clock with seed and checks
// what every run must keep: no violation, no unexpected failure, nothing held or queued after
// the run.
func runSettled(t *testing.T, cfg demo.Config, sc simulate.Scenario, seed uint64) *simulate.Result {
	t.Helper()
	sc.Demo, sc.TimeScale, sc.Seed, sc.DynamoDB = &cfg, simulate.DefaultTimeScale, seed, database.Local
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := simulate.Run(ctx, sc)
	if err != nil {
		t.Fatalf("simulate.Run: %v", err)
	}
	if v := res.Violations(); len(v) > 0 {
		t.Errorf("violations: %v", v)
	}
	if len(res.UnexpectedFailures) > 0 {
		t.Errorf("unexpected failures: %v", res.UnexpectedFailures)
	}
	if r := res.Report; r.LeakedSlots != 0 || r.WaitersLeft != 0 {
		t.Errorf("after the run: %d slots held, %d waiters left", r.LeakedSlots, r.WaitersLeft)
	}
	for _, l := range res.Report.Locks {
		if l.Count != 0 || len(l.Holders) != 0 {
			t.Errorf("lock item %q after the run: count %d, holders %v; want none held", l.Name, l.Count, l.Holders)
		}
	}
	return res
}

// TestPrioritiesOvertakeWithinTheBound: 100 executions queue with no priority, the last 20
// with the highest; with an ageing step of 5 a high one overtakes the low ones fewer than 45
// tickets older and no others. Every pair of a low waiter and a later high one is admitted in
// the order the places promise, and both kinds of order occur.
func TestPrioritiesOvertakeWithinTheBound(t *testing.T) {
	res := runPriorities(t, simulate.Scenario{Executions: 100, HighPriority: 20}, 5)
	p := res.Report.Priorities
	if p == nil {
		t.Fatal("the report has no priority figures")
	}
	t.Logf("priorities: %+v", *p)
	if p.AgainstPromise != 0 || res.Report.AdmissionOrderInversions != 0 {
		t.Errorf("%d pairs against the promise, %d admissions out of place order; want 0", p.AgainstPromise, res.Report.AdmissionOrderInversions)
	}
	if p.HigherFirst == 0 || p.AgedFirst == 0 {
		t.Errorf("higher first %d, aged first %d: want both the priorities and the ageing bound at work", p.HigherFirst, p.AgedFirst)
	}
	if res.Report.Succeeded != 100 {
		t.Errorf("%d succeeded, want 100", res.Report.Succeeded)
	}
}

// TestInvalidPriorityFails: a priority out of range, fractional or not a number fails the
// execution with Turnstile.InvalidPriority before it draws a ticket; no priority is the default.
func TestInvalidPriorityFails(t *testing.T) {
	cdkOut := synthesized(t, priorityDemo(10)) // one synth for the five runs
	for _, input := range []string{`{"priority": 10}`, `{"priority": 2.5}`, `{"priority": "9"}`, `{"priority": -1}`} {
		res := runPriorities(t, simulate.Scenario{CDKOut: cdkOut, Executions: 3, Input: input, ExpectErrors: []string{machines.ErrorInvalidPriority}}, 10)
		if n := res.Report.FailedByError[machines.ErrorInvalidPriority]; n != 3 || res.Report.Failed != 3 {
			t.Errorf("%s: %d of %d failures with %s, want 3 of 3 (%v)", input, n, res.Report.Failed, machines.ErrorInvalidPriority, res.Report.FailedByError)
		}
	}
	if res := runPriorities(t, simulate.Scenario{CDKOut: cdkOut, Executions: 8, Input: `{"n": {{index}}}`}, 10); res.Report.Succeeded != 8 {
		t.Errorf("without a priority: %d of 8 succeeded", res.Report.Succeeded)
	}
}
