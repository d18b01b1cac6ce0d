package emulator

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/emulator/sfnapi"
)

func TestRetryDelay(t *testing.T) {
	seconds := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	tests := []struct {
		name    string
		retrier *asl.Retrier
		want    []time.Duration
	}{
		{"defaults: 1 s doubling", &asl.Retrier{}, []time.Duration{seconds(1), seconds(2), seconds(4), seconds(8)}},
		{"the guide's 3 s then 4.5 s", &asl.Retrier{IntervalSeconds: asl.Int(3), BackoffRate: asl.Float(1.5)}, []time.Duration{seconds(3), seconds(4.5)}},
		{"capped by MaxDelaySeconds", &asl.Retrier{IntervalSeconds: asl.Int(2), BackoffRate: asl.Float(3), MaxDelaySeconds: asl.Int(10)},
			[]time.Duration{seconds(2), seconds(6), seconds(10), seconds(10)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for attempt, want := range tt.want {
				if got := retryDelay(tt.retrier, attempt, nil); got != want {
					t.Errorf("attempt %d: got %v, want %v", attempt, got, want)
				}
			}
		})
	}
	t.Run("FULL jitter draws from the seeded source", func(t *testing.T) {
		rt := &asl.Retrier{IntervalSeconds: asl.Int(4), MaxDelaySeconds: asl.Int(20), JitterStrategy: asl.JitterFull}
		rng, mirror := rand.New(rand.NewPCG(7, 9)), rand.New(rand.NewPCG(7, 9))
		for attempt, base := range []float64{4, 8, 16, 20} {
			want := seconds(base * mirror.Float64())
			if got := retryDelay(rt, attempt, rng); got != want || got >= seconds(base) {
				t.Errorf("attempt %d: got %v, want %v (below %v s)", attempt, got, want, base)
			}
		}
	})
}

// failing is a handler that fails with the given error names, one per call, then succeeds.
func failing(names ...string) handlerFunc {
	calls := 0
	return func(context.Context, *TaskCall) (any, error) {
		calls++
		if calls <= len(names) {
			return nil, asl.NewError(names[calls-1], "attempt failed")
		}
		return "done", nil
	}
}

// retryGaps returns the virtual time between each failure and the next attempt's TaskScheduled.
func retryGaps(events []HistoryEvent) []time.Duration {
	var gaps []time.Duration
	var failedAt time.Time
	for _, e := range events {
		switch e.Type {
		case sfnapi.EventTaskFailed, sfnapi.EventTaskTimedOut, sfnapi.EventLambdaFunctionFailed:
			failedAt = e.Timestamp.Time
		case sfnapi.EventTaskScheduled, sfnapi.EventLambdaFunctionScheduled:
			if !failedAt.IsZero() {
				gaps = append(gaps, e.Timestamp.Sub(failedAt))
			}
		}
	}
	return gaps
}

func TestRetryAndCatch(t *testing.T) {
	const resource = "arn:aws:states:::lambda:invoke"
	tests := []struct {
		name       string
		errors     []string // errors of the successive calls, then success
		task       string   // Retry and Catch fields
		wantStatus ExecutionStatus
		wantNext   string // the state after the task, "" when none
		wantCalls  int
		wantGaps   []time.Duration
	}{
		{"backoff with MaxDelaySeconds", []string{"E", "E", "E"},
			`"Retry":[{"ErrorEquals":["E"],"IntervalSeconds":2,"BackoffRate":3,"MaxAttempts":3,"MaxDelaySeconds":10}]`,
			StatusSucceeded, "", 4, []time.Duration{2 * time.Second, 6 * time.Second, 10 * time.Second}},
		{"MaxAttempts 0 never retries", []string{"E"},
			`"Retry":[{"ErrorEquals":["E"],"MaxAttempts":0}]`, StatusFailed, "", 1, nil},
		{"the guide's complex retry scenario", []string{"ErrorA", "ErrorB", "ErrorC", "ErrorB"},
			`"Retry":[{"ErrorEquals":["ErrorA","ErrorB"],"IntervalSeconds":1,"BackoffRate":2.0,"MaxAttempts":2},{"ErrorEquals":["ErrorC"],"IntervalSeconds":5}],
"Catch":[{"ErrorEquals":["States.ALL"],"Next":"Z"}]`,
			StatusSucceeded, "Z", 4, []time.Duration{time.Second, 2 * time.Second, 5 * time.Second}},
		{"first matching catcher wins", []string{"X"},
			`"Catch":[{"ErrorEquals":["Y"],"Next":"Y"},{"ErrorEquals":["X"],"Next":"X"},{"ErrorEquals":["States.ALL"],"Next":"Z"}]`,
			StatusSucceeded, "X", 1, nil},
		{"States.ALL catches the rest", []string{"Other"},
			`"Catch":[{"ErrorEquals":["X"],"Next":"X"},{"ErrorEquals":["States.ALL"],"Next":"Z"}]`,
			StatusSucceeded, "Z", 1, nil},
		{"States.TaskFailed matches any task error", []string{"Custom.Error"},
			`"Catch":[{"ErrorEquals":["States.TaskFailed"],"Next":"X"}]`, StatusSucceeded, "X", 1, nil},
		{"States.TaskFailed does not match States.Timeout", []string{"States.Timeout"},
			`"Catch":[{"ErrorEquals":["States.TaskFailed"],"Next":"X"},{"ErrorEquals":["States.Timeout"],"Next":"Y"}]`,
			StatusSucceeded, "Y", 1, nil},
		{"retry then catch", []string{"E", "E", "E"},
			`"Retry":[{"ErrorEquals":["E"],"MaxAttempts":1}],"Catch":[{"ErrorEquals":["E"],"Next":"X"}]`,
			StatusSucceeded, "X", 2, []time.Duration{time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFake().handle(resource, failing(tt.errors...))
			em := newEmulator(t, 0, fake)
			// The Choice only makes the fallback states reachable, as the definition must.
			done := runMachine(t, em, `{"StartAt":"Start","States":{
"Start":{"Type":"Choice","Choices":[{"Variable":"$.never","IsPresent":true,"Next":"X"},{"Variable":"$.never","IsPresent":true,"Next":"Y"},
{"Variable":"$.never","IsPresent":true,"Next":"Z"}],"Default":"T"},
"T":{"Type":"Task","Resource":"`+resource+`",`+tt.task+`,"End":true},
"X":{"Type":"Pass","End":true},"Y":{"Type":"Pass","End":true},"Z":{"Type":"Pass","End":true}}}`, `{}`)
			if done.Status != tt.wantStatus {
				t.Fatalf("status: got %s (%s), want %s", done.Status, deref(done.Error), tt.wantStatus)
			}
			events := history(t, em, done.ExecutionArn)
			states := enteredStates(events)
			if gotNext := states[len(states)-1]; tt.wantNext != "" && gotNext != tt.wantNext {
				t.Errorf("next state: got %s, want %s", gotNext, tt.wantNext)
			}
			if got := fake.count(resource); got != tt.wantCalls {
				t.Errorf("calls: got %d, want %d", got, tt.wantCalls)
			}
			if gaps := retryGaps(events); !slices.Equal(gaps, tt.wantGaps) {
				t.Errorf("retry delays: got %v, want %v", gaps, tt.wantGaps)
			}
		})
	}
}

func TestRetryCountInContextObject(t *testing.T) {
	const resource = "arn:aws:states:::lambda:invoke"
	fake := newFake().handle(resource, failing("E", "E"))
	em := newEmulator(t, 0, fake)
	done := runMachine(t, em, `{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"`+resource+`",
"Parameters":{"retry.$":"$$.State.RetryCount"},"Retry":[{"ErrorEquals":["E"]}],"End":true}}}`, `{}`)
	want := mustJSON(t, `[{"retry":0},{"retry":1},{"retry":2}]`)
	if got := fake.received(resource); done.Status != StatusSucceeded || !sameJSON(got, want) {
		t.Fatalf("got %s with parameters %s, want SUCCEEDED with %s", done.Status, encodeJSON(got), encodeJSON(want))
	}
}

func TestRuntimeErrorsAreNotCaught(t *testing.T) {
	const resource = "arn:aws:states:::lambda:invoke"
	fake := newFake().handle(resource, returning("never"))
	em := newEmulator(t, 0, fake)
	done := runMachine(t, em, `{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"`+resource+`","Parameters":{"x.$":"$.missing"},
"Retry":[{"ErrorEquals":["States.ALL"]}],"Catch":[{"ErrorEquals":["States.ALL"],"Next":"Z"}],"End":true},"Z":{"Type":"Pass","End":true}}}`, `{}`)
	if done.Status != StatusFailed || deref(done.Error) != asl.ErrorRuntime || fake.count(resource) != 0 {
		t.Fatalf("got %s %s after %d calls, want FAILED States.Runtime after 0", done.Status, deref(done.Error), fake.count(resource))
	}
}

func TestJitterIsReplayable(t *testing.T) {
	const resource = "arn:aws:states:::lambda:invoke"
	definition := `{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"` + resource + `",
"Retry":[{"ErrorEquals":["E"],"IntervalSeconds":5,"MaxAttempts":4,"JitterStrategy":"FULL"}],"End":true}}}`
	run := func() []time.Duration {
		em := newEmulator(t, 0, newFake().handle(resource, failing("E", "E", "E", "E")))
		arn, err := em.CreateStateMachine("jitter", definition, StateMachineOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		started, err := em.StartExecution(ctx, arn, "replay", `{}`)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := em.Wait(ctx, started.ExecutionArn); err != nil {
			t.Fatal(err)
		}
		return retryGaps(history(t, em, started.ExecutionArn))
	}
	first, second := run(), run()
	if len(first) != 4 || !slices.Equal(first, second) {
		t.Fatalf("got delays %v then %v, want the same 4 delays", first, second)
	}
	for i, d := range first {
		if limit := time.Duration(5<<i) * time.Second; d >= limit {
			t.Errorf("delay %d: got %v, want below %v", i, d, limit)
		}
	}
}
