package stack

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/turnstile-sfn/turnstile/emulator/template"
)

const event = `{"version":"0","id":"e1","detail-type":"Step Functions Execution Status Change","source":"aws.states","detail":{"executionArn":"arn:x","status":"ABORTED","input":"{\"k\":1}","redriveCount":2}}`

func TestTargetInput(t *testing.T) {
	tests := []struct {
		name   string
		target template.Target
		want   string
	}{
		{"whole event", template.Target{}, event},
		{"constant input", template.Target{Input: `{"fixed":true}`}, `{"fixed":true}`},
		{"input path", template.Target{InputPath: "$.detail"}, `{"executionArn":"arn:x","input":"{\"k\":1}","redriveCount":2,"status":"ABORTED"}`},
		{"input path to nothing", template.Target{InputPath: "$.nope"}, `null`},
		{"transformer", template.Target{InputTransformer: &template.InputTransformer{
			InputPathsMap: map[string]string{"arn": "$.detail.executionArn", "count": "$.detail.redriveCount", "in": "$.detail.input"},
			InputTemplate: `{"execution": <arn>, "text": "<arn> after <count> redrives", "n": <count>, "raw": <in>}`,
		}}, `{"execution": "arn:x", "text": "arn:x after 2 redrives", "n": 2, "raw": "{\"k\":1}"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := targetInput(tt.target, []byte(event))
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			if !json.Valid([]byte(got)) {
				t.Errorf("%s is not JSON", got)
			}
		})
	}
	if _, err := targetInput(template.Target{InputPath: "$.["}, []byte(event)); !errors.Is(err, ErrTargetInput) {
		t.Errorf("an invalid path gave %v, want ErrTargetInput", err)
	}
}

func TestUsedFunctionsNeedHandlers(t *testing.T) {
	used := template.Function{LogicalID: "Work", Name: "work-fn", ARN: "arn:aws:lambda:us-east-1:0:function:work-fn"}
	unused := template.Function{LogicalID: "Other", Name: "other-fn", ARN: "arn:aws:lambda:us-east-1:0:function:other-fn"}
	tmpl := &template.Template{
		Functions:     []template.Function{used, unused},
		StateMachines: []template.StateMachine{{Definition: `{"Parameters":{"FunctionName":"` + used.ARN + `"}}`}},
	}
	err := bindFunctions(context.Background(), nil, tmpl, nil, HandlerEnv{}, 1, &runtimeFunctions{}, &metricLog{})
	if !errors.Is(err, ErrNoHandler) {
		t.Fatalf("bindFunctions without handlers = %v, want ErrNoHandler", err)
	}
	for _, want := range []string{"function work-fn (logical ID Work)", "turnstile:go-package"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "other-fn") {
		t.Errorf("error %q names a function nothing uses", err)
	}
}
