package emulator

import (
	"strings"
	"testing"
	"time"
)

func TestDataFlow(t *testing.T) {
	em := newEmulator(t, 0)
	tests := []struct {
		name       string
		state      string // the single state, named S
		input      string
		wantStatus ExecutionStatus
		want       string // output, or error name when failed
		wantCause  string // substring of the cause when failed
	}{
		{"null InputPath gives {}", `{"Type":"Pass","InputPath":null,"End":true}`, `{"a":1}`, StatusSucceeded, `{}`, ""},
		{"null OutputPath gives {}", `{"Type":"Pass","OutputPath":null,"End":true}`, `{"a":1}`, StatusSucceeded, `{}`, ""},
		{"null ResultPath discards the result", `{"Type":"Pass","Result":"x","ResultPath":null,"End":true}`, `{"a":1}`, StatusSucceeded, `{"a":1}`, ""},
		{"ResultPath creates missing parents", `{"Type":"Pass","Result":"x","ResultPath":"$.b.c.d","End":true}`, `{"a":1}`,
			StatusSucceeded, `{"a":1,"b":{"c":{"d":"x"}}}`, ""},
		{"ResultPath into an array element", `{"Type":"Pass","Result":"x","ResultPath":"$.a[1]","End":true}`, `{"a":[1,2,3]}`,
			StatusSucceeded, `{"a":[1,"x",3]}`, ""},
		{"ResultPath does not change the input it copies", `{"Type":"Pass","Parameters":{"old.$":"$.a"},"ResultPath":"$.a.b","End":true}`,
			`{"a":{"c":1}}`, StatusSucceeded, `{"a":{"c":1,"b":{"old":{"c":1}}}}`, ""},
		{"ResultPath into a string fails", `{"Type":"Pass","Result":"x","ResultPath":"$.a.b","End":true}`, `{"a":"text"}`,
			StatusFailed, "States.ResultPathMatchFailure", `Unable to apply ResultPath '$.a.b'`},
		{"Parameters with a missing path fail", `{"Type":"Pass","Parameters":{"x.$":"$.missing"},"End":true}`, `{"a":1}`,
			StatusFailed, "States.Runtime",
			`An error occurred while executing the state 'S' (entered at the event id #2). The JSONPath '$.missing' specified for the field 'x.$' could not be found in the input '{"a":1}'`},
		{"InputPath that selects nothing fails", `{"Type":"Pass","InputPath":"$.a.b","End":true}`, `{"a":{}}`,
			StatusFailed, "States.Runtime", `Invalid path '$.a.b' : No results for path: $['a']['b']`},
		{"indefinite paths give lists", `{"Type":"Pass","Parameters":{"all.$":"$..x","none.$":"$.list[*].y"},"End":true}`,
			`{"list":[{"x":1},{"x":2}]}`, StatusSucceeded, `{"all":[1,2],"none":[]}`, ""},
		{"dot names may contain dashes", `{"Type":"Pass","InputPath":"$.delivery-partner","End":true}`, `{"delivery-partner":"UQS"}`,
			StatusSucceeded, `"UQS"`, ""},
		{"intrinsic in Parameters", `{"Type":"Pass","Parameters":{"greeting.$":"States.Format('Hello, {}!', $.name)"},"End":true}`,
			`{"name":"World"}`, StatusSucceeded, `{"greeting":"Hello, World!"}`, ""},
		{"intrinsic failure is States.Runtime", `{"Type":"Pass","Parameters":{"n.$":"States.ArrayLength($.name)"},"End":true}`,
			`{"name":"World"}`, StatusFailed, "States.Runtime", "The function 'States.ArrayLength($.name)' had the following error"},
		{"Result keeps .$ keys as they are", `{"Type":"Pass","Result":{"a.$":"$.b"},"End":true}`, `{}`, StatusSucceeded, `{"a.$":"$.b"}`, ""},
		{"output over 256 KiB", `{"Type":"Pass","Parameters":{"big.$":"$.s"},"ResultPath":"$.copy","End":true}`,
			`{"s":"` + strings.Repeat("a", 140*1024) + `"}`, StatusFailed, "States.DataLimitExceeded",
			"The state/task 'S' returned a result with a size exceeding the maximum number of bytes service limit."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runMachine(t, em, `{"StartAt":"S","States":{"S":`+tt.state+`}}`, tt.input)
			if got.Status != tt.wantStatus {
				t.Fatalf("status: got %s (%s: %s), want %s", got.Status, deref(got.Error), deref(got.Cause), tt.wantStatus)
			}
			if tt.wantStatus == StatusSucceeded {
				if !sameJSON(mustJSON(t, *got.Output), mustJSON(t, tt.want)) {
					t.Errorf("output: got %s, want %s", *got.Output, tt.want)
				}
				return
			}
			if deref(got.Error) != tt.want || !strings.Contains(deref(got.Cause), tt.wantCause) {
				t.Errorf("failure: got %s %q, want %s containing %q", deref(got.Error), deref(got.Cause), tt.want, tt.wantCause)
			}
		})
	}
}

func TestContextObject(t *testing.T) {
	em := newEmulator(t, 0)
	arn, err := em.CreateStateMachine("context-object", `{"StartAt":"First","States":{
"First":{"Type":"Pass","Parameters":{"entered.$":"$$.State.EnteredTime"},"ResultPath":"$.first","Next":"Pause"},
"Pause":{"Type":"Wait","Seconds":10,"Next":"Second"},
"Second":{"Type":"Pass","Parameters":{"execution.$":"$$.Execution","machine.$":"$$.StateMachine","state.$":"$$.State","entered.$":"$$.State.EnteredTime"},
"ResultPath":"$.second","End":true}}}`, StateMachineOptions{RoleArn: "arn:aws:iam::123456789012:role/test"})
	if err != nil {
		t.Fatal(err)
	}
	done := execute(t, em, arn, `{"k":"v"}`)
	if done.Status != StatusSucceeded {
		t.Fatalf("status %s: %s", done.Status, deref(done.Cause))
	}
	out := mustJSON(t, *done.Output).(map[string]any)
	first := out["first"].(map[string]any)["entered"].(string)
	second := out["second"].(map[string]any)
	t1, err1 := time.Parse(time.RFC3339, first)
	t2, err2 := time.Parse(time.RFC3339, second["entered"].(string))
	if err1 != nil || err2 != nil || t2.Sub(t1) != 10*time.Second {
		t.Errorf("EnteredTime: got %s then %s, want a fresh time per state, 10 s apart", first, second["entered"])
	}
	wantExecution := map[string]any{
		"Id": done.ExecutionArn, "Input": map[string]any{"k": "v"}, "Name": done.Name,
		"RoleArn": "arn:aws:iam::123456789012:role/test", "StartTime": formatTime(done.StartDate), "RedriveCount": int64(0),
	}
	if !sameJSON(second["execution"], wantExecution) {
		t.Errorf("$$.Execution: got %s, want %s", encodeJSON(second["execution"]), encodeJSON(wantExecution))
	}
	wantMachine := map[string]any{"Id": arn, "Name": "context-object"}
	if !sameJSON(second["machine"], wantMachine) {
		t.Errorf("$$.StateMachine: got %s, want %s", encodeJSON(second["machine"]), encodeJSON(wantMachine))
	}
	state := second["state"].(map[string]any)
	if state["Name"] != "Second" || state["RetryCount"] != int64(0) {
		t.Errorf("$$.State: got %s, want Name Second and RetryCount 0", encodeJSON(state))
	}
}

func TestFailState(t *testing.T) {
	em := newEmulator(t, 0)
	tests := []struct {
		name, fail, input, wantError, wantCause string
	}{
		{"literal Error and Cause", `"Error":"Order.Invalid","Cause":"no items"`, `{}`, "Order.Invalid", "no items"},
		{"ErrorPath and CausePath", `"ErrorPath":"$.error","CausePath":"$.detail.cause"`, `{"error":"Work.Failed","detail":{"cause":"disk full"}}`,
			"Work.Failed", "disk full"},
		{"CausePath with an intrinsic function", `"Error":"Work.Failed","CausePath":"States.Format('{} items failed', $.count)"`, `{"count":3}`,
			"Work.Failed", "3 items failed"},
		{"ErrorPath to a number", `"ErrorPath":"$.code"`, `{"code":500}`, "States.Runtime", "The ErrorPath field must reference a string value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runMachine(t, em, `{"StartAt":"F","States":{"F":{"Type":"Fail",`+tt.fail+`}}}`, tt.input)
			if got.Status != StatusFailed || deref(got.Error) != tt.wantError || !strings.Contains(deref(got.Cause), tt.wantCause) {
				t.Errorf("got %s %s %q, want FAILED %s %q", got.Status, deref(got.Error), deref(got.Cause), tt.wantError, tt.wantCause)
			}
		})
	}
}
