package eventbus

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"time"
)

// EventBridge's retry bounds for a target.
const (
	// DefaultMaximumRetryAttempts is EventBridge's default number of retries.
	DefaultMaximumRetryAttempts = 185
	// DefaultMaximumEventAge is EventBridge's default retry window.
	DefaultMaximumEventAge = 24 * time.Hour
	// MinimumEventAge is the smallest MaximumEventAge EventBridge accepts.
	MinimumEventAge = time.Minute
)

// RetryPolicy bounds how long a failed delivery is retried.
type RetryPolicy struct {
	// MaximumRetryAttempts is the number of retries after the first attempt (0..185).
	MaximumRetryAttempts int
	// MaximumEventAge is how long after it reached the bus an event may still be tried
	// (1 minute..24 hours).
	MaximumEventAge time.Duration
}

// DefaultRetryPolicy is EventBridge's policy for a target without one: 185 retries within
// 24 hours.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaximumRetryAttempts: DefaultMaximumRetryAttempts, MaximumEventAge: DefaultMaximumEventAge}
}

// validate checks the policy against EventBridge's bounds.
func (p RetryPolicy) validate() error {
	if p.MaximumRetryAttempts < 0 || p.MaximumRetryAttempts > DefaultMaximumRetryAttempts {
		return fmt.Errorf("MaximumRetryAttempts %d is outside 0..%d", p.MaximumRetryAttempts, DefaultMaximumRetryAttempts)
	}
	if p.MaximumEventAge < MinimumEventAge || p.MaximumEventAge > DefaultMaximumEventAge {
		return fmt.Errorf("MaximumEventAge %v is outside %v..%v", p.MaximumEventAge, MinimumEventAge, DefaultMaximumEventAge)
	}
	return nil
}

// Backoff shapes the waits between retries: exponential from Initial, doubling each retry up
// to Max, with jitter (each wait is drawn between half and all of its nominal value).
// EventBridge documents "exponential back off and jitter" without figures; these are the
// emulator's.
type Backoff struct {
	// Initial is the nominal wait before the first retry. Default: DefaultBackoffInitial.
	Initial time.Duration
	// Max caps the nominal wait. Default: DefaultBackoffMax.
	Max time.Duration
}

// Default backoff figures.
const (
	DefaultBackoffInitial = time.Second
	DefaultBackoffMax     = 5 * time.Minute
)

// jitteredBackoff computes retry waits from a seeded generator; safe for concurrent use.
type jitteredBackoff struct {
	Backoff
	mu  sync.Mutex
	rng *rand.Rand
}

func newJitteredBackoff(b Backoff, seed uint64) *jitteredBackoff {
	if b.Initial <= 0 {
		b.Initial = DefaultBackoffInitial
	}
	if b.Max <= 0 {
		b.Max = DefaultBackoffMax
	}
	return &jitteredBackoff{Backoff: b, rng: rand.New(rand.NewPCG(seed, ^seed))}
}

// wait returns the wait before retry number retry (0 for the first retry).
func (b *jitteredBackoff) wait(retry int) time.Duration {
	nominal := b.Initial
	for i := 0; i < retry && nominal < b.Max; i++ {
		nominal *= 2
	}
	nominal = min(nominal, b.Max)
	half := nominal / 2
	b.mu.Lock()
	jitter := time.Duration(b.rng.Int64N(int64(nominal-half) + 1))
	b.mu.Unlock()
	return half + jitter
}
