package dynamo

import (
	"errors"
	"strings"
	"testing"
)

func TestParseResource(t *testing.T) {
	tests := []struct {
		resource string
		want     target
		wantErr  string // a substring of the reason; "" when supported
	}{
		{resource: "arn:aws:states:::dynamodb:getItem", want: target{optimized, "GetItem"}},
		{resource: "arn:aws:states:::dynamodb:putItem", want: target{optimized, "PutItem"}},
		{resource: "arn:aws:states:::dynamodb:updateItem", want: target{optimized, "UpdateItem"}},
		{resource: "arn:aws:states:::dynamodb:deleteItem", want: target{optimized, "DeleteItem"}},
		{resource: "arn:aws-us-gov:states:::dynamodb:updateItem", want: target{optimized, "UpdateItem"}},
		{resource: "arn:aws-cn:states:::aws-sdk:dynamodb:query", want: target{awsSDK, "Query"}},
		{resource: "arn:aws:states:::aws-sdk:dynamodb:getItem", want: target{awsSDK, "GetItem"}},
		{resource: "arn:aws:states:::aws-sdk:dynamodb:transactWriteItems", want: target{awsSDK, "TransactWriteItems"}},
		{resource: "arn:aws:states:::aws-sdk:dynamodb:batchGetItem", want: target{awsSDK, "BatchGetItem"}},
		{resource: "arn:aws:states:::dynamodb:query", wantErr: "not an optimized DynamoDB action"},
		{resource: "arn:aws:states:::dynamodb:GetItem", wantErr: "not an optimized DynamoDB action"},
		{resource: "arn:aws:states:::aws-sdk:dynamodb:GetItem", wantErr: "camelCase"},
		{resource: "arn:aws:states:::aws-sdk:dynamodb:frobnicate", wantErr: "not a DynamoDB API action"},
		{resource: "arn:aws:states:::aws-sdk:dynamodb:options", wantErr: "not a DynamoDB API action"},
		{resource: "arn:aws:states:::aws-sdk:dynamodb:", wantErr: "camelCase"},
		{resource: "arn:aws:states:::dynamodb:getItem.waitForTaskToken", wantErr: ".waitForTaskToken integration pattern is not supported"},
		{resource: "arn:aws:states:::dynamodb:putItem.sync", wantErr: ".sync integration pattern is not supported"},
		{resource: "arn:aws:states:::aws-sdk:dynamodb:putItem.waitForTaskToken", wantErr: ".waitForTaskToken integration pattern"},
		{resource: "arn:aws:states:::lambda:invoke", wantErr: "not a DynamoDB integration"},
		{resource: "arn:aws:states:::aws-sdk:sfn:startExecution", wantErr: "not a DynamoDB integration"},
		{resource: "arn:aws:lambda:us-east-1:123456789012:function:work", wantErr: "not a Step Functions service integration"},
		{resource: "arn:aws:states:us-east-1:123456789012:dynamodb:getItem", wantErr: "not a Step Functions service integration"},
		{resource: "arn::states:::dynamodb:getItem", wantErr: "no partition"},
		{resource: "dynamodb:getItem", wantErr: "not an ARN"},
		{resource: "", wantErr: "not an ARN"},
	}
	for _, tt := range tests {
		t.Run(tt.resource, func(t *testing.T) {
			got, err := parseResource(tt.resource)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("parseResource error = %v, want one containing %q", err, tt.wantErr)
				}
				if in := (&Integration{}); in.Supports(tt.resource) {
					t.Errorf("Supports = true, want false")
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("parseResource = %+v, %v; want %+v", got, err, tt.want)
			}
			if in := (&Integration{}); !in.Supports(tt.resource) {
				t.Errorf("Supports = false, want true")
			}
		})
	}
}

func TestInvokeRejectsUnsupportedResources(t *testing.T) {
	in, err := New("http://127.0.0.1:1") // never reached
	if err != nil {
		t.Fatal(err)
	}
	for _, resource := range []string{
		"arn:aws:states:::dynamodb:getItem.waitForTaskToken",
		"arn:aws:states:::dynamodb:scan",
		"arn:aws:states:::lambda:invoke",
	} {
		t.Run(resource, func(t *testing.T) {
			_, err := in.Invoke(t.Context(), resource, map[string]any{"TableName": "t"})
			if !errors.Is(err, ErrUnsupportedResource) {
				t.Fatalf("error = %v, want ErrUnsupportedResource", err)
			}
			failure := taskFailure(t, err)
			if failure.Name != "States.Runtime" || !strings.Contains(failure.Cause, resource) {
				t.Errorf("failure = %q / %q, want States.Runtime naming the resource", failure.Name, failure.Cause)
			}
		})
	}
}

func TestOperationsComeFromTheSDKModel(t *testing.T) {
	for _, op := range []string{"GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query", "Scan", "BatchGetItem", "BatchWriteItem", "TransactWriteItems", "TransactGetItems", "ExecuteStatement", "CreateTable", "DescribeTable"} {
		if !operations[op] {
			t.Errorf("operations[%q] = false, want true", op)
		}
	}
	for _, notOp := range []string{"Options", "getItem", "GetItemInput"} {
		if operations[notOp] {
			t.Errorf("operations[%q] = true, want false", notOp)
		}
	}
}
