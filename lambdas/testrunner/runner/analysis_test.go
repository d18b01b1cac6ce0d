package runner

import (
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/turnstile-sfn/turnstile/lock"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func at(sec float64) *time.Time {
	t := t0.Add(time.Duration(sec * float64(time.Second)))
	return &t
}

func entered(sec float64, typ types.HistoryEventType, name string) types.HistoryEvent {
	return types.HistoryEvent{Type: typ, Timestamp: at(sec), StateEnteredEventDetails: &types.StateEnteredEventDetails{Name: aws.String(name)}}
}

func exited(sec float64, typ types.HistoryEventType, name string) types.HistoryEvent {
	return types.HistoryEvent{Type: typ, Timestamp: at(sec), StateExitedEventDetails: &types.StateExitedEventDetails{Name: aws.String(name)}}
}

func scheduled(sec float64, resourceType string) types.HistoryEvent {
	return types.HistoryEvent{Type: types.HistoryEventTypeTaskScheduled, Timestamp: at(sec),
		TaskScheduledEventDetails: &types.TaskScheduledEventDetails{ResourceType: aws.String(resourceType)}}
}

// history builds the events of an execution that acquires (after one failed attempt), works
// from workFrom to workTo, releases and ends.
func history(start, workFrom, workTo float64, fail bool) []types.HistoryEvent {
	ev := []types.HistoryEvent{
		{Type: types.HistoryEventTypeExecutionStarted, Timestamp: at(start)},
		entered(start, types.HistoryEventTypeTaskStateEntered, "Acquire"),
		scheduled(start, "dynamodb"),
		scheduled(start+0.5, "dynamodb"), // a retry
		exited(workFrom, types.HistoryEventTypeTaskStateExited, "Acquire"),
		entered(workFrom, types.HistoryEventTypeParallelStateEntered, DefaultWorkState),
		entered(workFrom, types.HistoryEventTypeTaskStateEntered, "Do work"),
		scheduled(workFrom, "lambda"),
	}
	if fail {
		ev = append(ev, types.HistoryEvent{Type: types.HistoryEventTypeParallelStateFailed, Timestamp: at(workTo)})
	} else {
		ev = append(ev, exited(workTo, types.HistoryEventTypeParallelStateExited, DefaultWorkState))
	}
	ev = append(ev,
		entered(workTo, types.HistoryEventTypeTaskStateEntered, DefaultReleaseStates[1]),
		scheduled(workTo, "dynamodb"),
		exited(workTo+0.1, types.HistoryEventTypeTaskStateExited, DefaultReleaseStates[1]),
	)
	if fail {
		return append(ev, types.HistoryEvent{Type: types.HistoryEventTypeExecutionFailed, Timestamp: at(workTo + 0.2),
			ExecutionFailedEventDetails: &types.ExecutionFailedEventDetails{Error: aws.String("WorkFailed")}})
	}
	return append(ev, types.HistoryEvent{Type: types.HistoryEventTypeExecutionSucceeded, Timestamp: at(workTo + 0.2)})
}

func TestTraceOf(t *testing.T) {
	got := traceOf("arn:x", history(0, 2, 5, true), DefaultWorkState, DefaultReleaseStates)
	if got.Status != "FAILED" || got.Error != "WorkFailed" {
		t.Errorf("status, error = %s, %s; want FAILED, WorkFailed", got.Status, got.Error)
	}
	if !got.WorkStarted.Equal(*at(2)) || !got.WorkEnded.Equal(*at(5)) || !got.Released.Equal(*at(5.1)) {
		t.Errorf("work [%v, %v] released %v; want [2s, 5s] 5.1s", got.WorkStarted, got.WorkEnded, got.Released)
	}
	// 4 states entered plus one acquire retry.
	if got.Transitions != 5 {
		t.Errorf("Transitions = %d, want 5", got.Transitions)
	}
	if got.DynamoDBRequests != 3 {
		t.Errorf("DynamoDBRequests = %d, want 3", got.DynamoDBRequests)
	}
}

func TestReportOverlapWaitsAndHandOff(t *testing.T) {
	traces := []*Trace{
		traceOf("a", history(0, 0, 10, false), DefaultWorkState, DefaultReleaseStates),
		traceOf("b", history(0, 0, 10, true), DefaultWorkState, DefaultReleaseStates),
		traceOf("c", history(1, 10.3, 20, false), DefaultWorkState, DefaultReleaseStates), // waits for a slot
		traceOf("d", history(1, 10.1, 15, false), DefaultWorkState, DefaultReleaseStates),
	}
	r := newReport(Config{StateMachineArn: "arn:sm"}, traces)
	if r.Started != 4 || r.Succeeded != 3 || r.Failed != 1 || r.FailedByError["WorkFailed"] != 1 {
		t.Errorf("counts = %d/%d/%d %v", r.Started, r.Succeeded, r.Failed, r.FailedByError)
	}
	if r.MaxConcurrentWork != 2 {
		t.Errorf("MaxConcurrentWork = %d, want 2", r.MaxConcurrentWork)
	}
	if want := 20.2; r.MakespanSeconds != want {
		t.Errorf("MakespanSeconds = %v, want %v", r.MakespanSeconds, want)
	}
	// Both releases at 10.1 left waiters; d enters at the same instant (0 s) and c 0.2 s later.
	if r.HandOff.Count != 2 || !near(r.HandOff.P50, 0) || !near(r.HandOff.Max, 0.2) {
		t.Errorf("HandOff = %+v, want samples 0 s and 0.2 s", r.HandOff)
	}
	if r.WaitForSlot.Count != 4 || !near(r.WaitForSlot.Max, 9.3) {
		t.Errorf("WaitForSlot = %+v, want 4 samples, max 9.3 s", r.WaitForSlot)
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestMaxOverlapTouchingIntervalsDoNotOverlap(t *testing.T) {
	traces := []*Trace{
		{WorkStarted: *at(0), WorkEnded: *at(1)},
		{WorkStarted: *at(1), WorkEnded: *at(2)},
		{WorkStarted: *at(1.5), WorkEnded: *at(3)},
	}
	if got := MaxOverlap(traces); got != 2 {
		t.Errorf("MaxOverlap = %d, want 2", got)
	}
}

func TestStatsPercentiles(t *testing.T) {
	var samples []time.Duration
	for i := 1; i <= 100; i++ {
		samples = append(samples, time.Duration(i)*time.Second)
	}
	got := StatsOf(samples)
	want := Stats{Count: 100, Mean: 50.5, P50: 50, P99: 99, Max: 100}
	if got != want {
		t.Errorf("statsOf = %+v, want %+v", got, want)
	}
	if (StatsOf(nil) != Stats{}) {
		t.Error("StatsOf(nil) is not zero")
	}
}

func TestLockItemOf(t *testing.T) {
	st := lock.State{Count: 1, Holders: []lock.Holder{{Execution: "arn:exec:a"}, {Execution: "arn:exec:b"}}, Waiters: []lock.Waiter{{Ticket: 3, Execution: "arn:exec:c"}}}
	got := lockItemOf("MySemaphore", st)
	if got.Name != "MySemaphore" || got.Count != 1 || len(got.Holders) != 2 || got.Holders[0] != "arn:exec:a" || len(got.Waiting) != 1 {
		t.Errorf("lockItemOf = %+v", got)
	}
	if got.Leaked() != 2 {
		t.Errorf("Leaked = %d, want 2 (counter and holders disagree)", got.Leaked())
	}
}

func TestConfigDefaultsAndErrors(t *testing.T) {
	got, err := Config{StateMachineArn: "arn:aws:states:us-east-1:1:stateMachine:x"}.withDefaults(t0)
	if err != nil {
		t.Fatal(err)
	}
	if in, err := got.input(7); got.Executions != DefaultExecutions || got.StartConcurrency != DefaultStartConcurrency || in != `{"index": 7}` || err != nil {
		t.Errorf("defaults = %+v, input(7) = %s, %v", got, in, err)
	}
	bad := []Config{
		{},
		{StateMachineArn: "not-an-arn"},
		{StateMachineArn: "arn:x", Executions: -1},
		{StateMachineArn: "arn:x", InputTemplate: "{oops"},
		{StateMachineArn: "arn:x", LockNamePath: "$.tenant"},
		{StateMachineArn: "arn:x", Keys: []string{"a"}},
		{StateMachineArn: "arn:x", LockNamePath: "$['tenant']", Keys: []string{"a"}},
		{StateMachineArn: "arn:x", LockNamePath: "$.tenant", Keys: []string{"a"}, InputTemplate: "[1]"},
		{StateMachineArn: "arn:x", LockNamePath: "$.job.tenant", Keys: []string{"a"}, InputTemplate: `{"job": 3}`},
		{StateMachineArn: "arn:x", MoreLockNamePaths: []string{"$.region"}},
		{StateMachineArn: "arn:x", LockNamePath: "$.tenant", MoreLockNamePaths: []string{"$.jobs[0].region"}, Keys: []string{"a"}},
	}
	for _, c := range bad {
		if _, err := c.withDefaults(t0); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("withDefaults(%+v) = %v, want ErrInvalidConfig", c, err)
		}
	}
}

func TestInputsSpreadOverKeys(t *testing.T) {
	cfg, err := Config{
		StateMachineArn:   "arn:aws:states:us-east-1:1:stateMachine:x",
		InputTemplate:     `{"n": {{index}}, "job": {"size": 2}}`,
		LockNamePath:      "$.job.tenant",
		MoreLockNamePaths: []string{"$.region"},
		Keys:              []string{"a", "b", "c"},
	}.withDefaults(t0)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{
		`{"job":{"size":2,"tenant":"a"},"n":0,"region":"a"}`,
		`{"job":{"size":2,"tenant":"b"},"n":1,"region":"b"}`,
		`{"job":{"size":2,"tenant":"c"},"n":2,"region":"c"}`,
		`{"job":{"size":2,"tenant":"a"},"n":3,"region":"a"}`,
	} {
		got, err := cfg.input(i)
		if err != nil || got != want {
			t.Errorf("input(%d) = %s, %v; want %s", i, got, err, want)
		}
	}
}

func TestMaxConcurrentWorkByKey(t *testing.T) {
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	trace := func(key string, from, to int) *Trace {
		return &Trace{Key: key, Status: "SUCCEEDED", Started: at(0), Ended: at(to), WorkStarted: at(from), WorkEnded: at(to)}
	}
	// a: two at once; b: never two at once; together three at once.
	traces := []*Trace{trace("a", 0, 10), trace("a", 5, 15), trace("b", 6, 8), trace("b", 9, 12)}
	r := newReport(Config{Keys: []string{"a", "b"}}, traces)
	if r.MaxConcurrentWork != 3 || r.MaxConcurrentWorkByKey["a"] != 2 || r.MaxConcurrentWorkByKey["b"] != 1 {
		t.Errorf("MaxConcurrentWork = %d, by key %v; want 3, a 2, b 1", r.MaxConcurrentWork, r.MaxConcurrentWorkByKey)
	}
	if r := newReport(Config{}, traces); r.MaxConcurrentWorkByKey != nil {
		t.Errorf("without keys MaxConcurrentWorkByKey = %v, want nil", r.MaxConcurrentWorkByKey)
	}
}
