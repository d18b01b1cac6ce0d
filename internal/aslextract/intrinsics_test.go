package main

import (
	"errors"
	"testing"
)

func TestResolve(t *testing.T) {
	r := newResolver(template{
		Parameters: map[string]map[string]any{"Stage": {"Type": "String", "Default": "prod"}},
		Resources: map[string]resource{
			"Fn":      {Type: "AWS::Lambda::Function"},
			"Table":   {Type: "AWS::DynamoDB::Table"},
			"Topic":   {Type: "AWS::SNS::Topic"},
			"Role":    {Type: "AWS::IAM::Role"},
			"Machine": {Type: "AWS::StepFunctions::StateMachine"},
			"Bucket":  {Type: "AWS::S3::Bucket"},
		},
	})
	tests := []struct {
		name  string
		value any
		want  string
	}{
		{name: "plain string", value: "abc", want: "abc"},
		{name: "partition", value: map[string]any{"Ref": "AWS::Partition"}, want: "aws"},
		{name: "region and account", value: map[string]any{"Fn::Join": []any{":", []any{
			map[string]any{"Ref": "AWS::Region"}, map[string]any{"Ref": "AWS::AccountId"}}}}, want: "us-east-1:123456789012"},
		{name: "parameter default", value: map[string]any{"Ref": "Stage"}, want: "prod"},
		{name: "ref to a function is its name", value: map[string]any{"Ref": "Fn"}, want: "Fn"},
		{name: "ref to a topic is its ARN", value: map[string]any{"Ref": "Topic"}, want: "arn:aws:sns:us-east-1:123456789012:Topic"},
		{name: "ref to a state machine is its ARN", value: map[string]any{"Ref": "Machine"},
			want: "arn:aws:states:us-east-1:123456789012:stateMachine:Machine"},
		{name: "table ARN", value: map[string]any{"Fn::GetAtt": []any{"Table", "Arn"}},
			want: "arn:aws:dynamodb:us-east-1:123456789012:table/Table"},
		{name: "GetAtt as a dotted string", value: map[string]any{"Fn::GetAtt": "Fn.Arn"},
			want: "arn:aws:lambda:us-east-1:123456789012:function:Fn"},
		{name: "role ARN has no region", value: map[string]any{"Fn::GetAtt": []any{"Role", "Arn"}},
			want: "arn:aws:iam::123456789012:role/Role"},
		{name: "ARN of an unlisted type", value: map[string]any{"Fn::GetAtt": []any{"Bucket", "Arn"}},
			want: "arn:aws:s3:us-east-1:123456789012:bucket/Bucket"},
		{name: "other attribute", value: map[string]any{"Fn::GetAtt": []any{"Table", "StreamArn"}}, want: "Table.StreamArn"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.resolve(tt.value)
			if err != nil {
				t.Fatalf("resolve() error = %v", err)
			}
			if got != tt.want {
				t.Errorf("resolve() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestResolveRejects(t *testing.T) {
	r := newResolver(template{Resources: map[string]resource{"Fn": {Type: "AWS::Lambda::Function"}}})
	tests := []struct {
		name  string
		value any
	}{
		{name: "number", value: 3.0},
		{name: "two keys", value: map[string]any{"Ref": "Fn", "Fn::GetAtt": "Fn.Arn"}},
		{name: "join without a list", value: map[string]any{"Fn::Join": []any{"", "x"}}},
		{name: "GetAtt of nothing", value: map[string]any{"Fn::GetAtt": []any{"Missing", "Arn"}}},
		{name: "GetAtt without attribute", value: map[string]any{"Fn::GetAtt": "Fn"}},
		{name: "Ref to a number", value: map[string]any{"Ref": 1.0}},
		{name: "Fn::Select", value: map[string]any{"Fn::Select": []any{0.0, []any{"a"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.resolve(tt.value)
			if !errors.Is(err, ErrUnsupportedIntrinsic) {
				t.Errorf("resolve() = %q, %v; want ErrUnsupportedIntrinsic", got, err)
			}
		})
	}
}
