package lambdafn

import (
	"errors"
	"fmt"
	"net/http"
)

// Errors of the Registry's own API (registration and configuration).
var (
	// ErrInvalidFunctionName: a function reference Lambda would reject.
	ErrInvalidFunctionName = errors.New("lambdafn: invalid function name")
	// ErrAlreadyRegistered: a handler is already registered for the function.
	ErrAlreadyRegistered = errors.New("lambdafn: function already registered")
	// ErrNotRegistered: no handler is registered for the function.
	ErrNotRegistered = errors.New("lambdafn: function not registered")
	// ErrInvalidOption: a function option outside the range Lambda allows.
	ErrInvalidOption = errors.New("lambdafn: invalid function option")
	// ErrInvalidRegistry: a registry option outside the range Lambda allows.
	ErrInvalidRegistry = errors.New("lambdafn: invalid registry option")
	// ErrClosed: the registry was closed.
	ErrClosed = errors.New("lambdafn: registry closed")
)

// Error codes of the Lambda service, as its Invoke API returns them.
const (
	CodeResourceNotFound      = "ResourceNotFoundException"
	CodeTooManyRequests       = "TooManyRequestsException"
	CodeService               = "ServiceException"
	CodeInvalidParameterValue = "InvalidParameterValueException"
	CodeInvalidRequestContent = "InvalidRequestContentException"
	CodeRequestTooLarge       = "RequestTooLargeException"
	CodeResourceConflict      = "ResourceConflictException"
	CodeResourceNotReady      = "ResourceNotReadyException"
	CodeValidation            = "ValidationException"
	CodeSdkClient             = "SdkClientException"
)

// Messages of the Lambda service, and the base exception of the AWS SDK's Lambda client.
const (
	codeAWSLambda               = "AWSLambdaException"
	throttleMessage             = "Rate Exceeded."
	closedMessage               = "the emulated Lambda service is shut down"
	mismatchedQualifierMessage  = "The derived qualifier from the function name does not match the specified qualifier."
	invalidClientContextMessage = "Client context must be a valid Base64-encoded JSON object."
)

// modeledCodes are the Lambda error codes the AWS SDK for Java (which Step Functions uses) has
// an exception class for; Step Functions names those errors "Lambda.<code>". Any other code
// reaches the state machine as "Lambda.AWSLambdaException", the SDK's base exception.
var modeledCodes = map[string]bool{
	CodeResourceNotFound:      true,
	CodeTooManyRequests:       true,
	CodeService:               true,
	CodeInvalidParameterValue: true,
	CodeInvalidRequestContent: true,
	CodeRequestTooLarge:       true,
	CodeResourceConflict:      true,
	CodeResourceNotReady:      true,
	CodeSdkClient:             true,
}

// ServiceError is an error of the Lambda service itself rather than of the function: the
// function was not found, was throttled, or Lambda failed. Registry.Invoke returns it, and a
// Handler may return one to simulate a Lambda fault (the invocation then fails with this service
// error instead of a function error).
type ServiceError struct {
	// Code is the Lambda error code, e.g. "TooManyRequestsException".
	Code string
	// Message is Lambda's message, e.g. "Rate Exceeded.".
	Message string
	// StatusCode is the HTTP status Lambda answers with; 0 means the code's usual status.
	StatusCode int
	// RequestID is the id of the failed request, when the registry assigned one.
	RequestID string
	// Err is the underlying cause, if any.
	Err error
}

// NewServiceError returns a ServiceError with the code's usual HTTP status.
func NewServiceError(code, message string) *ServiceError {
	return &ServiceError{Code: code, Message: message}
}

// Error renders the error as "lambda <code>: <message>".
func (e *ServiceError) Error() string {
	return fmt.Sprintf("lambda %s: %s", e.Code, e.Message)
}

// Unwrap returns the underlying cause.
func (e *ServiceError) Unwrap() error { return e.Err }

// Is matches another *ServiceError with the same code, so that errors.Is(err, &ServiceError{Code:
// CodeTooManyRequests}) tests the kind of failure.
func (e *ServiceError) Is(target error) bool {
	t, ok := target.(*ServiceError)
	return ok && t.Code == e.Code
}

// HTTPStatus returns the HTTP status Lambda answers the error with.
func (e *ServiceError) HTTPStatus() int {
	if e.StatusCode != 0 {
		return e.StatusCode
	}
	switch e.Code {
	case CodeResourceNotFound:
		return http.StatusNotFound
	case CodeTooManyRequests:
		return http.StatusTooManyRequests
	case CodeService:
		return http.StatusInternalServerError
	case CodeResourceConflict:
		return http.StatusConflict
	case CodeRequestTooLarge:
		return http.StatusRequestEntityTooLarge
	case CodeResourceNotReady:
		return http.StatusBadGateway
	default:
		return http.StatusBadRequest
	}
}

// StatesErrorName is the error name a Step Functions Task reports for this service error:
// "Lambda.<code>" for the codes the AWS SDK models, "Lambda.AWSLambdaException" otherwise.
func (e *ServiceError) StatesErrorName() string {
	if modeledCodes[e.Code] {
		return "Lambda." + e.Code
	}
	return "Lambda." + codeAWSLambda
}

// StatesCause is the cause a Step Functions Task reports: the AWS SDK's rendering of the
// service error, e.g. "Rate Exceeded. (Service: AWSLambda; Status Code: 429; Error Code:
// TooManyRequestsException; Request ID: …; Proxy: null)". A client-side SdkClientException has
// no service details and is reported with its message alone.
func (e *ServiceError) StatesCause() string {
	if e.Code == CodeSdkClient {
		return e.Message
	}
	return fmt.Sprintf("%s (Service: AWSLambda; Status Code: %d; Error Code: %s; Request ID: %s; Proxy: null)",
		e.Message, e.HTTPStatus(), e.Code, e.RequestID)
}
