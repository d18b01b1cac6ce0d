package ratelimit

import (
	"context"
	mathrand "math/rand/v2"
	"time"
)

// Clock is the time source of a limiter: the real clock by default, a fake one in tests.
type Clock interface {
	// Now is the current time.
	Now() time.Time
	// Sleep waits for d or until ctx is done, returning ctx.Err() in the latter case.
	Sleep(ctx context.Context, d time.Duration) error
}

// SystemClock is the real clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// Sleep waits for d or until ctx is done.
func (SystemClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// clockOrSystem returns c, or SystemClock when c is nil.
func clockOrSystem(c Clock) Clock {
	if c == nil {
		return SystemClock{}
	}
	return c
}

// randFloat is a uniform random number in [0, 1), for jitter.
func randFloat() float64 { return mathrand.Float64() }
