package stack

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/turnstile-sfn/turnstile/emulator"
)

// clockBackoff is the SDK's retry backoff slept on the emulator's clock: BackoffDelay sleeps the
// delay there (the client's goroutine holds a busy token, see emulator.Clock) and tells the SDK
// to wait no longer, so that a retry waits as long in virtual time as the same retry on AWS.
type clockBackoff struct {
	inner retry.BackoffDelayer
	clock emulator.Clock
}

// BackoffDelay implements retry.BackoffDelayer.
func (b clockBackoff) BackoffDelay(attempt int, err error) (time.Duration, error) {
	d, err := b.inner.BackoffDelay(attempt, err)
	if err != nil {
		return 0, err
	}
	return 0, b.clock.Sleep(context.Background(), d)
}

// virtualTimeRetryer is the SDK's standard retryer whose backoff runs on the emulator's clock.
func virtualTimeRetryer(clock emulator.Clock) aws.Retryer {
	return retry.NewStandard(func(o *retry.StandardOptions) {
		o.Backoff = clockBackoff{inner: retry.NewExponentialJitterBackoff(retry.DefaultMaxBackoff), clock: clock}
	})
}
