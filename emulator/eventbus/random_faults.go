package eventbus

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// RandomFaults is a seeded DeliveryPolicy for fault tests: it drops a fraction of deliveries,
// duplicates another, and delays every copy by a random amount below a bound, so that copies
// arrive out of order. It is safe for concurrent use.
type RandomFaults struct {
	drop, duplicate float64
	maxDelay        time.Duration

	mu     sync.Mutex
	random *rand.Rand

	dropped, duplicated atomic.Int64
}

// NewRandomFaults returns the policy that drops the fraction drop of deliveries and
// duplicates the fraction duplicate, delaying each copy by less than maxDelay (none when 0).
func NewRandomFaults(seed uint64, drop, duplicate float64, maxDelay time.Duration) *RandomFaults {
	return &RandomFaults{drop: drop, duplicate: duplicate, maxDelay: maxDelay, random: rand.New(rand.NewPCG(seed, 0xeeee))}
}

// Plan decides the copies of one delivery.
func (f *RandomFaults) Plan(Delivery) []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	delay := func() time.Duration {
		if f.maxDelay <= 0 {
			return 0
		}
		return time.Duration(f.random.Int64N(int64(f.maxDelay)))
	}
	switch u := f.random.Float64(); {
	case u < f.drop:
		f.dropped.Add(1)
		return nil
	case u < f.drop+f.duplicate:
		f.duplicated.Add(1)
		return []time.Duration{delay(), delay()}
	default:
		return []time.Duration{delay()}
	}
}

// Dropped is the number of deliveries dropped so far.
func (f *RandomFaults) Dropped() int64 { return f.dropped.Load() }

// Duplicated is the number of deliveries duplicated so far.
func (f *RandomFaults) Duplicated() int64 { return f.duplicated.Load() }
