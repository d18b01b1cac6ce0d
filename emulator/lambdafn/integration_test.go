package lambdafn_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"testing"

	"github.com/aws/aws-lambda-go/lambda/messages"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/emulator/lambdafn"
)

// workInput and workOutput are the event and result of doWork, a handler in the shape
// aws-lambda-go's lambda.Start takes.
type workInput struct {
	Job  int    `json:"job"`
	Fail string `json:"fail,omitempty"`
}

type workOutput struct {
	Job  int  `json:"job"`
	Done bool `json:"done"`
}

// WorkFailed is a named error type, the way a Lambda names the errors a state machine matches.
type WorkFailed struct{ Job int }

func (e *WorkFailed) Error() string { return fmt.Sprintf("job %d failed", e.Job) }

// quotaExceeded is an error type with a value receiver.
type quotaExceeded struct{}

func (quotaExceeded) Error() string { return "quota exceeded" }

// doWork succeeds, or fails in the way its input asks for.
func doWork(_ context.Context, in workInput) (workOutput, error) {
	switch in.Fail {
	case "typed":
		return workOutput{}, &WorkFailed{Job: in.Job}
	case "plain":
		return workOutput{}, errors.New("plain failure")
	case "wrapped":
		return workOutput{}, fmt.Errorf("wrapped: %w", &WorkFailed{Job: in.Job})
	case "value":
		return workOutput{}, quotaExceeded{}
	case "custom":
		return workOutput{}, messages.InvokeResponse_Error{Message: "custom failure", Type: "Custom.Error"}
	case "panic":
		panic("work exploded")
	case "service":
		return workOutput{}, lambdafn.NewServiceError(lambdafn.CodeService, "Internal error.")
	case "sdkclient":
		return workOutput{}, lambdafn.NewServiceError(lambdafn.CodeSdkClient, "Unable to execute HTTP request: Read timed out")
	}
	return workOutput{Job: in.Job, Done: true}, nil
}

var (
	uuidPattern  = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	tracePattern = regexp.MustCompile(`^root=1-[0-9a-f]{8}-[0-9a-f]{24};sampled=0$`)
)

func TestInvokeOutputShape(t *testing.T) {
	reg := newRegistry(t)
	if err := reg.Register("work", lambdafn.FromLambdaHandler(doWork)); err != nil {
		t.Fatal(err)
	}
	lambda := lambdafn.NewIntegration(reg)
	got, err := lambda.Invoke(context.Background(), invokeResource, map[string]any{
		"FunctionName": fnARN("work"),
		"Payload":      map[string]any{"job": int64(7)},
	})
	if err != nil {
		t.Fatalf("Invoke: %v", err)
	}
	doc := got.(map[string]any)
	requestID, _ := doc["SdkResponseMetadata"].(map[string]any)["RequestId"].(string)
	if !uuidPattern.MatchString(requestID) {
		t.Fatalf("RequestId = %q, want a UUID", requestID)
	}
	headers := doc["SdkHttpMetadata"].(map[string]any)["HttpHeaders"].(map[string]any)
	trace, _ := headers["X-Amzn-Trace-Id"].(string)
	if !tracePattern.MatchString(trace) {
		t.Fatalf("X-Amzn-Trace-Id = %q, want root=1-…;sampled=0", trace)
	}
	wantHeaders := map[string]string{
		"Connection":                     "keep-alive",
		"Content-Length":                 "21", // {"job":7,"done":true}
		"Content-Type":                   "application/json",
		"Date":                           "Sat, 14 Mar 2026 15:09:26 GMT",
		"X-Amz-Executed-Version":         "$LATEST",
		"X-Amzn-Trace-Id":                trace,
		"x-amzn-Remapped-Content-Length": "0",
		"x-amzn-RequestId":               requestID,
	}
	single, all := map[string]any{}, map[string]any{}
	for name, value := range wantHeaders {
		single[name] = value
		all[name] = []any{value}
	}
	want := map[string]any{
		"ExecutedVersion": "$LATEST",
		"Payload":         map[string]any{"job": int64(7), "done": true},
		"SdkHttpMetadata": map[string]any{
			"AllHttpHeaders": all,
			"HttpHeaders":    single,
			"HttpStatusCode": int64(200),
		},
		"SdkResponseMetadata": map[string]any{"RequestId": requestID},
		"StatusCode":          int64(200),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("lambda:invoke output\n got: %#v\nwant: %#v", got, want)
	}
}

func TestInvokeOutputs(t *testing.T) {
	reg := newRegistry(t)
	handlers := map[string]lambdafn.Handler{
		"work":   lambdafn.FromLambdaHandler(doWork),
		"text":   func(context.Context, []byte) ([]byte, error) { return []byte("plain text"), nil },
		"silent": func(context.Context, []byte) ([]byte, error) { return nil, nil },
		"echo":   echo,
	}
	for name, h := range handlers {
		if err := reg.Register(name, h); err != nil {
			t.Fatal(err)
		}
	}
	lambda := lambdafn.NewIntegration(reg)
	tests := []struct {
		name        string
		resource    string
		params      any
		wantPayload any
		wantVersion any // nil when the output has no ExecutedVersion
		wantStatus  int64
	}{
		{"plain ARN returns the result itself", fnARN("work"), map[string]any{"job": int64(3)},
			map[string]any{"job": int64(3), "done": true}, nil, 0},
		{"plain ARN with a qualifier", fnARN("work") + ":live", map[string]any{"job": int64(4)},
			map[string]any{"job": int64(4), "done": true}, nil, 0},
		{"plain ARN passes any JSON value", fnARN("echo"), []any{"a", int64(1), 2.5, nil},
			[]any{"a", int64(1), 2.5, nil}, nil, 0},
		{"no Payload sends {}", invokeResource, map[string]any{"FunctionName": "echo"},
			map[string]any{}, "$LATEST", 200},
		{"a string Payload is sent as JSON", invokeResource, map[string]any{"FunctionName": "echo", "Payload": "a<b"},
			"a<b", "$LATEST", 200},
		{"a version qualifier is the executed version", invokeResource, map[string]any{"FunctionName": "echo:12", "Payload": true},
			true, "12", 200},
		{"the Qualifier parameter qualifies", invokeResource, map[string]any{"FunctionName": "echo", "Qualifier": "5", "Payload": int64(1)},
			int64(1), "5", 200},
		{"an alias runs $LATEST", invokeResource, map[string]any{"FunctionName": "echo:prod", "Payload": int64(1)},
			int64(1), "$LATEST", 200},
		{"a payload that is not JSON stays a string", invokeResource, map[string]any{"FunctionName": "text"},
			"plain text", "$LATEST", 200},
		{"an empty payload is null", invokeResource, map[string]any{"FunctionName": "silent"},
			nil, "$LATEST", 200},
		{"Event answers 202 with an empty payload", invokeResource, map[string]any{"FunctionName": "echo", "InvocationType": "Event"},
			"", nil, 202},
		{"DryRun answers 204 with an empty payload", invokeResource, map[string]any{"FunctionName": "echo", "InvocationType": "DryRun"},
			"", nil, 204},
		{"the callback pattern invokes like lambda:invoke", invokeResource + ".waitForTaskToken",
			map[string]any{"FunctionName": "echo", "Payload": map[string]any{"token": "t"}},
			map[string]any{"token": "t"}, "$LATEST", 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := lambda.Invoke(context.Background(), tt.resource, tt.params)
			if err != nil {
				t.Fatalf("Invoke: %v", err)
			}
			if tt.wantStatus == 0 {
				if !reflect.DeepEqual(got, tt.wantPayload) {
					t.Errorf("output = %#v, want %#v", got, tt.wantPayload)
				}
				return
			}
			doc := got.(map[string]any)
			if !reflect.DeepEqual(doc["Payload"], tt.wantPayload) {
				t.Errorf("Payload = %#v, want %#v", doc["Payload"], tt.wantPayload)
			}
			if doc["ExecutedVersion"] != tt.wantVersion {
				t.Errorf("ExecutedVersion = %#v, want %#v", doc["ExecutedVersion"], tt.wantVersion)
			}
			if doc["StatusCode"] != tt.wantStatus {
				t.Errorf("StatusCode = %#v, want %d", doc["StatusCode"], tt.wantStatus)
			}
			if status := doc["SdkHttpMetadata"].(map[string]any)["HttpStatusCode"]; status != tt.wantStatus {
				t.Errorf("HttpStatusCode = %#v, want %d", status, tt.wantStatus)
			}
		})
	}
}

func TestFunctionErrors(t *testing.T) {
	reg := newRegistry(t)
	if err := reg.Register("work", lambdafn.FromLambdaHandler(doWork)); err != nil {
		t.Fatal(err)
	}
	lambda := lambdafn.NewIntegration(reg)
	tests := []struct {
		name      string
		payload   map[string]any
		wantName  string
		wantCause *regexp.Regexp
	}{
		{"a named error type is the error name", map[string]any{"job": int64(7), "fail": "typed"},
			"WorkFailed", exact(`{"errorMessage":"job 7 failed","errorType":"WorkFailed"}`)},
		{"errors.New is an errorString", map[string]any{"fail": "plain"},
			"errorString", exact(`{"errorMessage":"plain failure","errorType":"errorString"}`)},
		{"a wrapped error is named by the wrapper", map[string]any{"job": int64(7), "fail": "wrapped"},
			"wrapError", exact(`{"errorMessage":"wrapped: job 7 failed","errorType":"wrapError"}`)},
		{"a value error type", map[string]any{"fail": "value"},
			"quotaExceeded", exact(`{"errorMessage":"quota exceeded","errorType":"quotaExceeded"}`)},
		{"an InvokeResponse_Error sets its own type", map[string]any{"fail": "custom"},
			"Custom.Error", exact(`{"errorMessage":"custom failure","errorType":"Custom.Error"}`)},
		{"a panic is named by the panic value's type, with a stack trace", map[string]any{"fail": "panic"},
			"string", regexp.MustCompile(`^\{"errorMessage":"work exploded","errorType":"string","stackTrace":\[\{"path":"[^"]+","line":\d+,"label":"[^"]*doWork"\}`)},
		{"an event that does not decode", map[string]any{"job": "seven"},
			"UnmarshalTypeError", regexp.MustCompile(`^\{"errorMessage":"json: cannot unmarshal string into Go struct field workInput.job of type int","errorType":"UnmarshalTypeError"\}$`)},
		{"a simulated Lambda fault is a service error", map[string]any{"fail": "service"},
			"Lambda.ServiceException", regexp.MustCompile(`^Internal error\. \(Service: AWSLambda; Status Code: 500; Error Code: ServiceException; Request ID: [0-9a-f-]{36}; Proxy: null\)$`)},
		{"a simulated client fault has no service details", map[string]any{"fail": "sdkclient"},
			"Lambda.SdkClientException", exact(`Unable to execute HTTP request: Read timed out`)},
	}
	resources := []struct {
		name, resource string
		params         func(payload map[string]any) any
	}{
		{"lambda:invoke", invokeResource, func(p map[string]any) any { return map[string]any{"FunctionName": "work", "Payload": p} }},
		{"function ARN", fnARN("work"), func(p map[string]any) any { return p }},
	}
	for _, res := range resources {
		for _, tt := range tests {
			t.Run(res.name+"/"+tt.name, func(t *testing.T) {
				out, err := lambda.Invoke(context.Background(), res.resource, res.params(tt.payload))
				if err == nil {
					t.Fatalf("Invoke = %v, want an error", out)
				}
				got := asStatesError(t, err)
				if got.Name != tt.wantName {
					t.Errorf("error name = %q, want %q", got.Name, tt.wantName)
				}
				if !tt.wantCause.MatchString(got.Cause) {
					t.Errorf("cause = %s\nwant match of %s", got.Cause, tt.wantCause)
				}
			})
		}
	}
}

func TestServiceErrors(t *testing.T) {
	reg := newRegistry(t)
	if err := reg.Register("work", lambdafn.FromLambdaHandler(doWork)); err != nil {
		t.Fatal(err)
	}
	lambda := lambdafn.NewIntegration(reg)
	requestID := `Request ID: [0-9a-f-]{36}; Proxy: null\)$`
	tests := []struct {
		name      string
		resource  string
		params    any
		wantName  string
		wantCause *regexp.Regexp
	}{
		{"no handler for a function ARN", fnARN("nope"), map[string]any{},
			"Lambda.ResourceNotFoundException", regexp.MustCompile(`^Function not found: arn:aws:lambda:us-east-1:000000000000:function:nope ` +
				`\(the emulator has no handler registered for function "nope"\) \(Service: AWSLambda; Status Code: 404; Error Code: ResourceNotFoundException; ` + requestID)},
		{"no handler for a qualified name", invokeResource, map[string]any{"FunctionName": "nope:prod"},
			"Lambda.ResourceNotFoundException", regexp.MustCompile(`^Function not found: arn:aws:lambda:us-east-1:000000000000:function:nope:prod `)},
		{"no handler in another account", invokeResource, map[string]any{"FunctionName": "arn:aws:lambda:us-east-1:123456789012:function:work"},
			"Lambda.ResourceNotFoundException", regexp.MustCompile(`^Function not found: arn:aws:lambda:us-east-1:123456789012:function:work `)},
		{"a malformed function name", invokeResource, map[string]any{"FunctionName": "no spaces allowed"},
			"Lambda.AWSLambdaException", regexp.MustCompile(`^1 validation error detected: Value 'no spaces allowed' at 'functionName' failed to satisfy constraint: .* \(Service: AWSLambda; Status Code: 400; Error Code: ValidationException; ` + requestID)},
		{"qualifiers that disagree", invokeResource, map[string]any{"FunctionName": "work:1", "Qualifier": "2"},
			"Lambda.InvalidParameterValueException", regexp.MustCompile(`^The derived qualifier from the function name does not match the specified qualifier\. \(Service: AWSLambda; Status Code: 400; Error Code: InvalidParameterValueException; ` + requestID)},
		{"an unknown invocation type", invokeResource, map[string]any{"FunctionName": "work", "InvocationType": "Sync"},
			"Lambda.AWSLambdaException", regexp.MustCompile(`at 'invocationType' failed to satisfy constraint: Member must satisfy enum value set: \[Event, RequestResponse, DryRun\] \(Service: AWSLambda; Status Code: 400; Error Code: ValidationException; `)},
		{"a client context that is not base64 JSON", invokeResource, map[string]any{"FunctionName": "work", "ClientContext": "not base64!"},
			"Lambda.InvalidRequestContentException", regexp.MustCompile(`^Client context must be a valid Base64-encoded JSON object\. \(Service: AWSLambda; Status Code: 400; Error Code: InvalidRequestContentException; `)},
		{"Parameters that are not an object", invokeResource, "work",
			asl.ErrorRuntime, exact(`the Parameters of lambda:invoke must be an object, got a string`)},
		{"no FunctionName", invokeResource, map[string]any{"Payload": map[string]any{}},
			asl.ErrorRuntime, exact(`the lambda:invoke parameter 'FunctionName' is required`)},
		{"a FunctionName that is not a string", invokeResource, map[string]any{"FunctionName": int64(5)},
			asl.ErrorRuntime, exact(`the lambda:invoke parameter 'FunctionName' must be a string, got a number`)},
		{"an unknown parameter", invokeResource, map[string]any{"FunctionName": "work", "Payloads": map[string]any{}},
			asl.ErrorRuntime, exact(`the field 'Payloads' is not supported by Step Functions for lambda:invoke`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := lambda.Invoke(context.Background(), tt.resource, tt.params)
			if err == nil {
				t.Fatalf("Invoke = %v, want an error", out)
			}
			got := asStatesError(t, err)
			if got.Name != tt.wantName {
				t.Errorf("error name = %q, want %q", got.Name, tt.wantName)
			}
			if !tt.wantCause.MatchString(got.Cause) {
				t.Errorf("cause = %s\nwant match of %s", got.Cause, tt.wantCause)
			}
		})
	}
}

func TestSupports(t *testing.T) {
	lambda := lambdafn.NewIntegration(newRegistry(t))
	tests := []struct {
		resource string
		want     bool
	}{
		{"arn:aws:states:::lambda:invoke", true},
		{"arn:aws:states:::lambda:invoke.waitForTaskToken", true},
		{"arn:aws-cn:states:::lambda:invoke", true},
		{"arn:aws:lambda:us-east-1:000000000000:function:f", true},
		{"arn:aws:lambda:us-east-1:000000000000:function:f:prod", true},
		{"arn:aws:states:::lambda:invoke.sync", false},
		{"arn:aws:states:::aws-sdk:lambda:invoke", false},
		{"arn:aws:states:::dynamodb:putItem", false},
		{"000000000000:function:f", false},
		{"f", false},
	}
	for _, tt := range tests {
		if got := lambda.Supports(tt.resource); got != tt.want {
			t.Errorf("Supports(%q) = %v, want %v", tt.resource, got, tt.want)
		}
	}
}

func TestInvokeReturnsContextErrors(t *testing.T) {
	reg := newRegistry(t)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	started := make(chan struct{})
	err := reg.Register("stuck", func(context.Context, []byte) ([]byte, error) {
		close(started)
		<-release
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	_, err = lambdafn.NewIntegration(reg).Invoke(ctx, fnARN("stuck"), map[string]any{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Invoke error = %v, want context.Canceled", err)
	}
}

// exact matches s and nothing else.
func exact(s string) *regexp.Regexp {
	return regexp.MustCompile("^" + regexp.QuoteMeta(s) + "$")
}

// TestErrorNamesAreStable guards the names state machines match on.
func TestErrorNamesAreStable(t *testing.T) {
	tests := []struct{ code, want string }{
		{lambdafn.CodeTooManyRequests, "Lambda.TooManyRequestsException"},
		{lambdafn.CodeResourceNotFound, "Lambda.ResourceNotFoundException"},
		{lambdafn.CodeService, "Lambda.ServiceException"},
		{lambdafn.CodeSdkClient, "Lambda.SdkClientException"},
		{lambdafn.CodeValidation, "Lambda.AWSLambdaException"},
		{"KMSDisabledException", "Lambda.AWSLambdaException"},
	}
	for _, tt := range tests {
		if got := lambdafn.NewServiceError(tt.code, "m").StatesErrorName(); got != tt.want {
			t.Errorf("StatesErrorName(%s) = %q, want %q", tt.code, got, tt.want)
		}
	}
}
