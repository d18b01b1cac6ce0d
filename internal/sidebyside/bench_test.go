package sidebyside

import (
	"testing"
)

// BenchmarkOursFlow runs the workload without I/O in the emulator, 1,000 executions 10 at a
// time per iteration, as go run ./cmd/sidebyside does; for profiling (-cpuprofile).
func BenchmarkOursFlow(b *testing.B) {
	load := Load{Executions: 1000, Concurrency: 10}
	executions := 0
	for b.Loop() {
		if _, err := RunOurs(b.Context(), Flow(), load); err != nil {
			b.Fatal(err)
		}
		executions += load.Executions
	}
	b.ReportMetric(float64(executions)/b.Elapsed().Seconds(), "executions/s")
}
