package dynamo

import (
	"context"
	"errors"
	"math"
	"net"
	"regexp"
	"strings"
	"testing"

	"github.com/turnstile-sfn/turnstile/asl"
)

// requestID matches a request ID: DynamoDB sends 52 upper-case letters and digits, DynamoDB
// Local a UUID.
const requestID = `(?:[A-Z0-9]{52}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})`

// missingTableMessage matches the message of a ResourceNotFoundException for a missing table:
// DynamoDB's, or DynamoDB Local's.
const missingTableMessage = `(?:Requested resource not found|Cannot do operations on a non-existent table)`

func TestServiceErrorsCarryStepFunctionsNames(t *testing.T) {
	in := newIntegration(t)
	table := createTable(t, false)
	invoke(t, in, "arn:aws:states:::dynamodb:putItem", map[string]any{"TableName": table, "Item": map[string]any{"pk": s("taken")}})
	conditionalPut := map[string]any{
		"TableName": table, "Item": map[string]any{"pk": s("taken")}, "ConditionExpression": "attribute_not_exists(pk)",
	}
	badExpression := map[string]any{
		"TableName": table, "Key": map[string]any{"pk": s("k")}, "UpdateExpression": "SET count = :v",
		"ExpressionAttributeValues": map[string]any{":v": n("1")},
	}
	missingTable := map[string]any{"TableName": "NoSuchTable", "Key": map[string]any{"pk": s("k")}}
	invalidTableName := map[string]any{"TableName": "/bad", "Key": map[string]any{"pk": s("k")}}

	tests := []struct {
		name      string
		resource  string
		params    map[string]any
		wantName  string
		wantCause string // a regular expression
	}{
		{
			name:      "optimized conditional check",
			resource:  "arn:aws:states:::dynamodb:putItem",
			params:    conditionalPut,
			wantName:  "DynamoDB.ConditionalCheckFailedException",
			wantCause: `^The conditional request failed \(Service: AmazonDynamoDBv2; Status Code: 400; Error Code: ConditionalCheckFailedException; Request ID: ` + requestID + `; Proxy: null\)$`,
		},
		{
			name:      "aws-sdk conditional check",
			resource:  "arn:aws:states:::aws-sdk:dynamodb:putItem",
			params:    conditionalPut,
			wantName:  "DynamoDb.ConditionalCheckFailedException",
			wantCause: `^The conditional request failed \(Service: DynamoDb, Status Code: 400, Request ID: ` + requestID + `\)$`,
		},
		{
			name:      "optimized validation: reserved word in an expression",
			resource:  "arn:aws:states:::dynamodb:updateItem",
			params:    badExpression,
			wantName:  "DynamoDB.AmazonDynamoDBException",
			wantCause: `^Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: count \(Service: AmazonDynamoDBv2; Status Code: 400; Error Code: ValidationException; Request ID: ` + requestID + `; Proxy: null\)$`,
		},
		{
			name:      "aws-sdk validation: reserved word in an expression",
			resource:  "arn:aws:states:::aws-sdk:dynamodb:updateItem",
			params:    badExpression,
			wantName:  "DynamoDb.DynamoDbException",
			wantCause: `^Invalid UpdateExpression: .* \(Service: DynamoDb, Status Code: 400, Request ID: ` + requestID + `\)$`,
		},
		{
			name:     "optimized validation: invalid table name",
			resource: "arn:aws:states:::dynamodb:getItem",
			params:   invalidTableName,
			wantName: "DynamoDB.AmazonDynamoDBException",
			// DynamoDB: "1 validation error detected: Value '/bad' at 'tableName' failed to satisfy
			// constraint: ..."; DynamoDB Local: "Invalid table/index name. ...".
			wantCause: `^(?:1 validation error detected: Value '/bad' at 'tableName' failed to satisfy constraint: |Invalid table/index name\. ).*Error Code: ValidationException;`,
		},
		{
			name:      "optimized missing table",
			resource:  "arn:aws:states:::dynamodb:getItem",
			params:    missingTable,
			wantName:  "DynamoDB.ResourceNotFoundException",
			wantCause: `^` + missingTableMessage + ` \(Service: AmazonDynamoDBv2; Status Code: 400; Error Code: ResourceNotFoundException; Request ID: ` + requestID + `; Proxy: null\)$`,
		},
		{
			name:      "aws-sdk missing table",
			resource:  "arn:aws:states:::aws-sdk:dynamodb:getItem",
			params:    missingTable,
			wantName:  "DynamoDb.ResourceNotFoundException",
			wantCause: `^` + missingTableMessage + ` \(Service: DynamoDb, Status Code: 400, Request ID: ` + requestID + `\)$`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := in.Invoke(t.Context(), tt.resource, tt.params)
			if got != nil {
				t.Errorf("result = %v, want none", got)
			}
			failure := taskFailure(t, err)
			if failure.Name != tt.wantName {
				t.Errorf("name = %q, want %q", failure.Name, tt.wantName)
			}
			if !regexp.MustCompile(tt.wantCause).MatchString(failure.Cause) {
				t.Errorf("cause = %q\nwant a match of %s", failure.Cause, tt.wantCause)
			}
		})
	}
}

func TestMalformedParametersFailAndWriteNothing(t *testing.T) {
	in := newIntegration(t)
	table := createTable(t, false)
	const putItem = "arn:aws:states:::dynamodb:putItem"

	tests := []struct {
		name     string
		resource string
		params   any
		wantErr  error  // a sentinel the error wraps, or nil
		wantName string // the *asl.Error name
		wantIn   string // a substring of the cause
	}{
		{name: "no parameters", resource: putItem, params: nil, wantErr: ErrInvalidParameters, wantName: "States.Runtime", wantIn: "must be a JSON object"},
		{name: "an array", resource: putItem, params: []any{table}, wantErr: ErrInvalidParameters, wantName: "States.Runtime", wantIn: "must be a JSON object"},
		{name: "not encodable", resource: putItem, params: map[string]any{"TableName": table, "Item": map[string]any{"pk": s("a"), "x": math.NaN()}},
			wantErr: ErrInvalidParameters, wantName: "States.Runtime", wantIn: "cannot be encoded as JSON"},
		// DynamoDB answers an attribute value without its type ({"pk": "a"}) or a number as a JSON
		// number with a SerializationException; DynamoDB Local 1.25.1 accepts and stores both, so
		// those cases are not checked here.
		{name: "null item", resource: putItem, params: map[string]any{"TableName": table, "Item": nil},
			wantName: "DynamoDB.AmazonDynamoDBException", wantIn: "Error Code: ValidationException"},
		{name: "item without its key", resource: putItem, params: map[string]any{"TableName": table, "Item": map[string]any{"other": s("a")}},
			wantName: "DynamoDB.AmazonDynamoDBException", wantIn: "Error Code: ValidationException"},
		{name: "aws-sdk: key of the wrong type", resource: "arn:aws:states:::aws-sdk:dynamodb:putItem", params: map[string]any{"TableName": table, "Item": map[string]any{"pk": n("1")}},
			wantName: "DynamoDb.DynamoDbException", wantIn: "Service: DynamoDb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := in.Invoke(t.Context(), tt.resource, tt.params)
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("error = %v, want one wrapping %v", err, tt.wantErr)
			}
			failure := taskFailure(t, err)
			if failure.Name != tt.wantName || !strings.Contains(failure.Cause, tt.wantIn) {
				t.Errorf("failure = %q / %q\nwant %q with a cause containing %q", failure.Name, failure.Cause, tt.wantName, tt.wantIn)
			}
		})
	}
	if got := itemCount(t, table); got != 0 {
		t.Errorf("items in %s = %d, want 0", table, got)
	}
}

func TestUnreachableServerIsSdkClientException(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	in, err := New(closed)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ resource, want string }{
		{"arn:aws:states:::dynamodb:getItem", "DynamoDB.SdkClientException"},
		{"arn:aws:states:::aws-sdk:dynamodb:getItem", "DynamoDb.SdkClientException"},
	}
	for _, tt := range tests {
		_, err := in.Invoke(t.Context(), tt.resource, map[string]any{"TableName": "t", "Key": map[string]any{"pk": s("k")}})
		failure := taskFailure(t, err)
		if failure.Name != tt.want || !strings.HasPrefix(failure.Cause, "Unable to execute HTTP request: ") {
			t.Errorf("%s: %q / %q, want %s and an 'Unable to execute HTTP request' cause", tt.resource, failure.Name, failure.Cause, tt.want)
		}
	}
}

func TestCanceledContextIsNotATaskFailure(t *testing.T) {
	in := newIntegration(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := in.Invoke(ctx, "arn:aws:states:::dynamodb:getItem", map[string]any{"TableName": "t", "Key": map[string]any{"pk": s("k")}})
	var failure *asl.Error
	if !errors.Is(err, context.Canceled) || errors.As(err, &failure) {
		t.Fatalf("error = %v, want one wrapping context.Canceled and no *asl.Error", err)
	}
}

func TestNewRejectsBadEndpoints(t *testing.T) {
	for _, endpoint := range []string{"", "127.0.0.1:8000", "unix:///tmp/x", "http://", "http://[::1"} {
		in, err := New(endpoint)
		if in != nil || !errors.Is(err, ErrInvalidEndpoint) {
			t.Errorf("New(%q) = %v, %v; want nil, ErrInvalidEndpoint", endpoint, in, err)
		}
	}
}
