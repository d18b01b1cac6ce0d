package dynamo

import "testing"

func TestErrorName(t *testing.T) {
	tests := []struct {
		flavor flavor
		code   string
		want   string
	}{
		{optimized, "ConditionalCheckFailedException", "DynamoDB.ConditionalCheckFailedException"},
		{optimized, "ProvisionedThroughputExceededException", "DynamoDB.ProvisionedThroughputExceededException"},
		{optimized, "ResourceNotFoundException", "DynamoDB.ResourceNotFoundException"},
		{optimized, "ItemCollectionSizeLimitExceededException", "DynamoDB.ItemCollectionSizeLimitExceededException"},
		{optimized, "TransactionConflictException", "DynamoDB.TransactionConflictException"},
		{optimized, "InternalServerError", "DynamoDB.InternalServerErrorException"},
		{optimized, "RequestLimitExceeded", "DynamoDB.RequestLimitExceededException"},
		{optimized, "ValidationException", "DynamoDB.AmazonDynamoDBException"},
		{optimized, "SerializationException", "DynamoDB.AmazonDynamoDBException"},
		{optimized, "UnknownError", "DynamoDB.AmazonDynamoDBException"},
		{awsSDK, "ConditionalCheckFailedException", "DynamoDb.ConditionalCheckFailedException"},
		{awsSDK, "ResourceNotFoundException", "DynamoDb.ResourceNotFoundException"},
		{awsSDK, "TransactionCanceledException", "DynamoDb.TransactionCanceledException"},
		{awsSDK, "InternalServerError", "DynamoDb.InternalServerErrorException"},
		{awsSDK, "ValidationException", "DynamoDb.DynamoDbException"},
	}
	for _, tt := range tests {
		if got := tt.flavor.errorName(tt.code); got != tt.want {
			t.Errorf("flavor %d errorName(%q) = %q, want %q", tt.flavor, tt.code, got, tt.want)
		}
	}
}

func TestFailureCause(t *testing.T) {
	e := serviceError{code: "ConditionalCheckFailedException", message: "The conditional request failed", status: 400, requestID: "R1"}
	tests := []struct {
		flavor    flavor
		e         serviceError
		wantName  string
		wantCause string
	}{
		{optimized, e, "DynamoDB.ConditionalCheckFailedException",
			"The conditional request failed (Service: AmazonDynamoDBv2; Status Code: 400; Error Code: ConditionalCheckFailedException; Request ID: R1; Proxy: null)"},
		{awsSDK, e, "DynamoDb.ConditionalCheckFailedException",
			"The conditional request failed (Service: DynamoDb, Status Code: 400, Request ID: R1)"},
		{optimized, serviceError{code: "SerializationException", status: 400, requestID: "R2"}, "DynamoDB.AmazonDynamoDBException",
			"SerializationException (Service: AmazonDynamoDBv2; Status Code: 400; Error Code: SerializationException; Request ID: R2; Proxy: null)"},
	}
	for _, tt := range tests {
		got := tt.flavor.failure(tt.e)
		if got.Name != tt.wantName || got.Cause != tt.wantCause {
			t.Errorf("failure(%+v) = %q / %q\nwant %q / %q", tt.e, got.Name, got.Cause, tt.wantName, tt.wantCause)
		}
	}
}
