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

// BenchmarkOursSemaphore runs the semaphore workload in the emulator against DynamoDB Local,
// 300 executions 5 at a time per iteration; for profiling (-cpuprofile).
func BenchmarkOursSemaphore(b *testing.B) {
	const limit = 5
	load := Load{Executions: 300, Concurrency: limit}
	executions := 0
	for b.Loop() {
		w, err := Semaphore(server.Endpoint, server.CreateLockTable(b), limit)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := RunOurs(b.Context(), w, load); err != nil {
			b.Fatal(err)
		}
		executions += load.Executions
	}
	b.ReportMetric(float64(executions)/b.Elapsed().Seconds(), "executions/s")
}
