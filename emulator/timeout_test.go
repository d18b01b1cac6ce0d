package emulator

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/emulator/sfnapi"
)

func TestTaskTimeouts(t *testing.T) {
	const work = "arn:aws:states:::lambda:invoke"
	tests := []struct {
		name       string
		scale      float64
		timeout    string // the Task's timeout fields
		input      string
		sleep      time.Duration // how long the handler works, in virtual time
		wantStatus ExecutionStatus
		wantError  string
	}{
		{"work within TimeoutSeconds", 0, `"TimeoutSeconds":5`, `{}`, 3 * time.Second, StatusSucceeded, ""},
		{"work beyond TimeoutSeconds", 0, `"TimeoutSeconds":5`, `{}`, 10 * time.Second, StatusFailed, "States.Timeout"},
		{"TimeoutSecondsPath", 0, `"TimeoutSecondsPath":"$.limit"`, `{"limit":2}`, 3 * time.Second, StatusFailed, "States.Timeout"},
		{"TimeoutSecondsPath that is not a number", 0, `"TimeoutSecondsPath":"$.limit"`, `{"limit":"soon"}`, 0, StatusFailed, "States.Runtime"},
		{"beyond TimeoutSeconds in scaled time", 0.001, `"TimeoutSeconds":5`, `{}`, time.Hour, StatusFailed, "States.Timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			em := newEmulator(t, tt.scale)
			em.RegisterIntegration(newFake().handle(work, func(ctx context.Context, _ *TaskCall) (any, error) {
				if err := em.Clock().Sleep(ctx, tt.sleep); err != nil {
					return nil, err
				}
				return "worked", nil
			}))
			done := runMachine(t, em, `{"StartAt":"Work","States":{"Work":{"Type":"Task","Resource":"`+work+`",`+tt.timeout+`,"End":true}}}`, tt.input)
			if done.Status != tt.wantStatus || (tt.wantError != "" && deref(done.Error) != tt.wantError) {
				t.Fatalf("got %s %s (%s), want %s %s", done.Status, deref(done.Error), deref(done.Cause), tt.wantStatus, tt.wantError)
			}
			if tt.wantError == "States.Timeout" {
				events := history(t, em, done.ExecutionArn)
				if e := events[len(events)-2]; e.Type != sfnapi.EventTaskTimedOut {
					t.Errorf("got %s before the end, want TaskTimedOut", e.Type)
				}
			}
		})
	}
}

func TestExecutionTimeout(t *testing.T) {
	tests := []struct {
		name     string
		scale    float64
		states   string
		timeout  int
		wantStop time.Duration // virtual time from start to stop, at scale 0
	}{
		{"one long wait", 0, `"W":{"Type":"Wait","Seconds":3600,"End":true}`, 30, 30 * time.Second},
		{"waits that add up", 0, `"W":{"Type":"Wait","Seconds":10,"Next":"W2"},"W2":{"Type":"Wait","Seconds":10,"Next":"W3"},"W3":{"Type":"Wait","Seconds":10,"End":true}`,
			25, 25 * time.Second},
		{"scaled time", 0.001, `"W":{"Type":"Wait","Seconds":3600,"End":true}`, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			em := newEmulator(t, tt.scale)
			done := runMachine(t, em, `{"StartAt":"W","TimeoutSeconds":`+itoa(tt.timeout)+`,"States":{`+tt.states+`}}`, `{}`)
			if done.Status != StatusTimedOut || deref(done.Error) != "States.Timeout" {
				t.Fatalf("got %s %s, want TIMED_OUT States.Timeout", done.Status, deref(done.Error))
			}
			events := history(t, em, done.ExecutionArn)
			if last := events[len(events)-1]; last.Type != sfnapi.EventExecutionTimedOut {
				t.Errorf("last event: got %s, want ExecutionTimedOut", last.Type)
			}
			if tt.wantStop != 0 && done.StopDate.Sub(done.StartDate) != tt.wantStop {
				t.Errorf("stopped after %v, want %v", done.StopDate.Sub(done.StartDate), tt.wantStop)
			}
		})
	}
}

func TestWaitState(t *testing.T) {
	until := func(s string) time.Time { t, _ := time.Parse(time.RFC3339, s); return t }
	tests := []struct {
		name, wait, input string
		want              time.Duration // how long the state waits
		until             time.Time     // or until when
	}{
		{"Seconds", `"Seconds":90`, `{}`, 90 * time.Second, time.Time{}},
		{"SecondsPath", `"SecondsPath":"$.s"`, `{"s":7}`, 7 * time.Second, time.Time{}},
		{"Timestamp in the future", `"Timestamp":"2024-03-01T13:00:00Z"`, `{}`, 0, until("2024-03-01T13:00:00Z")},
		{"TimestampPath with an offset", `"TimestampPath":"$.t"`, `{"t":"2024-03-01T14:30:00+02:00"}`, 0, until("2024-03-01T12:30:00Z")},
		{"Timestamp in the past", `"Timestamp":"2016-03-14T01:59:00Z"`, `{}`, 0, time.Time{}},
		// AWS truncates a Wait's timestamp to the second.
		{"Timestamp with milliseconds", `"Timestamp":"2024-03-01T13:00:00.750Z"`, `{}`, 0, until("2024-03-01T13:00:00Z")},
		{"TimestampPath with nanoseconds", `"TimestampPath":"$.t"`, `{"t":"2024-03-01T13:00:07.999999999Z"}`, 0, until("2024-03-01T13:00:07Z")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			em := newEmulator(t, 0) // time is the emulator's: each case starts at the same instant
			done := runMachine(t, em, `{"StartAt":"W","States":{"W":{"Type":"Wait",`+tt.wait+`,"End":true}}}`, tt.input)
			if done.Status != StatusSucceeded {
				t.Fatalf("status %s: %s", done.Status, deref(done.Cause))
			}
			events := history(t, em, done.ExecutionArn)
			entered, exited := events[1].Timestamp.Time, events[2].Timestamp.Time
			if !tt.until.IsZero() && !exited.Equal(tt.until) {
				t.Errorf("waited until %v, want %v", exited, tt.until)
			}
			if tt.until.IsZero() && exited.Sub(entered) != tt.want {
				t.Errorf("waited %v, want %v", exited.Sub(entered), tt.want)
			}
			if got := eventTypes(events); !slices.Equal(got, []sfnapi.HistoryEventType{sfnapi.EventExecutionStarted, sfnapi.EventWaitStateEntered, sfnapi.EventWaitStateExited, sfnapi.EventExecutionSucceeded}) {
				t.Errorf("history: got %v", got)
			}
		})
	}
}

func itoa(n int) string { return encodeJSON(int64(n)) }
