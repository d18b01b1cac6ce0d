package eventbus

import "errors"

// Why a delivery was given up, as EventBridge's EXHAUSTED_RETRY_CONDITION names it (plus the
// emulator's own reasons).
const (
	// ReasonRetryAttemptsExhausted: the target failed on every allowed attempt.
	ReasonRetryAttemptsExhausted = "MaximumRetryAttemptsExhausted"
	// ReasonEventAgeExhausted: the event grew older than the policy's MaximumEventAge.
	ReasonEventAgeExhausted = "MaximumEventAgeExhausted"
	// ReasonPermanentFailure: the target returned an error marked Permanent, which
	// EventBridge does not retry (a missing target, missing permissions).
	ReasonPermanentFailure = "PermanentFailure"
	// ReasonBusClosed: the bus was closed before the delivery could finish.
	ReasonBusClosed = "BusClosed"
)

// DeadLetter is an event a target never accepted.
type DeadLetter struct {
	// Event is the undelivered event.
	Event Event
	// RuleName is the rule that matched it.
	RuleName string
	// TargetID and TargetARN identify the target.
	TargetID, TargetARN string
	// QueueARN is the target's dead-letter queue; "" when it has none, in which case
	// EventBridge would have dropped the event.
	QueueARN string
	// Reason is one of the Reason* constants.
	Reason string
	// RetryAttempts is the number of retries made after the first attempt.
	RetryAttempts int
	// Err is the target's last error (or the context's error for ReasonBusClosed).
	Err error
}

// DeadLetterSink receives every undeliverable event. It may be called from several goroutines
// at once.
type DeadLetterSink func(DeadLetter)

// permanentError marks a target error that retrying cannot fix.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// Permanent marks a target's error as one retrying cannot fix: the bus gives the event to the
// dead-letter sink at once instead of retrying.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &permanentError{err: err}
}

// isPermanent reports whether err was marked with Permanent.
func isPermanent(err error) bool {
	var p *permanentError
	return errors.As(err, &p)
}
