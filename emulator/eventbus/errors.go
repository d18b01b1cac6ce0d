package eventbus

import (
	"errors"
	"fmt"
)

// Sentinel errors of the package; returned errors wrap them.
var (
	// ErrInvalidPattern reports an event pattern EventBridge would reject.
	ErrInvalidPattern = errors.New("invalid event pattern")
	// ErrUnsupportedOperator reports a pattern operator this bus does not implement.
	ErrUnsupportedOperator = errors.New("unsupported event pattern operator")
	// ErrInvalidRule reports a rule PutRule cannot register (no name, no pattern, a target
	// without an ID or function, duplicate target IDs, a retry policy out of AWS's bounds).
	ErrInvalidRule = errors.New("invalid rule")
	// ErrInvalidEvent reports an event Publish cannot accept (no source or detail-type, a
	// detail that is not a JSON object).
	ErrInvalidEvent = errors.New("invalid event")
	// ErrBusClosed reports a Publish or PutRule after Close.
	ErrBusClosed = errors.New("event bus closed")
	// ErrInvalidExecution reports an execution snapshot a status-change event cannot be built
	// from (a malformed ARN, an unknown status).
	ErrInvalidExecution = errors.New("invalid execution for a status-change event")
	// ErrInvalidSchedule reports a malformed schedule expression.
	ErrInvalidSchedule = errors.New("invalid schedule expression")
	// ErrUnsupportedSchedule reports a schedule expression this bus cannot tick (cron's L, W
	// and # or EventBridge Scheduler's at(...)).
	ErrUnsupportedSchedule = errors.New("unsupported schedule expression")
)

// PatternError locates a problem in an event pattern.
type PatternError struct {
	// Path is where in the pattern the problem is, e.g. detail.status[1].numeric.
	Path string
	// Err wraps ErrInvalidPattern or ErrUnsupportedOperator with a reason.
	Err error
}

// Error renders the location and the reason.
func (e *PatternError) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("eventbus: %v", e.Err)
	}
	return fmt.Sprintf("eventbus: pattern %s: %v", e.Path, e.Err)
}

// Unwrap returns the underlying error.
func (e *PatternError) Unwrap() error { return e.Err }

// patternErrorf builds a *PatternError wrapping sentinel.
func patternErrorf(path string, sentinel error, format string, args ...any) error {
	return &PatternError{Path: path, Err: fmt.Errorf("%w: %s", sentinel, fmt.Sprintf(format, args...))}
}
