package dynamo_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/emulator/dynamo"
)

// Supports tells which Task resources the integration runs.
func ExampleIntegration_Supports() {
	in, err := dynamo.New("http://127.0.0.1:8000")
	if err != nil {
		log.Fatal(err)
	}
	for _, resource := range []string{
		"arn:aws:states:::dynamodb:updateItem",
		"arn:aws-us-gov:states:::aws-sdk:dynamodb:query",
		"arn:aws:states:::dynamodb:query",
		"arn:aws:states:::dynamodb:getItem.waitForTaskToken",
		"arn:aws:states:::lambda:invoke",
	} {
		fmt.Println(in.Supports(resource), resource)
	}
	// Output:
	// true arn:aws:states:::dynamodb:updateItem
	// true arn:aws-us-gov:states:::aws-sdk:dynamodb:query
	// false arn:aws:states:::dynamodb:query
	// false arn:aws:states:::dynamodb:getItem.waitForTaskToken
	// false arn:aws:states:::lambda:invoke
}

// Invoke runs a Task; a failure carries the name a Retry or Catch matches.
func ExampleIntegration_Invoke() {
	ctx := context.Background()
	in, err := dynamo.New("http://127.0.0.1:8000") // e.g. ddblocal.Server.Endpoint()
	if err != nil {
		log.Fatal(err)
	}
	result, err := in.Invoke(ctx, "arn:aws:states:::dynamodb:updateItem", map[string]any{
		"TableName":                "Locks",
		"Key":                      map[string]any{"LockName": map[string]any{"S": "demo"}},
		"UpdateExpression":         "SET #c = if_not_exists(#c, :zero) + :one",
		"ConditionExpression":      "attribute_not_exists(#c) OR #c < :limit",
		"ExpressionAttributeNames": map[string]any{"#c": "count"},
		"ExpressionAttributeValues": map[string]any{
			":zero": map[string]any{"N": "0"}, ":one": map[string]any{"N": "1"}, ":limit": map[string]any{"N": "5"},
		},
	})
	var failure *asl.Error
	switch {
	case errors.As(err, &failure) && failure.Name == "DynamoDB.ConditionalCheckFailedException":
		fmt.Println("the lock is full")
	case err != nil:
		log.Fatal(err)
	default:
		fmt.Println(result.(map[string]any)["SdkResponseMetadata"])
	}
}
