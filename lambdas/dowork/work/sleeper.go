package work

import (
	"context"
	"time"
)

// Sleeper waits for a duration of work. Sleep returns nil when the duration has passed and the
// context's error when the context ends first. The local emulator passes one that runs on its
// scaled clock.
type Sleeper interface {
	Sleep(ctx context.Context, d time.Duration) error
}

// SleeperFunc adapts a function to the Sleeper interface.
type SleeperFunc func(ctx context.Context, d time.Duration) error

// Sleep calls f(ctx, d).
func (f SleeperFunc) Sleep(ctx context.Context, d time.Duration) error { return f(ctx, d) }

// WallClock is the Sleeper of a real invocation: it waits in real time.
type WallClock struct{}

// Sleep waits for d, or until ctx ends.
func (WallClock) Sleep(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
