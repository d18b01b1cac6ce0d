package faultproxy

import (
	"errors"
	"fmt"
	"net/http"
)

// ErrInvalidConfig reports a Config that Start cannot use.
var ErrInvalidConfig = errors.New("faultproxy: invalid config")

// The throttling error codes DynamoDB answers with, for Config.ThrottleCode.
const (
	// ThrottleProvisionedThroughput is the error of a table or index over its provisioned
	// capacity.
	ThrottleProvisionedThroughput = "ProvisionedThroughputExceededException"
	// ThrottleThrottling is the error of a request rate over an account or on-demand limit.
	ThrottleThrottling = "ThrottlingException"
)

// Config chooses which faults the proxy injects and how often. The three fractions are
// probabilities per selected request; their sum must not exceed 1.
type Config struct {
	// Delay, when set, is called as each request arrives, before its fate is drawn: the stack
	// sleeps the latency of a DynamoDB request on the emulator's clock there (it may read the
	// body if it puts it back). An error resets the connection. Default: nil.
	Delay func(r *http.Request) error `json:"-"`
	// Seed seeds the random source that decides each request's fate. Default: 0.
	Seed uint64
	// AppliedReplyLost is the fraction of requests forwarded and applied whose reply is then
	// dropped (the connection is reset). Default: 0.
	AppliedReplyLost float64
	// LostBefore is the fraction of requests dropped (the connection is reset) without being
	// forwarded. Default: 0.
	LostBefore float64
	// Throttled is the fraction of requests answered with a throttling error without being
	// forwarded. Default: 0.
	Throttled float64
	// ThrottleCode is the error code of a throttling answer: ThrottleProvisionedThroughput or
	// ThrottleThrottling. Default: ThrottleProvisionedThroughput.
	ThrottleCode string
	// Operations limits the faults to these DynamoDB operations, e.g. "UpdateItem" (the part of
	// the X-Amz-Target header after the dot). Other requests always pass. Default: every
	// operation.
	Operations []string
}

// validate checks the fractions and the throttle code.
func (c Config) validate() error {
	fractions := []struct {
		name  string
		value float64
	}{
		{"AppliedReplyLost", c.AppliedReplyLost},
		{"LostBefore", c.LostBefore},
		{"Throttled", c.Throttled},
	}
	var sum float64
	for _, f := range fractions {
		if !(f.value >= 0 && f.value <= 1) {
			return fmt.Errorf("%w: %s must be within [0, 1], got %v", ErrInvalidConfig, f.name, f.value)
		}
		sum += f.value
	}
	if sum > 1 {
		return fmt.Errorf("%w: the fractions must add up to at most 1, got %v", ErrInvalidConfig, sum)
	}
	switch c.ThrottleCode {
	case "", ThrottleProvisionedThroughput, ThrottleThrottling:
		return nil
	default:
		return fmt.Errorf("%w: ThrottleCode must be %s or %s, got %q",
			ErrInvalidConfig, ThrottleProvisionedThroughput, ThrottleThrottling, c.ThrottleCode)
	}
}

// throttleCode is the error code of a throttling answer.
func (c Config) throttleCode() string {
	if c.ThrottleCode == "" {
		return ThrottleProvisionedThroughput
	}
	return c.ThrottleCode
}
