package handoff

import (
	"time"

	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/lock"
	"github.com/turnstile-sfn/turnstile/metrics"
)

// Option configures a Handler.
type Option func(*Handler)

// WithMetrics makes the handler write its metrics to m (see package metrics): SlotsHandedOn
// and HandOffLatency for a release that handed its slot on, SlotsFreedByCleanup for the
// cleanup's release of a slot still held, AcquireTimeouts for a leave. Pass WaitTimes(m) to
// the lock.Client as well for WaitTime. Default: none.
func WithMetrics(m *metrics.Logger) Option { return func(h *Handler) { h.metrics = m } }

// WaitTimes is the lock.Client option that writes the WaitTime of every waiter the client
// wakes with a slot to m.
func WaitTimes(m *metrics.Logger) lock.Option {
	return lock.WithAdmitted(func(a lock.Admission) {
		if m == nil || a.Since.IsZero() {
			return
		}
		m.Emit(a.Lock, metrics.Milliseconds(metrics.WaitTime, a.At.Sub(a.Since))) //nolint:errcheck // metrics never fail a hand-off
	})
}

// report writes the metrics of a request that succeeded with res, started at start.
func (h *Handler) report(req Request, res Response, start time.Time) {
	if h.metrics == nil {
		return
	}
	var values []metrics.Value
	switch {
	case req.Action == machines.HandOffActionLeave:
		values = append(values, metrics.Count(metrics.AcquireTimeouts, 1))
	case res.Release != nil:
		if req.IfHeld && res.Release.Released {
			values = append(values, metrics.Count(metrics.SlotsFreedByCleanup, 1))
		}
		if n := len(res.Release.HandedTo); n > 0 {
			values = append(values, metrics.Count(metrics.SlotsHandedOn, n),
				metrics.Milliseconds(metrics.HandOffLatency, h.metrics.Now().Sub(start)))
		}
	}
	h.metrics.Emit(req.LockName, values...) //nolint:errcheck // metrics never fail a hand-off
}
