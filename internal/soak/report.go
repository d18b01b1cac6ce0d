package soak

import (
	"fmt"
	"io"
	"strings"

	"github.com/turnstile-sfn/turnstile/internal/capacity"
)

// Faults counts the faults injected, by kind.
type Faults struct {
	// Requests is the number of DynamoDB requests that reached the fault proxy.
	Requests int64 `json:"requests"`
	// AppliedReplyLost is the number of requests applied whose reply was lost.
	AppliedReplyLost int64 `json:"appliedReplyLost"`
	// LostBefore is the number of requests lost before they arrived.
	LostBefore int64 `json:"lostBefore"`
	// Throttled is the number of requests answered with a throttling error.
	Throttled int64 `json:"throttled"`
	// CrashesHolding is the number of clients that crashed holding a slot.
	CrashesHolding int64 `json:"crashesHolding"`
	// CrashesUnknown is the number of clients that crashed not knowing whether their acquire or
	// release took effect.
	CrashesUnknown int64 `json:"crashesUnknown"`
	// CleanupEvents is the number of FAILED status-change events published: one per crash and
	// one per acquire timeout.
	CleanupEvents int64 `json:"cleanupEvents"`
	// EventsDropped is the number of cleanup events the bus dropped.
	EventsDropped int64 `json:"eventsDropped"`
	// EventsDuplicated is the number of cleanup events the bus delivered twice.
	EventsDuplicated int64 `json:"eventsDuplicated"`
}

// add adds g to f.
func (f *Faults) add(g Faults) {
	f.Requests += g.Requests
	f.AppliedReplyLost += g.AppliedReplyLost
	f.LostBefore += g.LostBefore
	f.Throttled += g.Throttled
	f.CrashesHolding += g.CrashesHolding
	f.CrashesUnknown += g.CrashesUnknown
	f.CleanupEvents += g.CleanupEvents
	f.EventsDropped += g.EventsDropped
	f.EventsDuplicated += g.EventsDuplicated
}

// Report is what a soak did and what its checks found. The failure figures (see Failures) must
// all be 0.
type Report struct {
	// Seeds is the number of seeds run.
	Seeds int `json:"seeds"`
	// Pairs is the number of acquire/release pairs run.
	Pairs int `json:"pairs"`
	// Operations is the number of acquires and releases recorded (clients, cleanup, reconciler).
	Operations int `json:"operations"`
	// UnknownOutcomes is the number of operations whose client never learned their outcome.
	UnknownOutcomes int `json:"unknownOutcomes"`
	// AcquireTimeouts is the number of pairs that gave up waiting for a slot: their execution
	// fails, and its status-change event reaches the cleanup.
	AcquireTimeouts int64 `json:"acquireTimeouts"`
	// Faults counts the faults injected.
	Faults Faults `json:"faults"`
	// ReconcilerReleases is the number of slots the reconciler passes freed.
	ReconcilerReleases int `json:"reconcilerReleases"`
	// Segments is the number of history segments checked.
	Segments int `json:"segments"`
	// FailingHistories is the number of seeds whose history the linearizability checker
	// rejected.
	FailingHistories int `json:"failingHistories"`
	// InconclusiveChecks is the number of segments whose check ran out of time.
	InconclusiveChecks int `json:"inconclusiveChecks"`
	// Reads is the number of reads of the lock (lock.Client.Read) during the run.
	Reads int64 `json:"reads"`
	// MostHolders is the largest number of holders a read saw.
	MostHolders int64 `json:"mostHolders"`
	// OverLimitReads is the number of reads that saw more holders (or a counter above) the limit.
	OverLimitReads int64 `json:"overLimitReads"`
	// CounterMismatches is the number of reads where the counter differed from the holders.
	CounterMismatches int64 `json:"counterMismatches"`
	// NegativeCounts is the number of reads with a negative counter.
	NegativeCounts int64 `json:"negativeCounts"`
	// BrokenReads is the number of reads that break the lock's invariant in any way
	// (lock.State.Check; an execution both holding and waiting included).
	BrokenReads int64 `json:"brokenReads"`
	// LeakedSlots is the number of holders left after quiescence and one reconciler pass, over
	// every seed.
	LeakedSlots int `json:"leakedSlots"`
	// Capacity is the DynamoDB capacity the pairs consumed, as DynamoDB bills it: every request
	// of the clients, the cleanup and the reconciler (not the soak's own reads of the lock item).
	Capacity capacity.Totals `json:"capacity"`
	// OutOfOrder is the number of executions admitted while an older ticket waited, as real
	// time proves it (semcheck.OutOfOrder; queue soak).
	OutOfOrder int `json:"outOfOrder"`
	// StrandedWaiters is the number of waiters never woken within Config.WaitTimeout, plus
	// those left in the queue at the end (queue soak).
	StrandedWaiters int64 `json:"strandedWaiters"`
	// LockErrors is the number of seeds ended early by a lock operation that failed with an
	// error no retry fixes, or kept failing (queue soak).
	LockErrors int `json:"lockErrors"`
	// Leaves is the number of executions that gave up waiting and left the queue (queue soak).
	Leaves int64 `json:"leaves"`
	// MostWaiters is the largest number of waiters a read saw.
	MostWaiters int64 `json:"mostWaiters"`
	// WaitersSeen is the sum of the waiters every read saw: divided by Reads, the mean queue.
	WaitersSeen int64 `json:"waitersSeen"`
	// FirstFailure describes the first failure found, "" for none.
	FirstFailure string `json:"firstFailure,omitempty"`
}

// Failures is the sum of the failure figures: failing and inconclusive histories, over-limit
// reads, counter mismatches, negative counts, reads breaking the invariant (a read counted in
// one of the three before counts here too), leaked slots, admissions out of order, stranded
// waiters and seeds ended by a lock error.
func (r Report) Failures() int64 {
	return int64(r.FailingHistories+r.InconclusiveChecks+r.LeakedSlots+r.OutOfOrder+r.LockErrors) +
		r.OverLimitReads + r.CounterMismatches + r.NegativeCounts + r.BrokenReads + r.StrandedWaiters
}

// add merges the report of one seed into r.
func (r *Report) add(s Report) {
	r.Seeds += s.Seeds
	r.Pairs += s.Pairs
	r.Operations += s.Operations
	r.UnknownOutcomes += s.UnknownOutcomes
	r.AcquireTimeouts += s.AcquireTimeouts
	r.Faults.add(s.Faults)
	r.ReconcilerReleases += s.ReconcilerReleases
	r.Segments += s.Segments
	r.FailingHistories += s.FailingHistories
	r.InconclusiveChecks += s.InconclusiveChecks
	r.Reads += s.Reads
	r.MostHolders = max(r.MostHolders, s.MostHolders)
	r.OverLimitReads += s.OverLimitReads
	r.CounterMismatches += s.CounterMismatches
	r.NegativeCounts += s.NegativeCounts
	r.BrokenReads += s.BrokenReads
	r.LeakedSlots += s.LeakedSlots
	r.Capacity.Add(s.Capacity)
	r.OutOfOrder += s.OutOfOrder
	r.StrandedWaiters += s.StrandedWaiters
	r.Leaves += s.Leaves
	r.LockErrors += s.LockErrors
	r.MostWaiters = max(r.MostWaiters, s.MostWaiters)
	r.WaitersSeen += s.WaitersSeen
	if r.FirstFailure == "" {
		r.FirstFailure = s.FirstFailure
	}
}

// WriteText writes the report as aligned lines, one figure a line, for a lock of limit slots.
func (r Report) WriteText(w io.Writer, limit int) error {
	f := r.Faults
	lines := []struct {
		name  string
		value any
	}{
		{"seeds", r.Seeds},
		{"pairs", r.Pairs},
		{"operations", fmt.Sprintf("%d (unknown outcome %d, acquire timeouts %d)", r.Operations, r.UnknownOutcomes, r.AcquireTimeouts)},
		{"requests", f.Requests},
		{"faults: applied, reply lost", f.AppliedReplyLost},
		{"faults: lost before", f.LostBefore},
		{"faults: throttled", f.Throttled},
		{"faults: crashes holding", f.CrashesHolding},
		{"faults: crashes, outcome unknown", f.CrashesUnknown},
		{"faults: events dropped", fmt.Sprintf("%d of %d", f.EventsDropped, f.CleanupEvents)},
		{"faults: events duplicated", fmt.Sprintf("%d of %d", f.EventsDuplicated, f.CleanupEvents)},
		{"reconciler releases", r.ReconcilerReleases},
		{"history segments checked", r.Segments},
		{"histories failing the checker", r.FailingHistories},
		{"checks inconclusive", r.InconclusiveChecks},
		{"reads", r.Reads},
		{"largest number of holders seen", fmt.Sprintf("%d (limit %d)", r.MostHolders, limit)},
		{"reads over the limit", r.OverLimitReads},
		{"reads where counter ≠ holders", r.CounterMismatches},
		{"negative counts", r.NegativeCounts},
		{"reads breaking the invariant", r.BrokenReads},
		{"slots leaked after one reconciler pass", r.LeakedSlots},
		{"waiters seen: most (mean)", fmt.Sprintf("%d (%.2f)", r.MostWaiters, perOperation(float64(r.WaitersSeen), int(r.Reads)))},
		{"executions that left the queue", r.Leaves},
		{"admissions out of order", r.OutOfOrder},
		{"waiters stranded", r.StrandedWaiters},
		{"seeds ended by a lock error", r.LockErrors},
	}
	// The capacity per pair: a pair is one execution's acquire and release.
	for _, f := range r.Capacity.PerExecution(r.Pairs).Figures() {
		lines = append(lines, struct {
			name  string
			value any
		}{strings.ToLower(f.Label[:1]) + f.Label[1:], strings.TrimSpace(f.Value + " " + f.Note)})
	}
	for _, line := range lines {
		if _, err := fmt.Fprintf(w, "%-40s %v\n", line.name, line.value); err != nil {
			return err
		}
	}
	if r.FirstFailure != "" {
		if _, err := fmt.Fprintf(w, "%-40s %s\n", "first failure", r.FirstFailure); err != nil {
			return err
		}
	}
	return nil
}

// perOperation is total / n, 0 for no n.
func perOperation(total float64, n int) float64 {
	if n == 0 {
		return 0
	}
	return total / float64(n)
}
