//go:build unix

package simulate

import (
	"context"
	"flag"
	"syscall"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/cmd/app/demo"
)

var scaleExecutions = flag.Int("executions", 2000, "BenchmarkScale: executions through a limit of 100")

// cpuTime is the CPU time (user and system) of this process (who: syscall.RUSAGE_SELF) or of its
// children that have ended (syscall.RUSAGE_CHILDREN).
func cpuTime(tb testing.TB, who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkScale runs `turnstile simulate --executions 2000 --limit 100 --work-time 1s
// --failure-rate 0` (the demo app synthesized once, outside the timing) and reports the wall
// time and the CPU per execution of this process and of DynamoDB Local, the child it starts and
// waits for (the stack's start and end included: about 2 ms of each per execution at 2,000).
// `turnstile simulate` sets GOGC=400 and GOMAXPROCS=1 unless they are set: give them to measure
// what it does. With -cpuprofile it shows where the emulator's CPU goes:
//
//	GOGC=400 GOMAXPROCS=1 go test -run '^$' -bench Scale -benchtime 1x -cpuprofile cpu.out ./internal/simulate -args -executions 2000
func BenchmarkScale(b *testing.B) {
	cfg := demo.DefaultConfig()
	cfg.Limit, cfg.WorkDuration, cfg.FailureRate = 100, time.Second, 0
	dir := b.TempDir()
	if err := Synthesize(dir, cfg); err != nil {
		b.Fatal(err)
	}
	n := *scaleExecutions
	var wall, self, children time.Duration
	for b.Loop() {
		self0, children0, start := cpuTime(b, syscall.RUSAGE_SELF), cpuTime(b, syscall.RUSAGE_CHILDREN), time.Now()
		res, err := Run(context.Background(), Scenario{CDKOut: dir, Executions: n, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		if res.Report.Succeeded != n {
			b.Fatalf("%d of %d executions succeeded: %v", res.Report.Succeeded, n, res.Report.FailedByError)
		}
		wall += time.Since(start)
		self += cpuTime(b, syscall.RUSAGE_SELF) - self0
		children += cpuTime(b, syscall.RUSAGE_CHILDREN) - children0
	}
	runs := float64(b.N)
	perExecution := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / runs / float64(n) }
	b.ReportMetric(wall.Seconds()/runs, "wall-s")
	b.ReportMetric(perExecution(self), "go-cpu-ms/exec")
	b.ReportMetric(perExecution(children), "ddblocal-cpu-ms/exec")
}
