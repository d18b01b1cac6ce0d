package emulator

import (
	"errors"
	"math"
	"math/rand/v2"
	"time"

	"github.com/turnstile-sfn/turnstile/asl"
)

// attemptFunc runs one attempt of a Task, Parallel or Map state and returns its final output.
type attemptFunc func() (any, error)

// withRetry runs attempts of a state until one succeeds, a failure is caught, or a failure no
// retrier or catcher handles ends the state. failed is called once, when the state finally
// fails (before its catcher, if any, takes over). It returns the state's output and next state.
func (r *runner) withRetry(s *stateRun, rawInput any, attempt attemptFunc, failed func()) (any, string, error) {
	counts := make([]int, len(s.node.retry))
	for {
		out, err := attempt()
		if err == nil {
			return out, s.node.next, nil
		}
		var f *failure
		if !errors.As(err, &f) {
			return nil, "", err
		}
		if d, ok := nextRetry(s.node.retry, counts, f, r.rng); ok {
			s.retryCount++
			if err := r.sleep(d); err != nil {
				return nil, "", err
			}
			continue
		}
		if failed != nil {
			failed()
		}
		for _, c := range s.node.catch {
			if f.matches(c.errorEquals) {
				out, err := r.catchOutput(s, c, rawInput, f)
				return out, c.next, err
			}
		}
		return nil, "", f
	}
}

// nextRetry finds the first retrier matching the failure. It returns the delay before the next
// attempt, or false when that retrier is exhausted (or none matches) and Catch takes over.
// counts holds the attempts made so far by each retrier.
func nextRetry(retriers []*asl.Retrier, counts []int, f *failure, rng *rand.Rand) (time.Duration, bool) {
	for i, rt := range retriers {
		if !f.matches(rt.ErrorEquals) {
			continue
		}
		if counts[i] >= rt.Attempts() {
			return 0, false
		}
		d := retryDelay(rt, counts[i], rng)
		counts[i]++
		return d, true
	}
	return 0, false
}

// retryDelay computes the wait before retry number attempt+1 of a retrier:
// IntervalSeconds × BackoffRate^attempt, capped by MaxDelaySeconds, then drawn uniformly in
// [0, delay) with the FULL jitter strategy.
func retryDelay(rt *asl.Retrier, attempt int, rng *rand.Rand) time.Duration {
	seconds := float64(rt.Interval()) * math.Pow(rt.Backoff(), float64(attempt))
	if rt.MaxDelaySeconds != nil && seconds > float64(*rt.MaxDelaySeconds) {
		seconds = float64(*rt.MaxDelaySeconds)
	}
	if rt.JitterStrategy == asl.JitterFull {
		seconds *= rng.Float64()
	}
	return time.Duration(seconds * float64(time.Second))
}
