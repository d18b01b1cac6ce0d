package emulator

import (
	"errors"
	"fmt"
)

// APIError is an error of the Step Functions API, named by the exception AWS returns (Code) so
// that an HTTP front end can put it on the wire unchanged.
type APIError struct {
	// Code is AWS's error code, e.g. "ExecutionDoesNotExist".
	Code string
	// Message is the human-readable message.
	Message string
	// Err is the underlying error, if any: for InvalidDefinition, the *asl.DefinitionError
	// values (wrapping asl.ErrInvalidDefinition or asl.ErrUnsupported) that say which state and
	// field are wrong.
	Err error
}

// Error renders the error as "Code: Message".
func (e *APIError) Error() string {
	if e.Message == "" {
		return e.Code
	}
	return e.Code + ": " + e.Message
}

// Is matches another *APIError with the same Code, so that errors.Is(err, ErrExecutionDoesNotExist)
// holds for any message.
func (e *APIError) Is(target error) bool {
	var t *APIError
	return errors.As(target, &t) && t.Code == e.Code
}

// Unwrap returns the underlying error.
func (e *APIError) Unwrap() error { return e.Err }

// apiError returns an *APIError with a formatted message.
func apiError(sentinel *APIError, format string, args ...any) *APIError {
	return &APIError{Code: sentinel.Code, Message: fmt.Sprintf(format, args...)}
}

// Sentinels for the API errors; compare with errors.Is.
var (
	ErrExecutionDoesNotExist    = &APIError{Code: "ExecutionDoesNotExist"}
	ErrExecutionAlreadyExists   = &APIError{Code: "ExecutionAlreadyExists"}
	ErrExecutionNotRedrivable   = &APIError{Code: "ExecutionNotRedrivable"}
	ErrStateMachineDoesNotExist = &APIError{Code: "StateMachineDoesNotExist"}
	ErrStateMachineExists       = &APIError{Code: "StateMachineAlreadyExists"}
	ErrInvalidArn               = &APIError{Code: "InvalidArn"}
	ErrInvalidName              = &APIError{Code: "InvalidName"}
	ErrInvalidDefinition        = &APIError{Code: "InvalidDefinition"}
	ErrInvalidExecutionInput    = &APIError{Code: "InvalidExecutionInput"}
	ErrInvalidOutput            = &APIError{Code: "InvalidOutput"}
	ErrInvalidToken             = &APIError{Code: "InvalidToken"}
	ErrTaskDoesNotExist         = &APIError{Code: "TaskDoesNotExist"}
	ErrTaskTimedOut             = &APIError{Code: "TaskTimedOut"}
)

// ErrClosed is returned by every method of a closed Emulator.
var ErrClosed = errors.New("emulator: closed")
