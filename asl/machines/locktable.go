package machines

// The lock table's data model (docs/architecture.md, "The lock item"): one item per lock name,
// keyed by AttributeLockName, holding a counter of holders in AttributeHolderCount and one
// attribute per holder, named by the holder's execution ARN and valued with the time it acquired
// its slot ($$.State.EnteredTime of the acquire). The invariant, at every read: the counter equals
// the number of holder attributes and never exceeds the limit.
//
// The names match the lock table of the AWS sample this project grew from, so a table written
// by that sample reads the same here.
const (
	// AttributeLockName is the table's partition key (a string): the lock's name.
	AttributeLockName = "LockName"
	// AttributeHolderCount is the number attribute that counts the holders of a lock.
	AttributeHolderCount = "currentlockcount"
)

// The DynamoDB expressions of the acquire and the release. #count names AttributeHolderCount,
// #holder names the execution's ARN ($$.Execution.Id).
const (
	// AcquireUpdateExpression adds the execution as a holder and counts it, creating the item
	// and the counter on first use (no separate initialization step).
	AcquireUpdateExpression = "SET #count = if_not_exists(#count, :zero) + :one, #holder = :now"
	// AcquireConditionExpression admits the execution only below the limit (strictly: "<",
	// so lowering the limit stops admissions), only if it does not hold a slot already, and
	// only if nobody waits in the lock's queue (QueueEmptyCondition): under the Callback
	// strategy a newcomer never overtakes a queued waiter. #queue names AttributeQueue.
	AcquireConditionExpression = "(attribute_not_exists(#count) OR #count < :limit) AND attribute_not_exists(#holder) AND " + QueueEmptyCondition
	// ReleaseUpdateExpression gives the execution's slot back.
	ReleaseUpdateExpression = "SET #count = #count - :one REMOVE #holder"
	// ReleaseConditionExpression makes the release idempotent: a second release fails the
	// condition instead of decrementing the counter again.
	ReleaseConditionExpression = "attribute_exists(#holder)"
	// HolderProjectionExpression reads back only the execution's own holder attribute.
	HolderProjectionExpression = "#holder"
)

// MaxLimit is the largest Limit one lock item can serve. DynamoDB caps an item at 400 KB,
// attribute names included, and every holder costs the length of its execution ARN plus its
// 24-byte acquisition time. With typical ARNs (a CloudFormation-generated state machine name
// and a UUID execution name, about 127 bytes) 2,712 holders fit, as TestMaxLimitFitsOneItem
// measures; MaxLimit keeps a margin below that. Longer names fit fewer holders (about 2,100 with an
// 80-character state machine name): an acquire that would overflow the item fails fast with
// ErrorLockTable and is never admitted.
const MaxLimit = 2600

// MaxLockNameBytes is the longest fixed lock name: DynamoDB's limit for a partition key value.
const MaxLockNameBytes = 2048

// Error names that the DynamoDB service integration raises ("DynamoDB." plus the exception
// name). Where AWS Step Functions (which names the Java SDK's exception class) and the DynamoDB
// API's error code differ, both spellings are listed, so that the machines behave the same on
// AWS and in emulators that use the error code.
const (
	// ErrorConditionalCheckFailed is raised when a condition expression is false.
	ErrorConditionalCheckFailed = "DynamoDB.ConditionalCheckFailedException"
)

// transientDynamoDBErrors are the errors a later attempt can fix: throttling, 5xx and network
// failures. Retried with jittered exponential backoff.
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
}

// fatalDynamoDBErrors are the errors no retry can fix: a malformed request or an item that
// would exceed 400 KB (ValidationException, which AWS Step Functions reports as
// DynamoDB.AmazonDynamoDBException), a missing table, a full item collection, missing
// permissions. They fail the execution at once with ErrorLockTable.
var fatalDynamoDBErrors = []string{
	"DynamoDB.ValidationException",
	"DynamoDB.AmazonDynamoDBException",
	"DynamoDB.ResourceNotFoundException",
	"DynamoDB.ItemCollectionSizeLimitExceededException",
	"DynamoDB.AccessDeniedException",
}

// TransientDynamoDBErrors returns the DynamoDB error names the machines retry, in order.
func TransientDynamoDBErrors() []string { return append([]string(nil), transientDynamoDBErrors...) }

// FatalDynamoDBErrors returns the DynamoDB error names that fail an execution at once with
// ErrorLockTable, in order.
func FatalDynamoDBErrors() []string { return append([]string(nil), fatalDynamoDBErrors...) }
