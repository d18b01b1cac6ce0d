package stack

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/emulator/lambdafn"
	"github.com/turnstile-sfn/turnstile/emulator/runtimeapi"
	"github.com/turnstile-sfn/turnstile/emulator/template"
	"github.com/turnstile-sfn/turnstile/golambda/gobuild"
)

// runtimeTestPackage is runtimeapi's test function: it returns an environment variable on
// {"action":"env","value":NAME}.
const runtimeTestPackage = "github.com/turnstile-sfn/turnstile/emulator/runtimeapi/testdata/fn"

func TestFunctionsWithoutHandlerRunThroughTheRuntimeAPI(t *testing.T) {
	fn := template.Function{
		LogicalID: "Work", Name: "work-fn", ARN: "arn:aws:lambda:us-east-1:000000000000:function:work-fn",
		GoPackage: runtimeTestPackage, MemorySize: 128, Timeout: 30 * time.Second,
		Environment: map[string]string{"LOCK_TABLE": "locks"},
	}
	tmpl := &template.Template{
		Functions:     []template.Function{fn},
		StateMachines: []template.StateMachine{{Definition: `{"Parameters":{"FunctionName":"` + fn.ARN + `"}}`}},
	}
	reg, err := lambdafn.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	rt := &runtimeFunctions{moduleDir: "../..", log: io.Discard, region: "us-east-1",
		endpoints: runtimeapi.Endpoints{DynamoDB: "http://127.0.0.1:1", StepFunctions: "http://127.0.0.1:2"}}
	t.Cleanup(func() {
		if err := reg.Close(context.Background()); err != nil {
			t.Error(err)
		}
		if err := rt.close(); err != nil {
			t.Error(err)
		}
	})
	if err := bindFunctions(context.Background(), reg, tmpl, nil, HandlerEnv{}, 1, rt, &metricLog{}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"LOCK_TABLE":                "locks",
		"AWS_LAMBDA_FUNCTION_NAME":  "work-fn",
		"AWS_ENDPOINT_URL_DYNAMODB": "http://127.0.0.1:1",
		"AWS_ENDPOINT_URL_SFN":      "http://127.0.0.1:2",
	} {
		out, err := reg.Invoke(context.Background(), &lambdafn.InvokeInput{FunctionName: fn.ARN, Payload: []byte(`{"action":"env","value":"` + name + `"}`)})
		if err != nil || out.FunctionError != "" {
			t.Fatalf("invoke: %v %s", err, out.Payload)
		}
		var got struct{ Value string }
		if err := json.Unmarshal(out.Payload, &got); err != nil {
			t.Fatal(err)
		}
		if got.Value != want {
			t.Errorf("%s = %q, want %q", name, got.Value, want)
		}
	}
}

func TestFunctionWhosePackageDoesNotBuildFailsTheBinding(t *testing.T) {
	fn := template.Function{LogicalID: "Work", Name: "work-fn", ARN: "arn:aws:lambda:us-east-1:0:function:work-fn", GoPackage: "example.com/not/a/module/work"}
	tmpl := &template.Template{
		Functions:     []template.Function{fn},
		StateMachines: []template.StateMachine{{Definition: `{"Parameters":{"FunctionName":"` + fn.ARN + `"}}`}},
	}
	rt := &runtimeFunctions{log: io.Discard}
	defer rt.close()
	err := bindFunctions(context.Background(), nil, tmpl, nil, HandlerEnv{}, 1, rt, &metricLog{})
	if !errors.Is(err, gobuild.ErrPackageNotFound) || !strings.Contains(err.Error(), fn.GoPackage) {
		t.Fatalf("bindFunctions = %v, want gobuild.ErrPackageNotFound naming %s", err, fn.GoPackage)
	}
}
