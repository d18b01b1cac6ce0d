package sfnapi_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/turnstile-sfn/turnstile/emulator/sfnapi"
)

// call posts a raw AWS JSON 1.0 request to handler and returns the response.
func call(t *testing.T, handler http.Handler, method, target, body string) (*http.Response, string) {
	t.Helper()
	req := httptest.NewRequestWithContext(context.Background(), method, "/", strings.NewReader(body))
	if target != "" {
		req.Header.Set("X-Amz-Target", target)
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	rec := httptest.NewRecorder()
	handler.ServeHTTP(rec, req)
	res := rec.Result()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(raw)
}

var requestIDPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestWireFormat(t *testing.T) {
	handler := sfnapi.NewHandler(newFakeBackend())
	tests := []struct {
		name, target, body string
		wantStatus         int
		wantBody           string
	}{
		{"StartExecution", "AWSStepFunctions.StartExecution",
			`{"stateMachineArn":"` + machineARN + `","name":"run-1","input":"{\"job\":1}"}`, 200,
			`{"executionArn":"` + execARN("run-1") + `","startDate":1773500968.035}`},
		{"DescribeExecution omits what is not set", "AWSStepFunctions.DescribeExecution",
			`{"executionArn":"` + execARN("run-1") + `"}`, 200,
			`{"executionArn":"` + execARN("run-1") + `","stateMachineArn":"` + machineARN + `","name":"run-1","status":"RUNNING",` +
				`"startDate":1773500968.035,"input":"{\"job\":1}","inputDetails":{"included":true},"redriveCount":0}`},
		{"GetExecutionHistory", "AWSStepFunctions.GetExecutionHistory",
			`{"executionArn":"` + execARN("run-1") + `","maxResults":1}`, 200,
			`{"events":[{"timestamp":1773500968.035,"type":"ExecutionStarted","id":1,"previousEventId":0,"executionStartedEventDetails":` +
				`{"input":"{\"job\":1}","inputDetails":{"truncated":false},"roleArn":"arn:aws:iam::000000000000:role/demo"}}],` +
				`"nextToken":"c2ZuYXBpMQBhcm46YXdzOnN0YXRlczp1cy1lYXN0LTE6MDAwMDAwMDAwMDAwOmV4ZWN1dGlvbjpkZW1vOnJ1bi0xfGZhbHNlADE"}`},
		{"StopExecution", "AWSStepFunctions.StopExecution",
			`{"executionArn":"` + execARN("run-1") + `"}`, 200,
			`{"stopDate":1773500969.535}`},
		{"SendTaskHeartbeat answers an empty object", "AWSStepFunctions.SendTaskHeartbeat",
			`{"taskToken":"tok-ok"}`, 200, `{}`},
		{"SendTaskSuccess answers an empty object when the backend returns nil", "AWSStepFunctions.SendTaskSuccess",
			`{"taskToken":"tok-ok","output":"1"}`, 200, `{}`},
		{"an error", "AWSStepFunctions.DescribeExecution",
			`{"executionArn":"` + execARN("ghost") + `"}`, 400,
			`{"__type":"ExecutionDoesNotExist","message":"Execution Does Not Exist: '` + execARN("ghost") + `'"}`},
	}
	for _, tt := range tests { // in order: each step builds on the previous one
		res, body := call(t, handler, http.MethodPost, tt.target, tt.body)
		if res.StatusCode != tt.wantStatus || body != tt.wantBody {
			t.Errorf("%s: %d %s\nwant %d %s", tt.name, res.StatusCode, body, tt.wantStatus, tt.wantBody)
		}
		if got := res.Header.Get("Content-Type"); got != "application/x-amz-json-1.0" {
			t.Errorf("%s: Content-Type = %q", tt.name, got)
		}
		if got := res.Header.Get("x-amzn-RequestId"); !requestIDPattern.MatchString(got) {
			t.Errorf("%s: x-amzn-RequestId = %q, want a UUID", tt.name, got)
		}
	}
}

func TestBadRequestsNeverReachTheBackend(t *testing.T) {
	start := "AWSStepFunctions.StartExecution"
	tests := []struct {
		name, method, target, body string
		wantStatus                 int
		wantBody                   string
	}{
		{"a missing required member", http.MethodPost, start, `{}`, 400,
			`{"__type":"ValidationException","message":"1 validation error detected: Value null at 'stateMachineArn' failed to satisfy constraint: Member must not be null"}`},
		{"an empty body", http.MethodPost, "AWSStepFunctions.SendTaskHeartbeat", ``, 400,
			`{"__type":"ValidationException","message":"1 validation error detected: Value null at 'taskToken' failed to satisfy constraint: Member must not be null"}`},
		{"a task success without output", http.MethodPost, "AWSStepFunctions.SendTaskSuccess", `{"taskToken":"tok-ok"}`, 400,
			`{"__type":"ValidationException","message":"1 validation error detected: Value null at 'output' failed to satisfy constraint: Member must not be null"}`},
		{"an error name too long", http.MethodPost, "AWSStepFunctions.SendTaskFailure", `{"taskToken":"tok-ok","error":"` + strings.Repeat("E", 257) + `"}`, 400,
			`{"__type":"ValidationException","message":"1 validation error detected: Value at 'error' failed to satisfy constraint: Member must have length less than or equal to 256"}`},
		{"an unknown includedData", http.MethodPost, "AWSStepFunctions.DescribeExecution", `{"executionArn":"` + execARN("x") + `","includedData":"SOME"}`, 400,
			`{"__type":"ValidationException","message":"1 validation error detected: Value 'SOME' at 'includedData' failed to satisfy constraint: Member must satisfy enum value set: [ALL_DATA, METADATA_ONLY]"}`},
		{"a listing of neither a machine nor a map run", http.MethodPost, "AWSStepFunctions.ListExecutions", `{}`, 400,
			`{"__type":"ValidationException","message":"Exactly one of stateMachineArn and mapRunArn must be provided"}`},
		{"a listing of both", http.MethodPost, "AWSStepFunctions.ListExecutions",
			`{"stateMachineArn":"` + machineARN + `","mapRunArn":"arn:aws:states:us-east-1:000000000000:mapRun:demo/m:1"}`, 400,
			`{"__type":"ValidationException","message":"Exactly one of stateMachineArn and mapRunArn must be provided"}`},
		{"a truncated execution ARN", http.MethodPost, "AWSStepFunctions.GetExecutionHistory",
			`{"executionArn":"arn:aws:states:us-east-1:000000000000:execution:demo"}`, 400,
			`{"__type":"InvalidArn","message":"Invalid Arn: 'arn:aws:states:us-east-1:000000000000:execution:demo'"}`},
		{"an ARN of another service", http.MethodPost, "AWSStepFunctions.DescribeStateMachine",
			`{"stateMachineArn":"arn:aws:lambda:us-east-1:000000000000:function:demo"}`, 400,
			`{"__type":"InvalidArn","message":"Invalid Arn: 'arn:aws:lambda:us-east-1:000000000000:function:demo'"}`},
		{"malformed JSON", http.MethodPost, start, `{"stateMachineArn":`, 400,
			`{"__type":"SerializationException","message":"cannot decode the request: unexpected EOF"}`},
		{"a member of the wrong type", http.MethodPost, "AWSStepFunctions.ListStateMachines", `{"maxResults":"ten"}`, 400,
			`{"__type":"SerializationException","message":"cannot decode the request: json: cannot unmarshal string into Go struct field ListStateMachinesInput.maxResults of type int32"}`},
		{"data after the request", http.MethodPost, "AWSStepFunctions.ListStateMachines", `{} {}`, 400,
			`{"__type":"SerializationException","message":"cannot decode the request: data after the JSON object"}`},
		{"a GET", http.MethodGet, start, ``, 400,
			`{"__type":"UnknownOperationException","message":"Unknown operation: \"AWSStepFunctions.StartExecution\""}`},
		{"no target", http.MethodPost, "", `{}`, 400,
			`{"__type":"UnknownOperationException","message":"Unknown operation: \"\""}`},
		{"another service's target", http.MethodPost, "DynamoDB_20120810.GetItem", `{}`, 400,
			`{"__type":"UnknownOperationException","message":"Unknown operation: \"DynamoDB_20120810.GetItem\""}`},
		{"an operation the emulator does not serve", http.MethodPost, "AWSStepFunctions.DeleteStateMachine", `{}`, 400,
			`{"__type":"UnknownOperationException","message":"Unknown operation: \"AWSStepFunctions.DeleteStateMachine\""}`},
		{"a body over the limit", http.MethodPost, start, `{"input":"` + strings.Repeat("x", 4<<20) + `"}`, 413,
			`{"__type":"RequestEntityTooLargeException","message":"Request must be smaller than 4194304 bytes"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			backend := newFakeBackend()
			res, body := call(t, sfnapi.NewHandler(backend), tt.method, tt.target, tt.body)
			if res.StatusCode != tt.wantStatus || body != tt.wantBody {
				t.Errorf("got  %d %s\nwant %d %s", res.StatusCode, body, tt.wantStatus, tt.wantBody)
			}
			wantType := tt.wantBody[len(`{"__type":"`):strings.Index(tt.wantBody, `","`)]
			if got := res.Header.Get("X-Amzn-ErrorType"); got != wantType {
				t.Errorf("X-Amzn-ErrorType = %q, want %q", got, wantType)
			}
			if n := backend.callCount(); n != 0 {
				t.Errorf("the backend was called %d times", n)
			}
		})
	}
}
