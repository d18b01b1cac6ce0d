package lambdafn

import (
	"errors"
	"time"
)

// Lambda's timing of asynchronous retries.
const (
	// firstThrottleDelay is the wait before retrying a throttled asynchronous invocation; it
	// doubles on each throttle, up to maxThrottleDelay.
	firstThrottleDelay = time.Second
	maxThrottleDelay   = 5 * time.Minute
	// retryDelayStep is the wait before retrying a failed asynchronous invocation, times the
	// number of attempts so far: 1 minute, then 2.
	retryDelayStep = time.Minute
)

// enqueue accepts an asynchronous (Event) invocation and delivers it in the background.
func (r *Registry) enqueue(inv *invocation) error {
	if err := r.track(); err != nil {
		return err
	}
	r.pending.add()
	r.clock.Go(func() {
		defer r.work.done()
		defer r.pending.done()
		r.deliver(inv)
	})
	return nil
}

// deliver runs an asynchronous invocation as Lambda does: a throttled attempt is retried with a
// growing delay, a failed one (function error, timeout, service fault) is retried up to the
// function's AsyncRetryAttempts after 1 then 2 minutes, and an event older than the function's
// MaxEventAge is dropped. The registry closing drops it too.
func (r *Registry) deliver(inv *invocation) {
	queued := r.clock.Now()
	throttleDelay := firstThrottleDelay
	failures := 0
	for {
		cfg, err := r.acquire(inv.fn)
		var wait time.Duration
		switch {
		case errors.Is(err, ErrClosed):
			return
		case err != nil: // throttled
			wait = throttleDelay
			throttleDelay = min(2*throttleDelay, maxThrottleDelay)
		default:
			res, err := r.runSync(r.base, inv, cfg)
			if err != nil {
				return
			}
			if !res.failed && res.serviceErr == nil {
				return
			}
			failures++
			if failures > cfg.asyncRetryAttempts {
				return
			}
			wait = time.Duration(failures) * retryDelayStep
		}
		if !r.sleep(wait) || r.clock.Now().Sub(queued) > r.maxEventAge(inv.fn) {
			return
		}
	}
}

// maxEventAge reads the function's current MaxEventAge.
func (r *Registry) maxEventAge(fn *function) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return fn.config.maxEventAge
}

// sleep waits for d on the clock; it reports false when the registry closed first.
func (r *Registry) sleep(d time.Duration) bool {
	return r.clock.Sleep(r.base, d) == nil
}
