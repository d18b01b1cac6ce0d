package eventbus

import (
	"context"
	"time"
)

// Clock is the bus's view of time: the emulator injects its scaled clock, tests a virtual one.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// Sleep waits for d, or returns ctx's error if ctx ends first.
	Sleep(ctx context.Context, d time.Duration) error
	// Go runs f on a new goroutine; a clock that skips time counts it as busy until f returns.
	Go(f func())
}

// SystemClock returns the wall clock.
func SystemClock() Clock { return systemClock{} }

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) Go(f func()) { go f() }

func (systemClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
