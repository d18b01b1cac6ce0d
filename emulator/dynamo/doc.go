// Package dynamo runs the Step Functions DynamoDB service integrations against a DynamoDB API
// server (AWS's DynamoDB Local, in the emulator):
//
//   - the optimized integration, arn:aws:states:::dynamodb:getItem, putItem, updateItem and
//     deleteItem, whose result is the API response plus the SdkHttpMetadata and
//     SdkResponseMetadata that Step Functions adds;
//   - the AWS SDK integration, arn:aws:states:::aws-sdk:dynamodb:<action>, for any DynamoDB API
//     action, whose result is the API response as it is.
//
// Any partition is accepted (arn:aws-cn:, arn:aws-us-gov:, ...). Only the Request Response
// pattern runs: a .sync or .waitForTaskToken suffix is rejected (the optimized integration has no
// other pattern, and the emulator runs no callbacks through DynamoDB).
//
// The parameters of both integrations already have the shape of the DynamoDB API (PascalCase
// names, attribute values such as {"N": "5"}), and DynamoDB speaks JSON, so the integration sends
// the effective parameters as the request body and returns the response body, signed with
// Signature Version 4. One code path serves every action with the exact wire shapes; typed SDK
// calls would need a conversion per action and would turn the JSON into Go types and back.
//
// Failures are *asl.Error values with the names and causes Step Functions reports: "DynamoDB."
// (optimized) or "DynamoDb." (AWS SDK) followed by the error, e.g.
// "DynamoDB.ConditionalCheckFailedException". Errors that the DynamoDB API does not model, such
// as ValidationException (which also reports an item that is too large), are
// "DynamoDB.AmazonDynamoDBException" and "DynamoDb.DynamoDbException".
//
//	in, err := dynamo.New(srv.Endpoint())
//	if err != nil {
//		return err
//	}
//	result, err := in.Invoke(ctx, "arn:aws:states:::dynamodb:updateItem", map[string]any{
//		"TableName":                 "Locks",
//		"Key":                       map[string]any{"LockName": map[string]any{"S": "demo"}},
//		"UpdateExpression":          "SET #c = if_not_exists(#c, :zero) + :one",
//		"ExpressionAttributeNames":  map[string]any{"#c": "count"},
//		"ExpressionAttributeValues": map[string]any{":zero": map[string]any{"N": "0"}, ":one": map[string]any{"N": "1"}},
//	})
//	var failure *asl.Error
//	if errors.As(err, &failure) {
//		// failure.Name is what a Retry or Catch of the state matches.
//	}
package dynamo
