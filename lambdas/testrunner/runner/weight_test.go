package runner

import (
	"testing"
	"time"
)

func TestInputsCarryTheWeights(t *testing.T) {
	cfg, err := Config{StateMachineArn: "arn:aws:states:us-east-1:1:stateMachine:x", WeightPath: "$.slots", Weights: []int{1, 3}}.withDefaults(t0)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{`{"index":0,"slots":1}`, `{"index":1,"slots":3}`, `{"index":2,"slots":1}`} {
		if got, err := cfg.input(i); err != nil || got != want {
			t.Errorf("input(%d) = %s, %v; want %s", i, got, err, want)
		}
	}
	if _, err := (Config{StateMachineArn: "arn:x", Weights: []int{2}}).withDefaults(t0); err == nil {
		t.Error("weights without a path: no error")
	}
}

// TestWeightedOverlap: a (3) from 0 to 10, b (2) from 5 to 15, c (unweighted) from 6 to 8:
// three executions, weight 6, at once; 3·10 + 2·10 + 2 slot-seconds of work.
func TestWeightedOverlap(t *testing.T) {
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	trace := func(w, from, to int) *Trace {
		return &Trace{Weight: w, Status: "SUCCEEDED", Started: at(0), Ended: at(to), WorkStarted: at(from), WorkEnded: at(to)}
	}
	r := newReport(Config{}, []*Trace{trace(3, 0, 10), trace(2, 5, 15), trace(0, 6, 8)})
	if r.MaxConcurrentWork != 3 || r.MaxConcurrentWeight != 6 || r.WeightedWorkSeconds != 52 {
		t.Errorf("work %d, weight %d, weighted seconds %g; want 3, 6, 52", r.MaxConcurrentWork, r.MaxConcurrentWeight, r.WeightedWorkSeconds)
	}
	if r := newReport(Config{}, []*Trace{trace(0, 0, 10)}); r.MaxConcurrentWeight != 0 || r.WeightedWorkSeconds != 0 {
		t.Errorf("without weights: %d, %g", r.MaxConcurrentWeight, r.WeightedWorkSeconds)
	}
}
