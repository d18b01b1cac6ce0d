package template_test

import (
	"errors"
	"testing"

	"github.com/turnstile-sfn/turnstile/emulator/template"
)

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name          string
		body          string
		wantErr       error
		wantLogicalID string
		wantPath      string
	}{
		{
			name:    "not JSON",
			body:    `{"Resources": `,
			wantErr: template.ErrInvalidTemplate,
		},
		{
			name:    "no Resources section",
			body:    `{"Parameters": {}}`,
			wantErr: template.ErrInvalidTemplate,
		},
		{
			name:    "resource without a type",
			body:    `{"Resources": {"Thing": {"Properties": {}}}}`,
			wantErr: template.ErrInvalidTemplate,
		},
		{
			name: "Ref to an unknown resource inside Fn::Join",
			body: `{"Resources": {"Machine": {"Type": "AWS::StepFunctions::StateMachine", "Properties": {
				"DefinitionString": {"Fn::Join": ["", ["{\"StartAt\":\"", {"Ref": "Missing"}, "\"}"]]}}}}}`,
			wantErr:       template.ErrUnknownReference,
			wantLogicalID: "Machine",
			wantPath:      "Properties.DefinitionString.Fn::Join[1][1].Ref",
		},
		{
			name: "GetAtt of an attribute the emulator does not model",
			body: `{"Resources": {
				"Table": {"Type": "AWS::DynamoDB::Table", "Properties": {"KeySchema": []}},
				"Fn": {"Type": "AWS::Lambda::Function", "Properties": {"Environment": {"Variables": {"X": {"Fn::GetAtt": ["Table", "Bogus"]}}}}}}}`,
			wantErr:       template.ErrUnsupportedAttribute,
			wantLogicalID: "Fn",
			wantPath:      "Properties.Environment.Variables.X.Fn::GetAtt",
		},
		{
			name: "unsupported intrinsic",
			body: `{"Resources": {"Fn": {"Type": "AWS::Lambda::Function", "Properties": {
				"Role": {"Fn::ImportValue": "SharedRoleArn"}}}}}`,
			wantErr:       template.ErrUnsupportedIntrinsic,
			wantLogicalID: "Fn",
			wantPath:      "Properties.Role.Fn::ImportValue",
		},
		{
			name: "definition stored in S3",
			body: `{"Resources": {"Machine": {"Type": "AWS::StepFunctions::StateMachine", "Properties": {
				"DefinitionS3Location": {"Bucket": "b", "Key": "k"}}}}}`,
			wantErr:       template.ErrNotSupported,
			wantLogicalID: "Machine",
			wantPath:      "Properties.DefinitionS3Location",
		},
		{
			name:          "state machine without a definition",
			body:          `{"Resources": {"Machine": {"Type": "AWS::StepFunctions::StateMachine", "Properties": {}}}}`,
			wantErr:       template.ErrInvalidProperty,
			wantLogicalID: "Machine",
			wantPath:      "Properties",
		},
		{
			name: "physical name that depends on itself",
			body: `{"Resources": {"Table": {"Type": "AWS::DynamoDB::Table", "Properties": {
				"TableName": {"Fn::Join": ["-", [{"Fn::GetAtt": ["Table", "Arn"]}, "x"]]}}}}}`,
			wantErr:       template.ErrCircularReference,
			wantLogicalID: "Table",
			wantPath:      "Properties",
		},
		{
			name: "parameter without a default",
			body: `{"Parameters": {"Env": {"Type": "String"}},
				"Resources": {"Queue": {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": {"Ref": "Env"}}}}}`,
			wantErr:       template.ErrMissingParameter,
			wantLogicalID: "Queue",
			wantPath:      "Properties.QueueName.Ref",
		},
		{
			name: "Fn::Select out of range",
			body: `{"Resources": {"Queue": {"Type": "AWS::SQS::Queue", "Properties": {
				"QueueName": {"Fn::Select": [3, {"Fn::Split": [",", "a,b"]}]}}}}}`,
			wantErr:       template.ErrInvalidIntrinsic,
			wantLogicalID: "Queue",
			wantPath:      "Properties.QueueName.Fn::Select[0]",
		},
		{
			name: "Fn::If on an undefined condition",
			body: `{"Resources": {"Queue": {"Type": "AWS::SQS::Queue", "Properties": {
				"QueueName": {"Fn::If": ["Nope", "a", "b"]}}}}}`,
			wantErr:       template.ErrUnknownReference,
			wantLogicalID: "Queue",
			wantPath:      "Properties.QueueName.Fn::If[0]",
		},
		{
			name: "resource condition that references itself",
			body: `{"Conditions": {"Loop": {"Condition": "Loop"}},
				"Resources": {"Queue": {"Type": "AWS::SQS::Queue", "Condition": "Loop"}}}`,
			wantErr:  template.ErrCircularReference,
			wantPath: "Conditions.Loop.Condition",
		},
		{
			name: "environment variable that is an object",
			body: `{"Resources": {"Fn": {"Type": "AWS::Lambda::Function", "Properties": {
				"Environment": {"Variables": {"X": {"nested": "object"}}}}}}}`,
			wantErr:       template.ErrInvalidProperty,
			wantLogicalID: "Fn",
			wantPath:      "Properties.Environment.Variables.X",
		},
		{
			name:          "timeout that is not a number",
			body:          `{"Resources": {"Fn": {"Type": "AWS::Lambda::Function", "Properties": {"Timeout": "soon"}}}}`,
			wantErr:       template.ErrInvalidProperty,
			wantLogicalID: "Fn",
			wantPath:      "Properties.Timeout",
		},
		{
			name:          "event pattern that is not JSON",
			body:          `{"Resources": {"Rule": {"Type": "AWS::Events::Rule", "Properties": {"EventPattern": "{not json"}}}}`,
			wantErr:       template.ErrInvalidProperty,
			wantLogicalID: "Rule",
			wantPath:      "Properties.EventPattern",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := template.Load(writeTemplate(t, tt.body), template.Options{})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error = %v, want %v", err, tt.wantErr)
			}
			if tt.wantPath == "" {
				return
			}
			var re *template.ResolveError
			if !errors.As(err, &re) {
				t.Fatalf("error %v is not a *ResolveError", err)
			}
			if re.LogicalID != tt.wantLogicalID || re.Path != tt.wantPath {
				t.Errorf("location = %s %s, want %s %s", re.LogicalID, re.Path, tt.wantLogicalID, tt.wantPath)
			}
		})
	}
}
