package ratelimit

import "errors"

// ErrInvalidConfig reports a configuration that New or NewAdaptive cannot use; the message names
// the field and the value to fix.
var ErrInvalidConfig = errors.New("ratelimit: invalid config")

// ErrExceedsBurst reports a request for more permits at once than the burst allows: no wait can
// ever grant it. Ask for fewer permits or configure a larger Burst.
var ErrExceedsBurst = errors.New("ratelimit: n exceeds the burst; ask for fewer permits or raise Burst")

// ErrWouldExceedDeadline reports a wait that would end after the context's deadline: the
// permits were not taken. Give the caller more time or a higher rate.
var ErrWouldExceedDeadline = errors.New("ratelimit: the wait would exceed the context deadline; permits not taken")

// ErrStore reports a DynamoDB request that failed after the SDK's own retries; it wraps the
// SDK's error. Check the table name, key attribute, permissions and the endpoint.
var ErrStore = errors.New("ratelimit: DynamoDB request failed")

// ErrClosed reports the use of an Adaptive limiter after Close.
var ErrClosed = errors.New("ratelimit: adaptive limiter closed; create a new one")
