package emulator

import (
	"context"
	"testing"
	"time"
)

// benchmarkMachine is a small machine of six state transitions: data flow, a choice, a wait, an
// intrinsic function and a task.
const benchmarkMachine = `{"StartAt":"Prepare","States":{
"Prepare":{"Type":"Pass","Parameters":{"order.$":"$.order","id.$":"States.Format('order-{}', $.order)"},"Next":"Route"},
"Route":{"Type":"Choice","Choices":[{"Variable":"$.order","NumericGreaterThan":0,"Next":"Pause"}],"Default":"Reject"},
"Pause":{"Type":"Wait","Seconds":15,"Next":"Work"},
"Work":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"Payload.$":"$"},"ResultPath":"$.work",
 "Retry":[{"ErrorEquals":["States.ALL"],"MaxAttempts":2}],"Next":"Check"},
"Check":{"Type":"Pass","OutputPath":"$.work","Next":"Done"},
"Done":{"Type":"Succeed"},
"Reject":{"Type":"Fail","Error":"Order.Invalid"}}}`

const benchmarkTransitions = 6

// BenchmarkExecutions runs 1,000 executions of a small machine at time scale 0 per iteration and
// reports executions and state transitions per second.
func BenchmarkExecutions(b *testing.B) {
	const executions = 1000
	em := newEmulator(b, 0, newFake().handle("arn:aws:states:::lambda:invoke", returning(map[string]any{"ok": true})))
	arn := create(b, em, benchmarkMachine)
	ctx := context.Background()
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		arns := make([]string, executions)
		for i := range executions {
			s, err := em.StartExecution(ctx, arn, "", `{"order":7}`)
			if err != nil {
				b.Fatal(err)
			}
			arns[i] = s.ExecutionArn
		}
		for _, a := range arns {
			d, err := em.Wait(ctx, a)
			if err != nil || d.Status != StatusSucceeded {
				b.Fatalf("%v %s %s", err, d.Status, deref(d.Cause))
			}
		}
	}
	elapsed := time.Since(start).Seconds()
	total := float64(b.N * executions)
	b.ReportMetric(total/elapsed, "executions/s")
	b.ReportMetric(total*benchmarkTransitions/elapsed, "transitions/s")
}

// manyExecutionsMachine does 1 s of work in a Lambda task, then waits 1 s: the shape of the
// work behind a semaphore, without the lock.
const manyExecutionsMachine = `{"StartAt":"Work","States":{
"Work":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"Payload.$":"$"},"ResultPath":"$.work","Next":"Pause"},
"Pause":{"Type":"Wait","Seconds":1,"Next":"Done"},
"Done":{"Type":"Succeed"}}}`

// BenchmarkManyExecutions starts 10,000 executions at one virtual instant per iteration, each
// working 1 s (a Lambda task sleeping on the clock) and waiting 1 s, under a skipping clock with
// the latency model on, and reports the wall time of the 10,000 and executions per second.
func BenchmarkManyExecutions(b *testing.B) {
	const executions = 10000
	clock := NewSkippingClock(testStart, 42)
	work := func(ctx context.Context, _ *TaskCall) (any, error) {
		return map[string]any{"ok": true}, clock.Sleep(ctx, time.Second)
	}
	em := New(Options{Clock: clock, Seed: 42, Latency: NewLatency(42)})
	em.RegisterIntegration(newFake().handle("arn:aws:states:::lambda:invoke", work))
	b.Cleanup(func() { _ = em.Close() })
	arn := create(b, em, manyExecutionsMachine)
	ctx := context.Background()
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		// Every execution starts at one virtual instant: time stands still until all have.
		release := clock.Hold()
		arns := make([]string, executions)
		for i := range executions {
			s, err := em.StartExecution(ctx, arn, "", `{"order":7}`)
			if err != nil {
				b.Fatal(err)
			}
			arns[i] = s.ExecutionArn
		}
		release()
		for _, a := range arns {
			d, err := em.Wait(ctx, a)
			if err != nil || d.Status != StatusSucceeded {
				b.Fatalf("%v %s %s", err, d.Status, deref(d.Cause))
			}
		}
	}
	elapsed := time.Since(start).Seconds()
	b.ReportMetric(elapsed/float64(b.N), "s/10k-executions")
	b.ReportMetric(float64(b.N*executions)/elapsed, "executions/s")
}
