package stack

import (
	"errors"
	"testing"
	"time"
)

// fixedBackoff always asks for the same delay.
type fixedBackoff time.Duration

func (f fixedBackoff) BackoffDelay(int, error) (time.Duration, error) { return time.Duration(f), nil }

// TestScaledBackoff: a handler's retry waits the backoff times the time scale in real time, the
// backoff itself in virtual time.
func TestScaledBackoff(t *testing.T) {
	b := scaledBackoff{inner: fixedBackoff(2 * time.Second), scale: 0.01}
	if d, err := b.BackoffDelay(1, errors.New("reset")); err != nil || d != 20*time.Millisecond {
		t.Errorf("BackoffDelay = %v, %v; want 20ms", d, err)
	}
}
