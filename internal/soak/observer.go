package soak

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/turnstile-sfn/turnstile/lock"
)

// observer reads the lock past the fault proxy and counts the reads that break the invariant
// (lock.State.Check), by how they break it. It is safe for concurrent use.
type observer struct {
	direct   *lock.Client
	lockName string
	limit    int

	reads, mostHolders, overLimit, mismatches, negatives, mostWaiters, waiters, broken atomic.Int64

	mu    sync.Mutex
	first string // the first broken snapshot
}

// read takes one snapshot and counts it.
func (o *observer) read(ctx context.Context) (lock.State, error) {
	s, err := o.direct.Read(ctx, o.lockName)
	if err != nil {
		return lock.State{}, err
	}
	o.reads.Add(1)
	holders := int64(len(s.Holders))
	for most := o.mostHolders.Load(); holders > most && !o.mostHolders.CompareAndSwap(most, holders); most = o.mostHolders.Load() {
	}
	waiters := int64(len(s.Waiters))
	o.waiters.Add(waiters)
	for most := o.mostWaiters.Load(); waiters > most && !o.mostWaiters.CompareAndSwap(most, waiters); most = o.mostWaiters.Load() {
	}
	if s.Count < 0 {
		o.negatives.Add(1)
	}
	if s.Count != s.HeldWeight() {
		o.mismatches.Add(1)
	}
	if holders > int64(o.limit) || s.Count > o.limit {
		o.overLimit.Add(1)
	}
	if err := s.Check(o.limit); err != nil {
		o.broken.Add(1)
		o.mu.Lock()
		if o.first == "" {
			o.first = err.Error()
		}
		o.mu.Unlock()
	}
	return s, nil
}

// addTo adds the counts to r.
func (o *observer) addTo(r *Report) {
	r.Reads += o.reads.Load()
	r.MostHolders = max(r.MostHolders, o.mostHolders.Load())
	r.OverLimitReads += o.overLimit.Load()
	r.CounterMismatches += o.mismatches.Load()
	r.NegativeCounts += o.negatives.Load()
	r.MostWaiters = max(r.MostWaiters, o.mostWaiters.Load())
	r.WaitersSeen += o.waiters.Load()
	r.BrokenReads += o.broken.Load()
	o.mu.Lock()
	defer o.mu.Unlock()
	if r.FirstFailure == "" {
		r.FirstFailure = o.first
	}
}
