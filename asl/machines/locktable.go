package machines

import "github.com/turnstile-sfn/turnstile/lock"

// The lock table's data model and the expressions of its operations are package lock's
// (docs/architecture.md, "The lock: data model and semantics"); the machines send them.

// MaxLimit is the largest Limit a semaphore takes (lock.MaxLimit): the lock's counter item
// stays small whatever the limit.
const MaxLimit = lock.MaxLimit

// Error names that the DynamoDB service integrations raise. The optimized integration names an
// error "DynamoDB." plus the Java SDK v1's exception class, the AWS SDK integration "DynamoDb."
// plus the v2 SDK's; where AWS Step Functions and the DynamoDB API's error code differ, both
// spellings are listed, so that the machines behave the same on AWS and in emulators that use
// the error code.
const (
	// ErrorConditionalCheckFailed is raised when a condition expression is false.
	ErrorConditionalCheckFailed = "DynamoDB.ConditionalCheckFailedException"
)

// transientDynamoDBErrors are the errors a later attempt can fix: throttling, 5xx, conflicts
// with a transaction and network failures. Retried with jittered exponential backoff.
var transientDynamoDBErrors = []string{
	"DynamoDB.ProvisionedThroughputExceededException",
	"DynamoDB.ThrottlingException",
	"DynamoDB.RequestLimitExceeded",
	"DynamoDB.RequestLimitExceededException",
	"DynamoDB.InternalServerError",
	"DynamoDB.InternalServerErrorException",
	"DynamoDB.ServiceUnavailable",
	"DynamoDB.TransactionConflictException",
	"DynamoDB.SdkClientException",
	"DynamoDb.ProvisionedThroughputExceededException",
	"DynamoDb.ThrottlingException",
	"DynamoDb.RequestLimitExceededException",
	"DynamoDb.InternalServerErrorException",
	"DynamoDb.TransactionInProgressException",
	"DynamoDb.SdkClientException",
}

// fatalDynamoDBErrors are the errors no retry can fix: a malformed request (ValidationException,
// which AWS Step Functions reports as DynamoDB.AmazonDynamoDBException or
// DynamoDb.DynamoDbException), a missing table, missing permissions. They fail the execution
// at once with ErrorLockTable.
var fatalDynamoDBErrors = []string{
	"DynamoDB.ValidationException",
	"DynamoDB.AmazonDynamoDBException",
	"DynamoDB.ResourceNotFoundException",
	"DynamoDB.AccessDeniedException",
	"DynamoDb.DynamoDbException",
	"DynamoDb.ResourceNotFoundException",
	"DynamoDb.AccessDeniedException",
}

// TransientDynamoDBErrors returns the DynamoDB error names the machines retry, in order.
func TransientDynamoDBErrors() []string { return append([]string(nil), transientDynamoDBErrors...) }

// FatalDynamoDBErrors returns the DynamoDB error names that fail an execution at once with
// ErrorLockTable, in order.
func FatalDynamoDBErrors() []string { return append([]string(nil), fatalDynamoDBErrors...) }
