package waitqueue

import (
	"errors"
	"fmt"
	"strings"

	"github.com/aws/smithy-go"

	"github.com/turnstile-sfn/turnstile/asl/machines"
)

// Sentinel errors, one per way an operation can fail; the hand-off function reports them to
// the state machine under the error names below.
var (
	// ErrBusy: DynamoDB answered with a transient error, or the lock item kept changing under
	// the conditional writes for every attempt. Retrying is safe. Reported as
	// machines.ErrorQueueBusy.
	ErrBusy = errors.New("waitqueue: the lock is busy, try again")
	// ErrLockTable: DynamoDB rejected a request no retry can fix (an item over 400 KB, a
	// missing table, access denied). Reported as machines.ErrorLockTable.
	ErrLockTable = errors.New("waitqueue: the lock table rejected the request")
	// ErrQueueFull: the lock item cannot take another waiter (DynamoDB's 400 KB item limit).
	// Reported as machines.ErrorQueueFull.
	ErrQueueFull = errors.New("waitqueue: the lock item has no room for another waiter")
	// ErrInvalidRequest: a required argument is missing or malformed.
	ErrInvalidRequest = errors.New("waitqueue: invalid request")
)

// transientDynamoDBCodes are the DynamoDB error codes a later attempt can fix.
var transientDynamoDBCodes = map[string]bool{
	"ProvisionedThroughputExceededException": true,
	"ThrottlingException":                    true,
	"RequestLimitExceeded":                   true,
	"InternalServerError":                    true,
	"ServiceUnavailable":                     true,
	"TransactionConflictException":           true,
}

// itemTooLarge is the message DynamoDB (and DynamoDB Local) gives an update that would make the item
// larger than 400 KB.
const itemTooLarge = "exceeded the maximum allowed size"

// classify wraps a DynamoDB error (other than a failed condition) in ErrBusy or ErrLockTable.
// An error without an API code is a transport failure: transient.
func classify(op string, err error) error {
	var api smithy.APIError
	if errors.As(err, &api) && strings.Contains(api.ErrorMessage(), itemTooLarge) && op == "enqueue" {
		return fmt.Errorf("%w: %w", ErrQueueFull, err)
	}
	if errors.As(err, &api) && !transientDynamoDBCodes[api.ErrorCode()] {
		return fmt.Errorf("%w: %s: %w", ErrLockTable, op, err)
	}
	return fmt.Errorf("%w: %s: %w", ErrBusy, op, err)
}

// ErrorName is the state machine error name an error of this package is reported under:
// machines.ErrorQueueBusy, machines.ErrorLockTable, or "" for any other error.
func ErrorName(err error) string {
	switch {
	case errors.Is(err, ErrQueueFull):
		return machines.ErrorQueueFull
	case errors.Is(err, ErrBusy):
		return machines.ErrorQueueBusy
	case errors.Is(err, ErrLockTable):
		return machines.ErrorLockTable
	case errors.Is(err, ErrInvalidRequest):
		return machines.ErrorInvalidHandOffRequest
	}
	return ""
}
