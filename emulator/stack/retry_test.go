package stack

import (
	"errors"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/emulator"
)

// fixedBackoff always asks for the same delay.
type fixedBackoff time.Duration

func (f fixedBackoff) BackoffDelay(int, error) (time.Duration, error) { return time.Duration(f), nil }

// TestClockBackoff: a handler's retry waits the backoff on the emulator's clock, and the SDK no
// longer.
func TestClockBackoff(t *testing.T) {
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := emulator.NewScaledClock(start, 0)
	release := clock.Hold()
	defer release()
	b := clockBackoff{inner: fixedBackoff(2 * time.Second), clock: clock}
	if d, err := b.BackoffDelay(1, errors.New("reset")); err != nil || d != 0 {
		t.Errorf("BackoffDelay = %v, %v; want 0 for the SDK", d, err)
	}
	if got := clock.Now().Sub(start); got != 2*time.Second {
		t.Errorf("the backoff slept %v of virtual time, want 2s", got)
	}
}
