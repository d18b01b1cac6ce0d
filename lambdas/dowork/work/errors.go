package work

import (
	"errors"
	"fmt"
	"time"
)

// Error names as Step Functions sees them. aws-lambda-go (lambda/errors.go) reports the Go type
// name of the error a handler returns, without the package and without the pointer, as the
// errorType; Step Functions matches ErrorEquals against it. Each const is the type name of the
// error type of the same name below, and a test checks it through aws-lambda-go itself.
const (
	// ErrorNameWorkFailed is reported for a *WorkFailed: the simulated failure.
	ErrorNameWorkFailed = "WorkFailed"
	// ErrorNameInvalidConfig is reported for an *InvalidConfig: the function is misconfigured.
	ErrorNameInvalidConfig = "InvalidConfig"
	// ErrorNameInvalidInput is reported for an *InvalidInput: the payload is not a JSON object.
	ErrorNameInvalidInput = "InvalidInput"
	// ErrorNameWorkInterrupted is reported for a *WorkInterrupted: the invocation's context ended
	// before the work did.
	ErrorNameWorkInterrupted = "WorkInterrupted"
)

// Sentinel causes, wrapped by the typed errors below; match them with errors.Is.
var (
	// ErrNegativeDuration is the cause of an *InvalidConfig for a negative duration.
	ErrNegativeDuration = errors.New("duration must not be negative")
	// ErrFailureRateOutOfRange is the cause of an *InvalidConfig for a failure rate outside 0..1.
	ErrFailureRateOutOfRange = errors.New("failure rate must be a number from 0 to 1")
	// ErrInputNotObject is the cause of an *InvalidInput.
	ErrInputNotObject = errors.New("input must be a JSON object")
)

// WorkFailed is the simulated failure of the demo work. It is returned unwrapped by the handler,
// so that the error name Step Functions sees is "WorkFailed".
type WorkFailed struct {
	// FailureRate is the configured rate that this invocation fell under.
	FailureRate float64
	// WorkedFor is how long the invocation worked before failing.
	WorkedFor time.Duration
}

// Error implements error.
func (e *WorkFailed) Error() string {
	return fmt.Sprintf("dowork: simulated failure after %s of work (failure rate %g)", e.WorkedFor, e.FailureRate)
}

// InvalidConfig reports a configuration value that does not parse or is out of range.
type InvalidConfig struct {
	// Setting is the environment variable or Config field that is wrong.
	Setting string
	// Value is its value as text.
	Value string
	// Err is the cause: a parse error, ErrNegativeDuration or ErrFailureRateOutOfRange.
	Err error
}

// Error implements error.
func (e *InvalidConfig) Error() string {
	return fmt.Sprintf("dowork: invalid configuration %s=%q: %v", e.Setting, e.Value, e.Err)
}

// Unwrap returns the cause.
func (e *InvalidConfig) Unwrap() error { return e.Err }

// InvalidInput reports a payload that is not a JSON object.
type InvalidInput struct {
	// Err is the cause: ErrInputNotObject, alone or wrapping the JSON decoding error.
	Err error
}

// Error implements error.
func (e *InvalidInput) Error() string {
	return fmt.Sprintf("dowork: invalid input: %v", e.Err)
}

// Unwrap returns the cause.
func (e *InvalidInput) Unwrap() error { return e.Err }

// WorkInterrupted reports that the invocation's context ended (deadline or cancellation) while
// the work was still running.
type WorkInterrupted struct {
	// Err is the context's error: context.DeadlineExceeded or context.Canceled.
	Err error
}

// Error implements error.
func (e *WorkInterrupted) Error() string {
	return fmt.Sprintf("dowork: work interrupted: %v", e.Err)
}

// Unwrap returns the context's error.
func (e *WorkInterrupted) Unwrap() error { return e.Err }
