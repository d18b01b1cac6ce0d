package machines

import (
	"errors"
	"fmt"
)

// Sentinel errors wrapped by every *OptionError, one per kind of problem, so callers can test
// them with errors.Is.
var (
	// ErrLockName reports a lock name problem: neither or both of LockName and LockNamePath, or
	// a fixed name DynamoDB cannot store as a partition key.
	ErrLockName = errors.New("invalid lock name")
	// ErrLockNamePath reports a LockNamePath that is not a simple "$." reference path.
	ErrLockNamePath = errors.New("invalid lock name path")
	// ErrLimit reports a limit below 1 or above MaxLimit.
	ErrLimit = errors.New("invalid limit")
	// ErrWork reports missing work, or a work graph that is not valid States Language or that
	// reuses a state name of the semaphore.
	ErrWork = errors.New("invalid work")
	// ErrTiming reports a timeout or wait bound that is not a positive whole number of seconds,
	// or bounds that contradict each other.
	ErrTiming = errors.New("invalid timing")
	// ErrWaitStrategy reports a WaitStrategy other than WaitPoll and WaitCallback.
	ErrWaitStrategy = errors.New("invalid wait strategy")
	// ErrRate reports Rate options out of bounds: a rate, burst or mode the gate cannot use.
	ErrRate = errors.New("invalid rate")
)

// OptionError names the option at fault, its value and what is wrong with it. It unwraps to
// one of the sentinel errors above (and, for a broken work graph, to the asl error too).
type OptionError struct {
	// Options names the options struct. Default: "SemaphoreOptions".
	Options string
	// Field is the option's name in the options struct, e.g. "Limit".
	Field string
	// Value is the offending value, rendered with %v.
	Value any
	// Problem says what is wrong, e.g. "must be > 0".
	Problem string
	// Kind is the sentinel error this problem belongs to.
	Kind error
	// Cause is an underlying error (a *asl.DefinitionError for a broken work graph), or nil.
	Cause error
}

// Error renders the problem as "SemaphoreOptions.Limit must be > 0, got 0".
func (e *OptionError) Error() string {
	options := e.Options
	if options == "" {
		options = "SemaphoreOptions"
	}
	msg := fmt.Sprintf("%s.%s %s, got %v", options, e.Field, e.Problem, e.Value)
	if e.Cause != nil {
		msg += ": " + e.Cause.Error()
	}
	return msg
}

// Unwrap returns the sentinel kind and the cause, so errors.Is matches either.
func (e *OptionError) Unwrap() []error {
	if e.Cause == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Cause}
}
