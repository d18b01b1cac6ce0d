package lambdafn

import (
	"fmt"
	"time"
)

// Lambda's defaults and limits for a function's configuration.
const (
	// DefaultTimeout is Lambda's default function timeout.
	DefaultTimeout = 3 * time.Second
	// MaxTimeout is the longest timeout Lambda allows.
	MaxTimeout = 900 * time.Second
	// DefaultAsyncRetryAttempts is how many times Lambda retries a failed asynchronous
	// invocation by default.
	DefaultAsyncRetryAttempts = 2
	// DefaultMaxEventAge is how long Lambda keeps an asynchronous invocation by default.
	DefaultMaxEventAge = 6 * time.Hour
)

// functionConfig is the configuration Lambda applies to a function's invocations.
type functionConfig struct {
	timeout             time.Duration
	reserved            bool // whether reservedConcurrency limits the function
	reservedConcurrency int
	asyncRetryAttempts  int
	maxEventAge         time.Duration
}

func defaultConfig() functionConfig {
	return functionConfig{
		timeout:            DefaultTimeout,
		asyncRetryAttempts: DefaultAsyncRetryAttempts,
		maxEventAge:        DefaultMaxEventAge,
	}
}

// FunctionOption configures a registered function, as the function's configuration in Lambda
// does.
type FunctionOption func(*functionConfig)

// Timeout sets the function's timeout: whole seconds from 1 s to 900 s, as Lambda allows.
// Default: DefaultTimeout (3 s). The Registry's time scale applies to it.
func Timeout(d time.Duration) FunctionOption {
	return func(c *functionConfig) { c.timeout = d }
}

// ReservedConcurrency reserves n concurrent executions for the function and limits it to them:
// an invocation beyond n is throttled (TooManyRequestsException), and 0 throttles every
// invocation. Default: unreserved, no limit.
func ReservedConcurrency(n int) FunctionOption {
	return func(c *functionConfig) { c.reserved, c.reservedConcurrency = true, n }
}

// AsyncRetryAttempts sets how many times a failed asynchronous (Event) invocation is retried,
// 0 to 2. Default: DefaultAsyncRetryAttempts (2).
func AsyncRetryAttempts(n int) FunctionOption {
	return func(c *functionConfig) { c.asyncRetryAttempts = n }
}

// MaxEventAge sets how long an asynchronous invocation is kept for retries, 60 s to 6 h.
// Default: DefaultMaxEventAge (6 h). The Registry's time scale applies to it.
func MaxEventAge(d time.Duration) FunctionOption {
	return func(c *functionConfig) { c.maxEventAge = d }
}

// validate checks the configuration against Lambda's limits.
func (c functionConfig) validate() error {
	switch {
	case c.timeout < time.Second || c.timeout > MaxTimeout || c.timeout%time.Second != 0:
		return fmt.Errorf("%w: Timeout must be whole seconds from 1s to %s, got %s", ErrInvalidOption, MaxTimeout, c.timeout)
	case c.reservedConcurrency < 0:
		return fmt.Errorf("%w: ReservedConcurrency must be >= 0, got %d", ErrInvalidOption, c.reservedConcurrency)
	case c.asyncRetryAttempts < 0 || c.asyncRetryAttempts > DefaultAsyncRetryAttempts:
		return fmt.Errorf("%w: AsyncRetryAttempts must be 0 to 2, got %d", ErrInvalidOption, c.asyncRetryAttempts)
	case c.maxEventAge < time.Minute || c.maxEventAge > DefaultMaxEventAge:
		return fmt.Errorf("%w: MaxEventAge must be from 1m0s to 6h0m0s, got %s", ErrInvalidOption, c.maxEventAge)
	}
	return nil
}
