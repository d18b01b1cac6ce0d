package test

import (
	"testing"

	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/cmd/app/demo"
	"github.com/turnstile-sfn/turnstile/constructs/semaphore"
	"github.com/turnstile-sfn/turnstile/internal/simulate"
)

// runWeighted runs the demo with weighted permits (limit 8) on the skipping clock (runSettled).
func runWeighted(t *testing.T, sc simulate.Scenario) *simulate.Result {
	t.Helper()
	return runSettled(t, weightedDemo(), sc, 23)
}

// weightedDemo is the demo with weighted permits of runWeighted.
func weightedDemo() demo.Config {
	cfg := demo.DefaultConfig()
	cfg.Limit, cfg.FailureRate, cfg.WaitStrategy, cfg.Weighted = 8, 0, semaphore.WaitCallback, true
	return cfg
}

// TestWeightsNeverExceedTheLimit: 60 executions of weights 1, 3, 4 and 7 in turn on a lock of
// 8: at no moment is the weight inside the work above 8, and it reaches 8; all succeed.
func TestWeightsNeverExceedTheLimit(t *testing.T) {
	res := runWeighted(t, simulate.Scenario{Executions: 60, Weights: []int{1, 3, 4, 7}})
	r := res.Report
	t.Logf("most weight %d, most executions %d, makespan over ideal %.2f", r.MaxConcurrentWeight, r.MaxConcurrentWork, res.MakespanOverIdeal)
	if r.MaxConcurrentWeight > 8 || r.MaxConcurrentWeight < 7 {
		t.Errorf("most weight inside the work = %d, want 7 or 8 (never above the limit)", r.MaxConcurrentWeight)
	}
	if r.Succeeded != 60 {
		t.Errorf("%d of 60 succeeded", r.Succeeded)
	}
}

// TestInvalidWeightFails: a weight out of range or not a number fails with
// Turnstile.InvalidWeight before the execution waits.
func TestInvalidWeightFails(t *testing.T) {
	cdkOut := synthesized(t, weightedDemo()) // one synth for the two runs
	for _, input := range []string{`{"slots": 9}`, `{"slots": "2"}`} {
		res := runWeighted(t, simulate.Scenario{CDKOut: cdkOut, Executions: 3, Input: input, ExpectErrors: []string{machines.ErrorInvalidWeight}})
		if n := res.Report.FailedByError[machines.ErrorInvalidWeight]; n != 3 || res.Report.Failed != 3 {
			t.Errorf("%s: %d of %d failures with %s, want 3 of 3 (%v)", input, n, res.Report.Failed, machines.ErrorInvalidWeight, res.Report.FailedByError)
		}
	}
}
