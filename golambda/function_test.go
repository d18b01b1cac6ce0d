package golambda_test

import (
	"encoding/json"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"

	"github.com/turnstile-sfn/turnstile/internal/metadata"
)

// jsonOf renders v as JSON with sorted keys, for comparing template fragments.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("json.Marshal(%v): %v", v, err)
	}
	return string(out)
}

func TestFunctionProperties(t *testing.T) {
	tmpl := template(t, skippedStack)
	ref := func(path string) any { return map[string]any{"Ref": logicalIDAt(t, tmpl, path)} }
	arn := func(path string) any { return map[string]any{"Fn::GetAtt": []any{logicalIDAt(t, tmpl, path), "Arn"}} }
	tests := []struct {
		name   string
		pkg    string // the import path recorded in the metadata
		want   map[string]any
		absent []string
	}{
		{
			name: "Minimal",
			pkg:  "github.com/turnstile-sfn/turnstile/golambda/testdata/hello",
			want: map[string]any{
				"Architectures": []any{"arm64"},
				"Runtime":       "provided.al2023",
				"Handler":       "bootstrap",
				"MemorySize":    128,
				"Timeout":       30,
				"LoggingConfig": map[string]any{"LogGroup": ref("Skipped/Minimal/LogGroup")},
				"Role":          arn("Skipped/Minimal/ServiceRole"),
			},
			absent: []string{"Environment", "ReservedConcurrentExecutions", "Description"},
		},
		{
			name: "Full",
			pkg:  "github.com/turnstile-sfn/turnstile/lambdas/dowork",
			want: map[string]any{
				"Architectures":                []any{"arm64"},
				"Runtime":                      "provided.al2023",
				"Handler":                      "bootstrap",
				"MemorySize":                   256,
				"Timeout":                      60,
				"ReservedConcurrentExecutions": 5,
				"Description":                  "demo work",
				"Environment":                  map[string]any{"Variables": map[string]any{"WORK_DURATION": "2s"}},
				"LoggingConfig":                map[string]any{"LogGroup": ref("Skipped/Full/LogGroup")},
				"Role":                         arn("Skipped/Full/ServiceRole"),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fn := resourceAt(t, tmpl, "Skipped/"+tt.name+"/Function")
			if got := fn["Type"]; got != "AWS::Lambda::Function" {
				t.Fatalf("Type = %v, want AWS::Lambda::Function", got)
			}
			meta, _ := fn["Metadata"].(map[string]any)
			if got, want := meta[metadata.GoPackage], tt.pkg; got != want {
				t.Errorf("Metadata[%s] = %v, want %q", metadata.GoPackage, got, want)
			}
			props, _ := fn["Properties"].(map[string]any)
			for key, want := range tt.want {
				if got, want := jsonOf(t, props[key]), jsonOf(t, want); got != want {
					t.Errorf("%s = %s, want %s", key, got, want)
				}
			}
			for _, key := range tt.absent {
				if got, ok := props[key]; ok {
					t.Errorf("%s = %v, want it absent", key, got)
				}
			}
		})
	}
}

func TestLogGroup(t *testing.T) {
	tmpl := template(t, skippedStack)
	tests := []struct {
		name string
		want int
	}{
		{name: "Minimal", want: 30},
		{name: "Full", want: 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			group := resourceAt(t, tmpl, "Skipped/"+tt.name+"/LogGroup")
			props, _ := group["Properties"].(map[string]any)
			if got := props["RetentionInDays"]; got != float64(tt.want) {
				t.Errorf("RetentionInDays = %v, want %d", got, tt.want)
			}
			if got := group["DeletionPolicy"]; got != "Delete" {
				t.Errorf("DeletionPolicy = %v, want Delete", got)
			}
		})
	}
}

// TestRoleMayOnlyWriteItsLogs checks that each role's only permission is writing to its own log
// group, and that no AWS managed policy (AWSLambdaBasicExecutionRole) is attached.
func TestRoleMayOnlyWriteItsLogs(t *testing.T) {
	tmpl := template(t, skippedStack)
	for _, name := range []string{"Minimal", "Full"} {
		t.Run(name, func(t *testing.T) {
			policy := resourceAt(t, tmpl, "Skipped/"+name+"/ServiceRole/DefaultPolicy")
			props, _ := policy["Properties"].(map[string]any)
			document, _ := props["PolicyDocument"].(map[string]any)
			got := jsonOf(t, document["Statement"])
			want := jsonOf(t, []any{map[string]any{
				"Action":   []any{"logs:CreateLogStream", "logs:PutLogEvents"},
				"Effect":   "Allow",
				"Resource": map[string]any{"Fn::GetAtt": []any{logicalIDAt(t, tmpl, "Skipped/"+name+"/LogGroup"), "Arn"}},
			}})
			if got != want {
				t.Errorf("policy statements = %s, want %s", got, want)
			}
			roles, _ := props["Roles"].([]any)
			if got, want := jsonOf(t, roles), jsonOf(t, []any{map[string]any{"Ref": logicalIDAt(t, tmpl, "Skipped/"+name+"/ServiceRole")}}); got != want {
				t.Errorf("policy roles = %s, want %s", got, want)
			}
		})
	}
	if err := catchPanic(func() {
		assertions.Template_FromJSON(&tmpl, nil).AllResourcesProperties(jsii.String("AWS::IAM::Role"),
			map[string]any{"ManagedPolicyArns": assertions.Match_Absent()})
	}); err != nil {
		t.Errorf("a role has managed policies: %v", err)
	}
	if err := catchPanic(func() {
		assertions.Template_FromJSON(&tmpl, nil).ResourceCountIs(jsii.String("AWS::IAM::Role"), jsii.Number(2))
	}); err != nil {
		t.Errorf("role count: %v", err)
	}
}
