package test

import (
	"context"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/cmd/app/demo"
	"github.com/turnstile-sfn/turnstile/internal/simulate"
)

// BenchmarkDemo runs the original demo (100 executions, limit 5, 15 s of work failing 10 %) at
// the default time scale and reports its figures: the makespan against the ideal, the cost per
// execution, the hand-off of a freed slot, and the wall time, averaged over the iterations
// (run it with -benchtime=3x: each iteration uses its own seed).
func BenchmarkDemo(b *testing.B) {
	var sum struct{ ratio, transitions, requests, p50, p99, working, failed, wall float64 }
	for i := 0; i < b.N; i++ {
		res, err := simulate.Run(context.Background(), simulate.Scenario{DynamoDB: database.Local, Executions: 100, TimeScale: simulate.DefaultTimeScale, Seed: uint64(i + 1)})
		if err != nil {
			b.Fatal(err)
		}
		if v := res.Violations(); len(v) > 0 {
			b.Fatalf("violations: %v", v)
		}
		r := res.Report
		sum.ratio += res.MakespanOverIdeal
		sum.transitions += r.TransitionsPerExecution
		sum.requests += r.DynamoDBRequestsPerExecution
		sum.p50 += r.HandOff.P50
		sum.p99 += r.HandOff.P99
		sum.working += float64(r.MaxConcurrentWork)
		sum.failed += float64(r.Failed)
		sum.wall += res.WallSeconds
	}
	n := float64(b.N)
	b.ReportMetric(sum.ratio/n, "makespan/ideal")
	b.ReportMetric(sum.transitions/n, "transitions/exec")
	b.ReportMetric(sum.requests/n, "ddb-requests/exec")
	b.ReportMetric(sum.p50/n, "handoff-p50-s")
	b.ReportMetric(sum.p99/n, "handoff-p99-s")
	b.ReportMetric(sum.working/n, "max-working")
	b.ReportMetric(sum.failed/n, "failed")
	b.ReportMetric(sum.wall/n, "wall-s")
}

// BenchmarkSemaphoreThroughput measures how fast the emulator runs the synthesized semaphore
// machine: 1,000 executions of instant work through a limit of 50, on the skipping clock, so
// that the real cost of each step, however long, adds no virtual time to the executions.
func BenchmarkSemaphoreThroughput(b *testing.B) {
	cfg := demo.DefaultConfig()
	cfg.Limit, cfg.WorkDuration, cfg.FailureRate = 50, 0, 0
	for i := 0; i < b.N; i++ {
		res, err := simulate.Run(context.Background(), simulate.Scenario{DynamoDB: database.Local, Demo: &cfg, Executions: 1000, StartConcurrency: 50, TimeScale: simulate.DefaultTimeScale, Seed: uint64(i + 1)})
		if err != nil {
			b.Fatal(err)
		}
		r := res.Report
		if r.Succeeded != 1000 {
			b.Fatalf("%d of 1000 executions succeeded: %v", r.Succeeded, r.FailedByError)
		}
		run := time.Duration(res.RunSeconds * float64(time.Second))
		b.ReportMetric(float64(r.Started)/run.Seconds(), "executions/s")
		b.ReportMetric(float64(r.Started)*r.TransitionsPerExecution/run.Seconds(), "transitions/s")
	}
}
