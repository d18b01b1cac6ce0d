package emulator

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/emulator/sfnapi"
)

const sendMessage = "arn:aws:states:::sqs:sendMessage"

// callbackMachine sends the task token to a stand-in queue and waits for it.
func callbackMachine(extra string) string {
	return `{"StartAt":"Approve","States":{"Approve":{"Type":"Task","Resource":"` + sendMessage + `.waitForTaskToken",
"Parameters":{"QueueUrl":"https://sqs.us-east-1.amazonaws.com/123456789012/approvals","MessageBody":{"TaskToken.$":"$$.Task.Token"}},` +
		extra + `"End":true},"Caught":{"Type":"Pass","End":true}}}`
}

// tokenQueue is a stand-in SQS queue that hands the task tokens it receives to the test.
func tokenQueue() (*fakeIntegration, chan string) {
	tokens := make(chan string, 10)
	fake := newFake().handle(sendMessage, func(_ context.Context, call *TaskCall) (any, error) {
		body := call.Parameters.(map[string]any)["MessageBody"].(map[string]any)
		if body["TaskToken"] != call.TaskToken || call.Pattern != PatternWaitForTaskToken {
			return nil, errors.New("the token in the parameters is not the task's")
		}
		tokens <- call.TaskToken
		return map[string]any{"MessageId": "m-1"}, nil
	})
	return fake, tokens
}

// startCallback starts an execution of a callback machine and returns it with its token.
func startCallback(t *testing.T, em *Emulator, extra string, tokens chan string) (string, string) {
	t.Helper()
	arn := create(t, em, callbackMachine(`"Catch":[{"ErrorEquals":["States.HeartbeatTimeout"],"Next":"Caught"}],`+extra))
	started, err := em.StartExecution(context.Background(), arn, "", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case token := <-tokens:
		return started.ExecutionArn, token
	case <-time.After(30 * time.Second):
		t.Fatal("the task token never reached the queue")
		return "", ""
	}
}

func TestWaitForTaskToken(t *testing.T) {
	ctx := context.Background()
	t.Run("SendTaskSuccess completes the task", func(t *testing.T) {
		fake, tokens := tokenQueue()
		em := newEmulator(t, 0, fake)
		arn, token := startCallback(t, em, "", tokens)
		if err := em.SendTaskSuccess(ctx, token, `{"approved":true}`); err != nil {
			t.Fatal(err)
		}
		done, err := em.Wait(ctx, arn)
		if err != nil || done.Status != StatusSucceeded || deref(done.Output) != `{"approved":true}` {
			t.Fatalf("got %v %s %s, want SUCCEEDED {\"approved\":true}", err, done.Status, deref(done.Output))
		}
		want := []sfnapi.HistoryEventType{sfnapi.EventExecutionStarted, sfnapi.EventTaskStateEntered, sfnapi.EventTaskScheduled, sfnapi.EventTaskStarted,
			sfnapi.EventTaskSubmitted, sfnapi.EventTaskSucceeded, sfnapi.EventTaskStateExited, sfnapi.EventExecutionSucceeded}
		events := history(t, em, arn)
		if got := eventTypes(events); !slices.Equal(got, want) {
			t.Errorf("history: got %v, want %v", got, want)
		}
		if d := events[2].TaskScheduledEventDetails; d.Resource != "sendMessage.waitForTaskToken" || d.ResourceType != "sqs" {
			t.Errorf("TaskScheduled: got %s %s, want sqs sendMessage.waitForTaskToken", d.ResourceType, d.Resource)
		}
		if err := em.SendTaskSuccess(ctx, token, `{}`); !errors.Is(err, ErrTaskTimedOut) {
			t.Errorf("a second SendTaskSuccess: got %v, want TaskTimedOut", err)
		}
	})
	t.Run("SendTaskFailure fails the task", func(t *testing.T) {
		fake, tokens := tokenQueue()
		em := newEmulator(t, 0, fake)
		arn, token := startCallback(t, em, "", tokens)
		if err := em.SendTaskFailure(ctx, token, "Approval.Rejected", "not today"); err != nil {
			t.Fatal(err)
		}
		done, _ := em.Wait(ctx, arn)
		if done.Status != StatusFailed || deref(done.Error) != "Approval.Rejected" || deref(done.Cause) != "not today" {
			t.Fatalf("got %s %s %s, want FAILED Approval.Rejected not today", done.Status, deref(done.Error), deref(done.Cause))
		}
	})
	t.Run("heartbeats keep the task alive", func(t *testing.T) {
		// HeartbeatSeconds 4; a heartbeat every virtual second for a minute keeps the task
		// waiting until SendTaskSuccess.
		got := heartbeatEvery(t, time.Second, 60)
		if got.status != StatusSucceeded || got.output != `"alive"` || got.last != "Approve" || got.heartbeatErr != nil {
			t.Fatalf("got %s %s through %s (heartbeat error %v), want SUCCEEDED \"alive\" through Approve", got.status, got.output, got.last, got.heartbeatErr)
		}
		if got.lived < time.Minute {
			t.Errorf("the task lived %v of virtual time, want at least a minute (15 times its HeartbeatSeconds)", got.lived)
		}
	})
	t.Run("heartbeats further apart than HeartbeatSeconds do not", func(t *testing.T) {
		// The same run with a heartbeat every 5 s: the first gap outlasts HeartbeatSeconds 4.
		got := heartbeatEvery(t, 5*time.Second, 12)
		if got.status != StatusSucceeded || got.last != "Caught" || !errors.Is(got.heartbeatErr, ErrTaskTimedOut) {
			t.Fatalf("got %s through %s (heartbeat error %v), want SUCCEEDED through Caught and TaskTimedOut", got.status, got.last, got.heartbeatErr)
		}
		if got.lived != 4*time.Second {
			t.Errorf("the task lived %v of virtual time, want its HeartbeatSeconds, 4s", got.lived)
		}
	})
	t.Run("a missed heartbeat times the task out", func(t *testing.T) {
		fake, tokens := tokenQueue()
		em := newEmulator(t, 0, fake)
		arn := create(t, em, callbackMachine(`"HeartbeatSeconds":5,"Catch":[{"ErrorEquals":["Other"],"Next":"Caught"}],`))
		started, err := em.StartExecution(ctx, arn, "", `{}`)
		if err != nil {
			t.Fatal(err)
		}
		token := <-tokens
		done, _ := em.Wait(ctx, started.ExecutionArn)
		if done.Status != StatusFailed || deref(done.Error) != "States.Timeout" {
			t.Fatalf("got %s %s, want FAILED States.Timeout", done.Status, deref(done.Error))
		}
		events := history(t, em, started.ExecutionArn)
		if last := events[len(events)-2]; last.Type != sfnapi.EventTaskTimedOut || last.TaskTimedOutEventDetails.Error != "States.Timeout" {
			t.Errorf("got %s before the end, want TaskTimedOut with States.Timeout", last.Type)
		}
		if err := em.SendTaskSuccess(ctx, token, `{}`); !errors.Is(err, ErrTaskTimedOut) {
			t.Errorf("SendTaskSuccess after the timeout: got %v, want TaskTimedOut", err)
		}
	})
	t.Run("States.HeartbeatTimeout catches a missed heartbeat", func(t *testing.T) {
		fake, tokens := tokenQueue()
		em := newEmulator(t, 0, fake)
		arn, _ := startCallback(t, em, `"HeartbeatSeconds":5,`, tokens)
		done, _ := em.Wait(ctx, arn)
		states := enteredStates(history(t, em, arn))
		if done.Status != StatusSucceeded || states[len(states)-1] != "Caught" {
			t.Fatalf("got %s through %v, want SUCCEEDED through Caught", done.Status, states)
		}
	})
}

// heartbeatRun is how a callback task with heartbeats ended.
type heartbeatRun struct {
	status       ExecutionStatus
	output       string
	last         string        // the last state entered
	lived        time.Duration // virtual time from the start to the end of the execution
	heartbeatErr error         // the first error of SendTaskHeartbeat or SendTaskSuccess
}

// heartbeatEvery runs a callback task with HeartbeatSeconds 4 (a heartbeat timeout is caught
// into the state Caught) on a skipping clock, sends its token a heartbeat every interval of
// virtual time, beats times, then SendTaskSuccess "alive". The clock is held still from the start
// until the heartbeats begin, so the outcome depends on virtual time only, not on the machine's
// load.
func heartbeatEvery(t *testing.T, interval time.Duration, beats int) heartbeatRun {
	t.Helper()
	ctx := context.Background()
	fake, tokens := tokenQueue()
	clock := NewSkippingClock(testStart, 42)
	em := New(Options{Clock: clock, Seed: 42})
	em.RegisterIntegration(fake)
	t.Cleanup(func() { _ = em.Close() })

	release := clock.Hold()
	defer release()
	arn, token := startCallback(t, em, `"HeartbeatSeconds":4,`, tokens)
	beaten := make(chan error, 1) // the heartbeats' first error, or SendTaskSuccess's
	clock.Go(func() {
		for range beats {
			if err := em.SendTaskHeartbeat(ctx, token); err != nil {
				beaten <- err
				return
			}
			if err := clock.Sleep(ctx, interval); err != nil {
				beaten <- err
				return
			}
		}
		beaten <- em.SendTaskSuccess(ctx, token, `"alive"`)
	})
	release()
	done, err := em.Wait(ctx, arn)
	if err != nil {
		t.Fatal(err)
	}
	run := heartbeatRun{status: done.Status, output: deref(done.Output), heartbeatErr: <-beaten}
	if done.StopDate != nil {
		run.lived = done.StopDate.Sub(done.StartDate)
	}
	states := enteredStates(history(t, em, arn))
	run.last = states[len(states)-1]
	return run
}

func TestSendTaskErrors(t *testing.T) {
	ctx := context.Background()
	fake, tokens := tokenQueue()
	em := newEmulator(t, 0, fake)
	_, token := startCallback(t, em, "", tokens)
	unknown := "eyJlIjoiYXJuOmF3czpzdGF0ZXM6dXMtZWFzdC0xOjEyMzQ1Njc4OTAxMjpleGVjdXRpb246bm86bm8iLCJ0IjoieCJ9"
	tests := []struct {
		name string
		call func() error
		want error
	}{
		{"malformed token", func() error { return em.SendTaskSuccess(ctx, "not a token!", `{}`) }, ErrInvalidToken},
		{"unknown token", func() error { return em.SendTaskHeartbeat(ctx, unknown) }, ErrTaskDoesNotExist},
		{"output that is not JSON", func() error { return em.SendTaskSuccess(ctx, token, `{`) }, ErrInvalidOutput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.call(); !errors.Is(err, tt.want) {
				t.Errorf("got %v, want %v", err, tt.want)
			}
		})
	}
}

func TestTaskTokensHaveAWSLength(t *testing.T) {
	issue := func() string {
		fake, tokens := tokenQueue()
		em := newEmulator(t, 0, fake)
		_, token := startCallback(t, em, "", tokens)
		return token
	}
	first, second := issue(), issue()
	for _, token := range []string{first, second} {
		if len(token) != taskTokenLength || !regexp.MustCompile(`^[A-Za-z0-9_-]+$`).MatchString(token) {
			t.Errorf("token %q: %d characters, want %d of URL-safe base64", token, len(token), taskTokenLength)
		}
	}
	if first == second {
		t.Errorf("two executions were issued the same token %q", first)
	}
}
