package reconcile

import (
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/turnstile-sfn/turnstile/lock"
	"github.com/turnstile-sfn/turnstile/metrics"
)

// WithMetrics makes each run write, per lock it read, one EMF line to m (see package
// metrics): SlotsFreedByReconciler, and the gauges SlotsHeld, ExecutionsWaiting and OldestWait
// as the scan read them. Default: none.
func WithMetrics(m *metrics.Logger) Option { return func(r *Reconciler) { r.metrics = m } }

// lockGauges is what a run's scan read of one lock.
type lockGauges struct {
	held, waiting, freed int
	oldest               time.Time // the oldest waiter's AttributeSince; zero without waiters
}

// observe records what item says of its lock's gauges in res.
func (r *Reconciler) observe(res *Result, item map[string]types.AttributeValue) {
	if r.metrics == nil {
		return
	}
	name, entry := stringAttr(item, lock.AttributeLockName), stringAttr(item, lock.AttributeEntry)
	if _, isHolder := lock.LockOfHolders(name); isHolder {
		return // the counter item counts the holders
	}
	switch _, isWaiter := lock.TicketOf(entry); {
	case entry == lock.EntryLock:
		g := res.gauge(name)
		if n, ok := item[lock.AttributeCount].(*types.AttributeValueMemberN); ok {
			g.held, _ = strconv.Atoi(n.Value)
		}
	case isWaiter:
		g := res.gauge(name)
		g.waiting++
		if since, err := time.Parse(lock.SinceLayout, stringAttr(item, lock.AttributeSince)); err == nil && (g.oldest.IsZero() || since.Before(g.oldest)) {
			g.oldest = since
		}
	}
}

// gauge returns the gauges of lockName in this run, creating them.
func (res *Result) gauge(lockName string) *lockGauges {
	if res.gauges == nil {
		res.gauges = map[string]*lockGauges{}
	}
	g := res.gauges[lockName]
	if g == nil {
		g = &lockGauges{}
		res.gauges[lockName] = g
	}
	return g
}

// report writes each lock's line of the run res, in the order of the lock names.
func (r *Reconciler) report(res Result) {
	if r.metrics == nil {
		return
	}
	now := r.metrics.Now()
	for _, name := range slices.Sorted(maps.Keys(res.gauges)) {
		g := res.gauges[name]
		var oldest time.Duration
		if !g.oldest.IsZero() {
			oldest = max(now.Sub(g.oldest), 0)
		}
		r.metrics.Emit(name, //nolint:errcheck // metrics never fail a run
			metrics.Count(metrics.SlotsFreedByReconciler, g.freed),
			metrics.Count(metrics.SlotsHeld, g.held),
			metrics.Count(metrics.ExecutionsWaiting, g.waiting),
			metrics.Milliseconds(metrics.OldestWait, oldest))
	}
}
