package stack

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
)

// scaledBackoff is the SDK's retry backoff with its delays multiplied by the time scale: the
// clients given to handlers sleep in real time, so an unscaled backoff would wait 1/scale
// times longer in virtual time than the same retry waits on AWS.
type scaledBackoff struct {
	inner retry.BackoffDelayer
	scale float64
}

// BackoffDelay implements retry.BackoffDelayer.
func (b scaledBackoff) BackoffDelay(attempt int, err error) (time.Duration, error) {
	d, err := b.inner.BackoffDelay(attempt, err)
	return time.Duration(float64(d) * b.scale), err
}

// virtualTimeRetryer is the SDK's standard retryer whose backoff runs on the emulator's clock.
func virtualTimeRetryer(scale float64) aws.Retryer {
	return retry.NewStandard(func(o *retry.StandardOptions) {
		o.Backoff = scaledBackoff{inner: retry.NewExponentialJitterBackoff(retry.DefaultMaxBackoff), scale: scale}
	})
}
