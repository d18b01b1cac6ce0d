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
