package emulator

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/asl"
)

// The examples in this file are printed in the AWS Step Functions Developer Guide (pages "InputPath,
// Parameters and ResultSelector", "ResultPath", "InputPath, ResultPath and OutputPath Example",
// "Choice", "Map", "The Context Object", "Parallel", "Error Handling" and the getting-started
// tutorial on ResultSelector). The definitions, inputs and outputs are AWS's; the Lambda functions
// they call are Go stand-ins that do what the guide says they do.

const (
	helloFunction = "arn:aws:lambda:us-east-1:123456789012:function:HelloFunction"
	failFunction  = "arn:aws:lambda:us-east-1:123456789012:function:FailFunction"
	sleep10       = "arn:aws:lambda:us-east-1:123456789012:function:sleep10"
	helloResult   = "Hello, AWS Step Functions!"
)

// docLambdas stands in for the Lambda functions of the guide's examples.
func docLambdas(em *Emulator) *fakeIntegration {
	return newFake().
		handle(helloFunction, returning(helloResult)).
		handle(failFunction, func(context.Context, *TaskCall) (any, error) {
			return nil, asl.NewError("HandledError", "error")
		}).
		handle(sleep10, func(ctx context.Context, _ *TaskCall) (any, error) {
			return nil, em.Clock().Sleep(ctx, 10*time.Second)
		})
}

// helloTask is the guide's "Creating a Lambda State Machine" task with one extra field.
func helloTask(field, value string) string {
	return `{"StartAt":"HelloWorld","States":{"HelloWorld":{"Type":"Task","Resource":"` + helloFunction + `",` +
		`"` + field + `":` + value + `,"End":true}}}`
}

func TestDocsDataFlowExamples(t *testing.T) {
	em := newEmulator(t, 0)
	em.RegisterIntegration(docLambdas(em))
	tests := []struct {
		name, definition, input, want string
	}{
		{
			name:       "InputPath selects dataset2",
			definition: `{"StartAt":"S","States":{"S":{"Type":"Pass","InputPath":"$.dataset2","End":true}}}`,
			input:      `{"comment":"Example for InputPath.","dataset1":{"val1":1,"val2":2,"val3":3},"dataset2":{"val1":"a","val2":"b","val3":"c"}}`,
			want:       `{"val1":"a","val2":"b","val3":"c"}`,
		},
		{
			name:       "a path can yield a selection of values",
			definition: `{"StartAt":"S","States":{"S":{"Type":"Pass","InputPath":"$.a[0:2]","End":true}}}`,
			input:      `{"a":[1,2,3,4]}`,
			want:       `[1,2]`,
		},
		{
			name: "Parameters select what I care about",
			definition: `{"StartAt":"S","States":{"S":{"Type":"Pass","Parameters":{"comment":"Selecting what I care about.",` +
				`"MyDetails":{"size.$":"$.product.details.size","exists.$":"$.product.availability","StaticValue":"foo"}},"End":true}}}`,
			input: `{"comment":"Example for Parameters.","product":{"details":{"color":"blue","size":"small","material":"cotton"},` +
				`"availability":"in stock","sku":"2317","cost":"$23"}}`,
			want: `{"comment":"Selecting what I care about.","MyDetails":{"size":"small","exists":"in stock","StaticValue":"foo"}}`,
		},
		{
			name:       "ResultPath absent replaces the input with the result",
			definition: helloTask("Comment", `"default ResultPath"`),
			input:      `{"comment":"This is a test of the input and output of a Task state.","details":"Default example","who":"AWS Step Functions"}`,
			want:       `"Hello, AWS Step Functions!"`,
		},
		{
			name:       "ResultPath includes the result with the input",
			definition: helloTask("ResultPath", `"$.taskresult"`),
			input:      `{"comment":"This is a test of the input and output of a Task state.","details":"Default example","who":"AWS Step Functions"}`,
			want: `{"comment":"This is a test of the input and output of a Task state.","details":"Default example",` +
				`"who":"AWS Step Functions","taskresult":"Hello, AWS Step Functions!"}`,
		},
		{
			name:       "ResultPath inserts the result into a child node",
			definition: helloTask("ResultPath", `"$.strings.lambdaresult"`),
			input:      `{"comment":"An input comment.","strings":{"string1":"foo","string2":"bar","string3":"baz"},"who":"AWS Step Functions"}`,
			want: `{"comment":"An input comment.","strings":{"string1":"foo","string2":"bar","string3":"baz",` +
				`"lambdaresult":"Hello, AWS Step Functions!"},"who":"AWS Step Functions"}`,
		},
		{
			name:       "ResultPath updates a node of the input",
			definition: helloTask("ResultPath", `"$.comment"`),
			input:      `{"comment":"This is a test of the input and output of a Task state.","details":"Default example","who":"AWS Step Functions"}`,
			want:       `{"comment":"Hello, AWS Step Functions!","details":"Default example","who":"AWS Step Functions"}`,
		},
		{
			name: "InputPath, ResultPath and OutputPath example",
			definition: `{"Comment":"A Hello World example of the Amazon States Language using an AWS Lambda function","StartAt":"HelloWorld",` +
				`"States":{"HelloWorld":{"Type":"Task","Resource":"` + helloFunction + `","InputPath":"$.lambda",` +
				`"ResultPath":"$.data.lambdaresult","OutputPath":"$.data","End":true}}}`,
			input: `{"comment":"An input comment.","data":{"val1":23,"val2":17},"extra":"foo","lambda":{"who":"AWS Step Functions"}}`,
			want:  `{"val1":23,"val2":17,"lambdaresult":"Hello, AWS Step Functions!"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runMachine(t, em, tt.definition, tt.input)
			if got.Status != StatusSucceeded {
				t.Fatalf("status: got %s (%s: %s), want SUCCEEDED", got.Status, deref(got.Error), deref(got.Cause))
			}
			if !sameJSON(mustJSON(t, *got.Output), mustJSON(t, tt.want)) {
				t.Errorf("output:\n got %s\nwant %s", *got.Output, tt.want)
			}
		})
	}
}

func TestDocsResultSelectorExample(t *testing.T) {
	// The tutorial's check-identity function returns this Lambda invoke result.
	lambdaOutput := map[string]any{
		"ExecutedVersion": "$LATEST",
		"Payload":         map[string]any{"statusCode": int64(200), "body": `{"approved":true,"message":"identity validation passed"}`},
		"SdkHttpMetadata": map[string]any{"HttpStatusCode": int64(200)},
	}
	resource := "arn:aws:states:::lambda:invoke"
	em := newEmulator(t, 0, newFake().handle(resource, returning(lambdaOutput)))
	got := runMachine(t, em, `{"StartAt":"Verify identity","States":{"Verify identity":{"Type":"Task","Resource":"`+resource+`",`+
		`"Parameters":{"FunctionName":"check-identity","Payload.$":"$"},`+
		`"ResultSelector":{"identity.$":"States.StringToJson($.Payload.body)"},"End":true}}}`, `{}`)
	// The guide prints the message capitalized ("Identity validation passed") although the body
	// it selects from is lower case; the function's own text is what comes out.
	want := `{"identity":{"approved":true,"message":"identity validation passed"}}`
	if got.Status != StatusSucceeded || !sameJSON(mustJSON(t, *got.Output), mustJSON(t, want)) {
		t.Fatalf("got %s %s, want SUCCEEDED %s", got.Status, deref(got.Output), want)
	}
}

func TestDocsCatchResultPathKeepsInputAndError(t *testing.T) {
	em := newEmulator(t, 0, newFake().handle(failFunction, func(context.Context, *TaskCall) (any, error) {
		return nil, asl.NewError("Error here", "")
	}))
	got := runMachine(t, em, `{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"`+failFunction+`",`+
		`"Catch":[{"ErrorEquals":["States.ALL"],"Next":"NextTask","ResultPath":"$.error"}],"End":true},`+
		`"NextTask":{"Type":"Pass","End":true}}}`, `{"foo":"bar"}`)
	out, _ := mustJSON(t, deref(got.Output)).(map[string]any)
	errorOutput, _ := out["error"].(map[string]any)
	if got.Status != StatusSucceeded || out["foo"] != "bar" || errorOutput["Error"] != "Error here" {
		t.Fatalf("got %s %s, want the input with error.Error = \"Error here\"", got.Status, deref(got.Output))
	}
}

// choiceExample is the guide's Choice State Example, completed with the StartAt it needs and the
// NextState its tasks go to.
const choiceExample = `{"StartAt":"ChoiceStateX","States":{
"ChoiceStateX":{"Type":"Choice","Choices":[
  {"Not":{"Variable":"$.type","StringEquals":"Private"},"Next":"Public"},
  {"Variable":"$.value","NumericEquals":0,"Next":"ValueIsZero"},
  {"And":[{"Variable":"$.value","NumericGreaterThanEquals":20},{"Variable":"$.value","NumericLessThan":30}],"Next":"ValueInTwenties"}],
  "Default":"DefaultState"},
"Public":{"Type":"Task","Resource":"arn:aws:lambda:us-east-1:123456789012:function:Foo","Next":"NextState"},
"ValueIsZero":{"Type":"Task","Resource":"arn:aws:lambda:us-east-1:123456789012:function:Zero","Next":"NextState"},
"ValueInTwenties":{"Type":"Task","Resource":"arn:aws:lambda:us-east-1:123456789012:function:Bar","Next":"NextState"},
"DefaultState":{"Type":"Fail","Cause":"No Matches!"},
"NextState":{"Type":"Pass","End":true}}}`

func TestDocsChoiceExample(t *testing.T) {
	fake := newFake()
	for _, fn := range []string{"Foo", "Zero", "Bar"} {
		fake.handle("arn:aws:lambda:us-east-1:123456789012:function:"+fn, returning(fn))
	}
	em := newEmulator(t, 0, fake)
	arn := create(t, em, choiceExample)
	tests := []struct {
		input, wantState string
		wantStatus       ExecutionStatus
	}{
		{`{"type":"Private","value":22}`, "ValueInTwenties", StatusSucceeded}, // the guide's example
		{`{"type":"Public","value":22}`, "Public", StatusSucceeded},
		{`{"type":"Private","value":0}`, "ValueIsZero", StatusSucceeded},
		{`{"type":"Private","value":35}`, "DefaultState", StatusFailed},
	}
	for _, tt := range tests {
		t.Run(tt.input, func(t *testing.T) {
			done := execute(t, em, arn, tt.input)
			states := enteredStates(history(t, em, done.ExecutionArn))
			if done.Status != tt.wantStatus || len(states) < 2 || states[1] != tt.wantState {
				t.Fatalf("got %s through %v, want %s through %s", done.Status, states, tt.wantStatus, tt.wantState)
			}
			if tt.wantStatus == StatusFailed && (deref(done.Cause) != "No Matches!" || done.Error != nil) {
				t.Errorf("failure: got error %s cause %s, want no error and cause \"No Matches!\"", deref(done.Error), deref(done.Cause))
			}
		})
	}
}

func TestDocsMapExampleWithParameters(t *testing.T) {
	shipVal := "arn:aws:lambda:us-east-1:123456789012:function:ship-val"
	fake := newFake().handle(shipVal, func(_ context.Context, call *TaskCall) (any, error) {
		parcel := call.Parameters.(map[string]any)["parcel"].(map[string]any)
		return map[string]any{"prod": parcel["prod"], "valid": true}, nil
	})
	em := newEmulator(t, 0, fake)
	definition := `{"StartAt":"Validate-All","States":{"Validate-All":{"Type":"Map","InputPath":"$.detail","ItemsPath":"$.shipped",
"MaxConcurrency":0,"ResultPath":"$.detail.shipped","Parameters":{"parcel.$":"$$.Map.Item.Value","courier.$":"$.delivery-partner"},
"Iterator":{"StartAt":"Validate","States":{"Validate":{"Type":"Task","Resource":"` + shipVal + `","End":true}}},"End":true}}}`
	input := `{"ship-date":"2016-03-14T01:59:00Z","detail":{"delivery-partner":"UQS","shipped":[
{"prod":"R31","dest-code":9511,"quantity":1344},{"prod":"S39","dest-code":9511,"quantity":40},
{"prod":"R31","dest-code":9833,"quantity":12},{"prod":"R40","dest-code":9860,"quantity":887},
{"prod":"R40","dest-code":9511,"quantity":1220}]}}`
	got := runMachine(t, em, definition, input)
	if got.Status != StatusSucceeded {
		t.Fatalf("status %s: %s %s", got.Status, deref(got.Error), deref(got.Cause))
	}
	// "The following is an example of input to a single iteration."
	wantFirst := mustJSON(t, `{"parcel":{"prod":"R31","dest-code":9511,"quantity":1344},"courier":"UQS"}`)
	calls := fake.received(shipVal)
	if len(calls) != 5 || !slices.ContainsFunc(calls, func(c any) bool { return sameJSON(c, wantFirst) }) {
		t.Fatalf("ship-val inputs: got %s, want 5 calls including %s", encodeJSON(calls), encodeJSON(wantFirst))
	}
	// "...the output the same as the input, but with the detail.shipped field overwritten by an
	// array in which each element is the output of the ship-val Lambda function."
	want := `{"ship-date":"2016-03-14T01:59:00Z","detail":{"delivery-partner":"UQS","shipped":[
{"prod":"R31","valid":true},{"prod":"S39","valid":true},{"prod":"R31","valid":true},{"prod":"R40","valid":true},{"prod":"R40","valid":true}]}}`
	if !sameJSON(mustJSON(t, *got.Output), mustJSON(t, want)) {
		t.Errorf("output:\n got %s\nwant %s", *got.Output, want)
	}
}

func TestDocsContextObjectMapExample(t *testing.T) {
	em := newEmulator(t, 0)
	got := runMachine(t, em, `{"StartAt":"ExampleMapState","States":{"ExampleMapState":{"Type":"Map",
"Parameters":{"ContextIndex.$":"$$.Map.Item.Index","ContextValue.$":"$$.Map.Item.Value"},
"Iterator":{"StartAt":"TestPass","States":{"TestPass":{"Type":"Pass","End":true}}},"End":true}}}`,
		`[{"who":"bob"},{"who":"meg"},{"who":"joe"}]`)
	want := `[{"ContextValue":{"who":"bob"},"ContextIndex":0},{"ContextValue":{"who":"meg"},"ContextIndex":1},{"ContextValue":{"who":"joe"},"ContextIndex":2}]`
	if got.Status != StatusSucceeded || !sameJSON(mustJSON(t, *got.Output), mustJSON(t, want)) {
		t.Fatalf("got %s %s, want %s", got.Status, deref(got.Output), want)
	}
}

func TestDocsParallelExamples(t *testing.T) {
	add := "arn:aws:swf:us-east-1:123456789012:task:Add"
	subtract := "arn:aws:swf:us-east-1:123456789012:task:Subtract"
	addressFinder := "arn:aws:lambda:us-east-1:123456789012:function:AddressFinder"
	phoneFinder := "arn:aws:lambda:us-east-1:123456789012:function:PhoneFinder"
	pair := func(call *TaskCall) (int64, int64) {
		a := call.Parameters.([]any)
		return a[0].(int64), a[1].(int64)
	}
	fake := newFake().
		handle(add, func(_ context.Context, c *TaskCall) (any, error) { x, y := pair(c); return x + y, nil }).
		handle(subtract, func(_ context.Context, c *TaskCall) (any, error) { x, y := pair(c); return x - y, nil }).
		handle(addressFinder, returning("1 Main Street")).
		handle(phoneFinder, returning("555-0100"))
	em := newEmulator(t, 0, fake)
	tests := []struct {
		name, definition, input, want string
	}{
		{
			name: "FunWithMath",
			definition: `{"Comment":"Parallel Example.","StartAt":"FunWithMath","States":{"FunWithMath":{"Type":"Parallel","End":true,
"Branches":[{"StartAt":"Add","States":{"Add":{"Type":"Task","Resource":"` + add + `","End":true}}},
{"StartAt":"Subtract","States":{"Subtract":{"Type":"Task","Resource":"` + subtract + `","End":true}}}]}}}`,
			input: `[3,2]`,
			want:  `[5,1]`,
		},
		{
			name: "LookupCustomerInfo",
			definition: `{"Comment":"Parallel Example.","StartAt":"LookupCustomerInfo","States":{"LookupCustomerInfo":{"Type":"Parallel","End":true,
"Branches":[{"StartAt":"LookupAddress","States":{"LookupAddress":{"Type":"Task","Resource":"` + addressFinder + `","End":true}}},
{"StartAt":"LookupPhone","States":{"LookupPhone":{"Type":"Task","Resource":"` + phoneFinder + `","End":true}}}]}}}`,
			input: `{"customer":"C-1"}`,
			want:  `["1 Main Street","555-0100"]`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runMachine(t, em, tt.definition, tt.input)
			if got.Status != StatusSucceeded || !sameJSON(mustJSON(t, *got.Output), mustJSON(t, tt.want)) {
				t.Fatalf("got %s %s (%s), want %s", got.Status, deref(got.Output), deref(got.Cause), tt.want)
			}
		})
	}
}

func TestDocsErrorHandlingExamples(t *testing.T) {
	em := newEmulator(t, 0)
	fake := docLambdas(em)
	em.RegisterIntegration(fake)
	machine := func(resource, extra string) string {
		fallback := ""
		if strings.Contains(extra, `"fallback"`) {
			fallback = `,"fallback":{"Type":"Pass","Result":"Hello, AWS Step Functions!","End":true}`
		}
		return `{"Comment":"A Hello World example of the Amazon States Language using an AWS Lambda function","StartAt":"HelloWorld",
"States":{"HelloWorld":{"Type":"Task","Resource":"` + resource + `",` + extra + `"End":true}` + fallback + `}}`
	}
	tests := []struct {
		name       string
		definition string
		resource   string
		wantStatus ExecutionStatus
		wantError  string
		wantOutput string
		wantCalls  int
	}{
		{"retry HandledError", machine(failFunction, `"Retry":[{"ErrorEquals":["HandledError"],"IntervalSeconds":1,"MaxAttempts":2,"BackoffRate":2.0}],`),
			failFunction, StatusFailed, "HandledError", "", 3},
		{"retry States.TaskFailed", machine(failFunction, `"Retry":[{"ErrorEquals":["States.TaskFailed"],"IntervalSeconds":1,"MaxAttempts":2,"BackoffRate":2.0}],`),
			failFunction, StatusFailed, "HandledError", "", 3},
		{"catch HandledError", machine(failFunction, `"Catch":[{"ErrorEquals":["HandledError"],"Next":"fallback"}],`),
			failFunction, StatusSucceeded, "", `"Hello, AWS Step Functions!"`, 1},
		{"catch States.TaskFailed", machine(failFunction, `"Catch":[{"ErrorEquals":["States.TaskFailed"],"Next":"fallback"}],`),
			failFunction, StatusSucceeded, "", `"Hello, AWS Step Functions!"`, 1},
		{"retry States.Timeout", machine(sleep10, `"TimeoutSeconds":2,"Retry":[{"ErrorEquals":["States.Timeout"],"IntervalSeconds":1,"MaxAttempts":2,"BackoffRate":2.0}],`),
			sleep10, StatusFailed, "States.Timeout", "", 3},
		{"catch States.Timeout", machine(sleep10, `"TimeoutSeconds":2,"Catch":[{"ErrorEquals":["States.Timeout"],"Next":"fallback"}],`),
			sleep10, StatusSucceeded, "", `"Hello, AWS Step Functions!"`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := fake.count(tt.resource)
			got := runMachine(t, em, tt.definition, `{}`)
			if got.Status != tt.wantStatus || deref(got.Error) != orNil(tt.wantError) {
				t.Fatalf("got %s %s, want %s %s", got.Status, deref(got.Error), tt.wantStatus, tt.wantError)
			}
			if tt.wantOutput != "" && deref(got.Output) != tt.wantOutput {
				t.Errorf("output: got %s, want %s", deref(got.Output), tt.wantOutput)
			}
			if calls := fake.count(tt.resource) - before; calls != tt.wantCalls {
				t.Errorf("invocations: got %d, want %d", calls, tt.wantCalls)
			}
		})
	}
}

// orNil renders an expected optional string as deref does.
func orNil(s string) string {
	if s == "" {
		return "<nil>"
	}
	return s
}
