package eventbus_test

import (
	"encoding/json"
	"errors"
	"regexp"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/emulator/eventbus"
)

const (
	testExecutionARN    = "arn:aws:states:us-east-1:012345678912:execution:state-machine:execution-name"
	testStateMachineARN = "arn:aws:states:us-east-1:012345678912:stateMachine:state-machine"
)

var (
	testStart = time.UnixMilli(1551225146847)
	testStop  = time.UnixMilli(1551225151881)
)

func TestNewStatusChangeEvent(t *testing.T) {
	tests := []struct {
		name string
		exec eventbus.ExecutionSnapshot
		want string
	}{
		{
			name: "running",
			exec: eventbus.ExecutionSnapshot{ExecutionARN: testExecutionARN, StateMachineARN: testStateMachineARN, Status: eventbus.StatusRunning, StartDate: testStart, Input: "{}"},
			want: `{"version":"0","id":"id-1","detail-type":"Step Functions Execution Status Change","source":"aws.states","account":"012345678912","time":"2019-02-26T23:52:31Z","region":"us-east-1",` +
				`"resources":["` + testExecutionARN + `"],"detail":{"executionArn":"` + testExecutionARN + `","stateMachineArn":"` + testStateMachineARN + `",` +
				`"name":"execution-name","status":"RUNNING","startDate":1551225146847,"stopDate":null,"input":"{}","output":null,` +
				`"stateMachineVersionArn":null,"stateMachineAliasArn":null,"redriveCount":0,"redriveDate":null,"redriveStatus":"NOT_REDRIVABLE",` +
				`"redriveStatusReason":"Execution is RUNNING and cannot be redriven","inputDetails":{"included":true},"outputDetails":null,"error":null,"cause":null}}`,
		},
		{
			name: "failed",
			exec: eventbus.ExecutionSnapshot{ExecutionARN: testExecutionARN, StateMachineARN: testStateMachineARN, Status: eventbus.StatusFailed,
				StartDate: testStart, StopDate: testStop, Input: `{"lock":"a"}`, Output: "ignored unless succeeded", Error: "WorkFailed", Cause: "boom"},
			want: `{"version":"0","id":"id-1","detail-type":"Step Functions Execution Status Change","source":"aws.states","account":"012345678912","time":"2019-02-26T23:52:31Z","region":"us-east-1",` +
				`"resources":["` + testExecutionARN + `"],"detail":{"executionArn":"` + testExecutionARN + `","stateMachineArn":"` + testStateMachineARN + `",` +
				`"name":"execution-name","status":"FAILED","startDate":1551225146847,"stopDate":1551225151881,"input":"{\"lock\":\"a\"}","output":null,` +
				`"stateMachineVersionArn":null,"stateMachineAliasArn":null,"redriveCount":0,"redriveDate":null,"redriveStatus":"REDRIVABLE",` +
				`"redriveStatusReason":null,"inputDetails":{"included":true},"outputDetails":null,"error":"WorkFailed","cause":"boom"}}`,
		},
		{
			name: "succeeded",
			exec: eventbus.ExecutionSnapshot{ExecutionARN: testExecutionARN, StateMachineARN: testStateMachineARN, Name: "custom", Status: eventbus.StatusSucceeded,
				StartDate: testStart, StopDate: testStop, Input: "{}", Output: `"Hello World!"`},
			want: `{"version":"0","id":"id-1","detail-type":"Step Functions Execution Status Change","source":"aws.states","account":"012345678912","time":"2019-02-26T23:52:31Z","region":"us-east-1",` +
				`"resources":["` + testExecutionARN + `"],"detail":{"executionArn":"` + testExecutionARN + `","stateMachineArn":"` + testStateMachineARN + `",` +
				`"name":"custom","status":"SUCCEEDED","startDate":1551225146847,"stopDate":1551225151881,"input":"{}","output":"\"Hello World!\"",` +
				`"stateMachineVersionArn":null,"stateMachineAliasArn":null,"redriveCount":0,"redriveDate":null,"redriveStatus":"NOT_REDRIVABLE",` +
				`"redriveStatusReason":"Execution is SUCCEEDED and cannot be redriven","inputDetails":{"included":true},"outputDetails":{"included":true},"error":null,"cause":null}}`,
		},
		{
			name: "redriven and running again",
			exec: eventbus.ExecutionSnapshot{ExecutionARN: testExecutionARN, StateMachineARN: testStateMachineARN, Status: eventbus.StatusRunning,
				StartDate: testStart, Input: "{}", RedriveCount: 1, RedriveDate: testStop},
			want: `{"version":"0","id":"id-1","detail-type":"Step Functions Execution Status Change","source":"aws.states","account":"012345678912","time":"2019-02-26T23:52:31Z","region":"us-east-1",` +
				`"resources":["` + testExecutionARN + `"],"detail":{"executionArn":"` + testExecutionARN + `","stateMachineArn":"` + testStateMachineARN + `",` +
				`"name":"execution-name","status":"RUNNING","startDate":1551225146847,"stopDate":null,"input":"{}","output":null,` +
				`"stateMachineVersionArn":null,"stateMachineAliasArn":null,"redriveCount":1,"redriveDate":1551225151881,"redriveStatus":"NOT_REDRIVABLE",` +
				`"redriveStatusReason":"Execution is RUNNING and cannot be redriven","inputDetails":{"included":true},"outputDetails":null,"error":null,"cause":null}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			event, err := eventbus.NewStatusChangeEvent("id-1", testStop, tt.exec)
			if err != nil {
				t.Fatalf("NewStatusChangeEvent: %v", err)
			}
			got, err := json.Marshal(event)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("event =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestNewStatusChangeEventErrors(t *testing.T) {
	tests := []struct {
		name string
		exec eventbus.ExecutionSnapshot
	}{
		{"malformed execution ARN", eventbus.ExecutionSnapshot{ExecutionARN: "exec-1", StateMachineARN: testStateMachineARN, Status: eventbus.StatusRunning}},
		{"state machine ARN instead of execution ARN", eventbus.ExecutionSnapshot{ExecutionARN: testStateMachineARN, StateMachineARN: testStateMachineARN, Status: eventbus.StatusRunning}},
		{"no state machine ARN", eventbus.ExecutionSnapshot{ExecutionARN: testExecutionARN, Status: eventbus.StatusRunning}},
		{"unknown status", eventbus.ExecutionSnapshot{ExecutionARN: testExecutionARN, StateMachineARN: testStateMachineARN, Status: "PENDING"}},
	}
	for _, tt := range tests {
		if _, err := eventbus.NewStatusChangeEvent("id", testStart, tt.exec); !errors.Is(err, eventbus.ErrInvalidExecution) {
			t.Errorf("%s: error = %v, want ErrInvalidExecution", tt.name, err)
		}
	}
}

func TestStatusChangeEventMatchesCleanupPattern(t *testing.T) {
	pattern, err := eventbus.CompilePattern(`{"source": ["aws.states"], "detail-type": ["Step Functions Execution Status Change"],
		"detail": {"stateMachineArn": ["` + testStateMachineARN + `"], "status": ["FAILED", "TIMED_OUT", "ABORTED"]}}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		status string
		want   bool
	}{
		{eventbus.StatusRunning, false},
		{eventbus.StatusSucceeded, false},
		{eventbus.StatusFailed, true},
		{eventbus.StatusTimedOut, true},
		{eventbus.StatusAborted, true},
	} {
		event, err := eventbus.NewStatusChangeEvent("id", testStop, eventbus.ExecutionSnapshot{
			ExecutionARN: testExecutionARN, StateMachineARN: testStateMachineARN, Status: tt.status, StartDate: testStart, Input: "{}",
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := pattern.Matches(event); got != tt.want {
			t.Errorf("status %s: Matches = %v, want %v", tt.status, got, tt.want)
		}
	}
}

func TestScheduledEvent(t *testing.T) {
	const ruleARN = "arn:aws:events:eu-west-1:111122223333:rule/Reconcile"
	event, err := eventbus.ScheduledEvent("id-7", time.Date(2024, 5, 6, 7, 8, 9, 500, time.UTC), ruleARN)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(event)
	want := `{"version":"0","id":"id-7","detail-type":"Scheduled Event","source":"aws.events","account":"111122223333","time":"2024-05-06T07:08:09Z","region":"eu-west-1","resources":["` + ruleARN + `"],"detail":{}}`
	if string(got) != want {
		t.Errorf("event =\n%s\nwant\n%s", got, want)
	}
	if _, err := eventbus.ScheduledEvent("id", time.Now(), "Reconcile"); !errors.Is(err, eventbus.ErrInvalidEvent) {
		t.Errorf("malformed rule ARN: error = %v, want ErrInvalidEvent", err)
	}
}

func TestIDSourceIsSeededAndUUIDShaped(t *testing.T) {
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	a, b, c := eventbus.NewIDSource(42), eventbus.NewIDSource(42), eventbus.NewIDSource(43)
	seen := map[string]bool{}
	for i := 0; i < 100; i++ {
		idA, idB, idC := a.NewID(), b.NewID(), c.NewID()
		if !uuid.MatchString(idA) {
			t.Fatalf("ID %q is not UUID-shaped", idA)
		}
		if idA != idB {
			t.Fatalf("same seed gave %q and %q", idA, idB)
		}
		if idA == idC {
			t.Fatalf("different seeds gave the same ID %q", idA)
		}
		if seen[idA] {
			t.Fatalf("ID %q repeated", idA)
		}
		seen[idA] = true
	}
}
