package lock

import (
	"errors"
	"fmt"
	"strings"

	"github.com/aws/smithy-go"
)

// Error names the state machines know the lock's failures by (the hand-off function reports
// them as its error types).
const (
	// ErrorBusy: the lock kept changing under the operation's conditional writes, or DynamoDB
	// answered with a transient error; a retry is safe.
	ErrorBusy = "Turnstile.QueueBusy"
	// ErrorLockTable: the lock table rejected a request no retry can fix.
	ErrorLockTable = "Turnstile.LockTableError"
	// ErrorInvalidRequest: the operation was asked with arguments it cannot serve.
	ErrorInvalidRequest = "Turnstile.InvalidHandOffRequest"
)

// Sentinel errors, one per way an operation can fail.
var (
	// ErrBusy: DynamoDB answered with a transient error, or the lock kept changing for every
	// attempt. Retrying is safe. Reported as ErrorBusy.
	ErrBusy = errors.New("lock: the lock is busy, try again")
	// ErrLockTable: DynamoDB rejected a request no retry can fix (a missing table, a table
	// without the sort key Entry, access denied). Reported as ErrorLockTable.
	ErrLockTable = errors.New("lock: the lock table rejected the request")
	// ErrInvalidRequest: a required argument is missing or malformed. Reported as
	// ErrorInvalidRequest.
	ErrInvalidRequest = errors.New("lock: invalid request")
)

// transientCodes are the DynamoDB error codes a later attempt can fix.
var transientCodes = map[string]bool{
	"ProvisionedThroughputExceededException": true,
	"ThrottlingException":                    true,
	"RequestLimitExceeded":                   true,
	"InternalServerError":                    true,
	"ServiceUnavailable":                     true,
	"TransactionConflictException":           true,
	"TransactionInProgressException":         true,
}

// classify wraps a DynamoDB error (other than a failed condition) in ErrBusy or ErrLockTable.
// An error without an API code is a transport failure: transient.
func classify(what string, err error) error {
	var api smithy.APIError
	if errors.As(err, &api) && !transientCodes[api.ErrorCode()] && !strings.Contains(api.ErrorMessage(), "conflict") {
		return fmt.Errorf("%w: %s: %w", ErrLockTable, what, err)
	}
	return fmt.Errorf("%w: %s: %w", ErrBusy, what, err)
}

// ErrorName is the state machine error name an error of this package is reported under, or ""
// for any other error.
func ErrorName(err error) string {
	switch {
	case errors.Is(err, ErrBusy):
		return ErrorBusy
	case errors.Is(err, ErrLockTable):
		return ErrorLockTable
	case errors.Is(err, ErrInvalidRequest):
		return ErrorInvalidRequest
	case errors.Is(err, ErrWeightAboveLimit):
		return ErrorWeightAboveLimit
	}
	return ""
}
