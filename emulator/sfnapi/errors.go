package sfnapi

import (
	"errors"
	"fmt"
	"net/http"
)

// ErrorCode is the "__type" of a Step Functions error response.
type ErrorCode string

// The error codes the server answers with. The AWS SDK turns each into its typed error (for
// example *types.ExecutionDoesNotExist); the last four are protocol errors of AWS's JSON
// services and reach the SDK as a generic smithy.APIError.
const (
	CodeExecutionDoesNotExist    ErrorCode = "ExecutionDoesNotExist"
	CodeExecutionAlreadyExists   ErrorCode = "ExecutionAlreadyExists"
	CodeExecutionLimitExceeded   ErrorCode = "ExecutionLimitExceeded"
	CodeExecutionNotRedrivable   ErrorCode = "ExecutionNotRedrivable"
	CodeStateMachineDoesNotExist ErrorCode = "StateMachineDoesNotExist"
	CodeStateMachineDeleting     ErrorCode = "StateMachineDeleting"
	CodeInvalidArn               ErrorCode = "InvalidArn"
	CodeInvalidName              ErrorCode = "InvalidName"
	CodeInvalidExecutionInput    ErrorCode = "InvalidExecutionInput"
	CodeInvalidOutput            ErrorCode = "InvalidOutput"
	CodeInvalidToken             ErrorCode = "InvalidToken"
	CodeTaskDoesNotExist         ErrorCode = "TaskDoesNotExist"
	CodeTaskTimedOut             ErrorCode = "TaskTimedOut"
	CodeValidation               ErrorCode = "ValidationException"
	CodeUnknownOperation         ErrorCode = "UnknownOperationException"
	CodeSerialization            ErrorCode = "SerializationException"
	CodeRequestTooLarge          ErrorCode = "RequestEntityTooLargeException"
	CodeInternalFailure          ErrorCode = "InternalFailure"
)

// APIError is a Step Functions error: the server answers it as AWS does, with HTTP status 400
// (500 for InternalFailure, 413 for RequestEntityTooLargeException) and the body
// {"__type":"<Code>","message":"<Message>"}. A Backend returns one to answer with that error.
type APIError struct {
	Code    ErrorCode
	Message string
	// Reason is the "reason" member of a ValidationException, e.g. "MISSING_REQUIRED_PARAMETER".
	Reason string
	// Err is the underlying cause, never sent to the client.
	Err error
}

// Error renders the error as "<Code>: <Message>".
func (e *APIError) Error() string { return string(e.Code) + ": " + e.Message }

// Unwrap returns the underlying cause.
func (e *APIError) Unwrap() error { return e.Err }

// Is matches another *APIError with the same code, so errors.Is(err, ErrExecutionDoesNotExist)
// tests the kind of error whatever its message.
func (e *APIError) Is(target error) bool {
	t, ok := target.(*APIError)
	return ok && t.Code == e.Code
}

// HTTPStatus is the HTTP status AWS answers the error with.
func (e *APIError) HTTPStatus() int {
	switch e.Code {
	case CodeInternalFailure:
		return http.StatusInternalServerError
	case CodeRequestTooLarge:
		return http.StatusRequestEntityTooLarge
	default:
		return http.StatusBadRequest
	}
}

// Sentinels for errors.Is, one per error code a Backend returns.
var (
	ErrExecutionDoesNotExist    = &APIError{Code: CodeExecutionDoesNotExist}
	ErrExecutionAlreadyExists   = &APIError{Code: CodeExecutionAlreadyExists}
	ErrExecutionLimitExceeded   = &APIError{Code: CodeExecutionLimitExceeded}
	ErrExecutionNotRedrivable   = &APIError{Code: CodeExecutionNotRedrivable}
	ErrStateMachineDoesNotExist = &APIError{Code: CodeStateMachineDoesNotExist}
	ErrStateMachineDeleting     = &APIError{Code: CodeStateMachineDeleting}
	ErrInvalidArn               = &APIError{Code: CodeInvalidArn}
	ErrInvalidName              = &APIError{Code: CodeInvalidName}
	ErrInvalidExecutionInput    = &APIError{Code: CodeInvalidExecutionInput}
	ErrInvalidOutput            = &APIError{Code: CodeInvalidOutput}
	ErrInvalidToken             = &APIError{Code: CodeInvalidToken}
	ErrTaskDoesNotExist         = &APIError{Code: CodeTaskDoesNotExist}
	ErrTaskTimedOut             = &APIError{Code: CodeTaskTimedOut}
	ErrValidation               = &APIError{Code: CodeValidation}
)

// NewAPIError returns an APIError with a formatted message.
func NewAPIError(code ErrorCode, format string, args ...any) *APIError {
	return &APIError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ExecutionDoesNotExist is the error for an unknown execution ARN.
func ExecutionDoesNotExist(executionArn string) *APIError {
	return NewAPIError(CodeExecutionDoesNotExist, "Execution Does Not Exist: '%s'", executionArn)
}

// ExecutionAlreadyExists is the error for a name already used by an execution of the state
// machine (a closed one, or an open one started with a different input).
func ExecutionAlreadyExists(executionArn string) *APIError {
	return NewAPIError(CodeExecutionAlreadyExists, "Execution Already Exists: '%s'", executionArn)
}

// ExecutionNotRedrivable is the error for a redrive of an execution that cannot be redriven;
// reason says why, e.g. "Execution is RUNNING and cannot be redriven".
func ExecutionNotRedrivable(executionArn, reason string) *APIError {
	return NewAPIError(CodeExecutionNotRedrivable, "Execution '%s' is not redrivable: %s", executionArn, reason)
}

// StateMachineDoesNotExist is the error for an unknown state machine ARN.
func StateMachineDoesNotExist(stateMachineArn string) *APIError {
	return NewAPIError(CodeStateMachineDoesNotExist, "State Machine Does Not Exist: '%s'", stateMachineArn)
}

// InvalidArn is the error for a malformed ARN, or one of the wrong resource type.
func InvalidArn(detail string) *APIError {
	return NewAPIError(CodeInvalidArn, "Invalid Arn: '%s'", detail)
}

// InvalidName is the error for an execution name with characters Step Functions forbids.
func InvalidName(name string) *APIError {
	return NewAPIError(CodeInvalidName, "Invalid Name: '%s'", name)
}

// InvalidExecutionInput is the error for an execution input that is not JSON.
func InvalidExecutionInput(detail string) *APIError {
	return NewAPIError(CodeInvalidExecutionInput, "Invalid State Machine Execution Input: '%s'", detail)
}

// InvalidOutput is the error for a task output that is not JSON.
func InvalidOutput(detail string) *APIError {
	return NewAPIError(CodeInvalidOutput, "Invalid Output: '%s'", detail)
}

// InvalidToken is the error for a task token or pagination token the backend does not know.
func InvalidToken(detail string) *APIError {
	return NewAPIError(CodeInvalidToken, "Invalid Token: '%s'", detail)
}

// TaskDoesNotExist is the error for a task token whose task is no longer waiting.
func TaskDoesNotExist(detail string) *APIError {
	return NewAPIError(CodeTaskDoesNotExist, "Task Does Not Exist: '%s'", detail)
}

// TaskTimedOut is the error for a task token whose task timed out, or whose execution ended.
func TaskTimedOut(detail string) *APIError {
	return NewAPIError(CodeTaskTimedOut, "Task Timed Out: '%s'", detail)
}

// ValidationException is the error for a request that breaks a constraint of the API.
func ValidationException(message string) *APIError {
	return &APIError{Code: CodeValidation, Message: message}
}

// asAPIError turns any error a Backend returned into the APIError the server answers with.
func asAPIError(err error) *APIError {
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		return apiErr
	}
	return &APIError{Code: CodeInternalFailure, Message: "internal failure: " + err.Error(), Err: err}
}
