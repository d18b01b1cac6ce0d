package runner

import (
	"slices"
	"sort"
	"time"

	"github.com/turnstile-sfn/turnstile/internal/capacity"
)

// Report is the outcome of one load test.
type Report struct {
	// StateMachineArn is the machine that ran.
	StateMachineArn string `json:"stateMachineArn"`
	// Started counts the executions started.
	Started int `json:"started"`
	// Succeeded counts the executions that succeeded.
	Succeeded int `json:"succeeded"`
	// Failed counts the executions that did not succeed (failed, timed out or aborted).
	Failed int `json:"failed"`
	// FailedByError counts the failures by error name.
	FailedByError map[string]int `json:"failedByError"`
	// MaxConcurrentWork is the largest number of executions inside the work step at once.
	MaxConcurrentWork int `json:"maxConcurrentWork"`
	// MaxConcurrentWeight is, with weighted permits, the largest sum of the weights of the
	// executions inside the work step at once (never above the limit); 0 without weights.
	MaxConcurrentWeight int `json:"maxConcurrentWeight,omitempty"`
	// WeightedWorkSeconds is, with weighted permits, the time spent in the work step times the
	// weight, over all executions: the slot-seconds the work used; 0 without weights.
	WeightedWorkSeconds float64 `json:"weightedWorkSeconds,omitempty"`
	// MaxConcurrentWorkByKey is, with Config.Keys, the largest number of executions of each
	// key inside the work step at once; nil without keys.
	MaxConcurrentWorkByKey map[string]int `json:"maxConcurrentWorkByKey,omitempty"`
	// MakespanSeconds runs from the first start to the last end.
	MakespanSeconds float64 `json:"makespanSeconds"`
	// WorkSeconds is the total time spent in the work step, over all executions.
	WorkSeconds float64 `json:"workSeconds"`
	// WaitForSlot is the time from an execution's start to its work's start.
	WaitForSlot Stats `json:"waitForSlotSeconds"`
	// HandOff is the time from a release that left a waiter to the next work start.
	HandOff Stats `json:"handOffSeconds"`
	// TransitionsPerExecution is the mean number of billed state transitions.
	TransitionsPerExecution float64 `json:"transitionsPerExecution"`
	// DynamoDBRequestsPerExecution is the mean number of DynamoDB requests.
	DynamoDBRequestsPerExecution float64 `json:"dynamodbRequestsPerExecution"`
	// Locks are the lock items after the run settled; nil when the table was not read.
	Locks []LockItem `json:"locks,omitempty"`
	// LeakedSlots is the number of slots still held after the run settled.
	LeakedSlots int `json:"leakedSlots"`
	// WaitersLeft is the number of executions still in a wait queue after the run settled.
	WaitersLeft int `json:"waitersLeft"`
	// Queued counts the executions that joined a wait queue (Callback strategy).
	Queued int `json:"queued"`
	// AdmittedFromQueue counts the queued executions that were admitted from the queue with an
	// admission number; a queued execution whose wake-up was lost finds its slot on its own
	// and has none.
	AdmittedFromQueue int `json:"admittedFromQueue"`
	// AdmissionOrderInversions counts, per lock, the waiters admitted from the queue before a
	// waiter that had joined it earlier: 0 means admission order equals enqueue order.
	AdmissionOrderInversions int `json:"admissionOrderInversions"`
	// Priorities is, with priorities, the order in which waiters of different priorities were
	// admitted against the order lock.Place promises; nil without priorities.
	Priorities *PriorityOrder `json:"priorities,omitempty"`
	// Capacity is the lock table's consumed capacity per execution, from CloudWatch; nil when
	// the runner had no CloudWatch client or no lock table.
	Capacity *capacity.PerExecution `json:"capacity,omitempty"`
	// Executions are the per-execution traces, in start order.
	Executions []*Trace `json:"executions,omitempty"`
}

// newReport summarises the traces.
func newReport(cfg Config, traces []*Trace) *Report {
	r := &Report{StateMachineArn: cfg.StateMachineArn, Started: len(traces), FailedByError: map[string]int{}, Executions: traces}
	var first, last time.Time
	var waits []time.Duration
	transitions, requests := 0, 0
	for _, t := range traces {
		if t.Status == "SUCCEEDED" {
			r.Succeeded++
		} else {
			r.Failed++
			r.FailedByError[t.Error]++
		}
		if first.IsZero() || t.Started.Before(first) {
			first = t.Started
		}
		if t.Ended.After(last) {
			last = t.Ended
		}
		if t.Worked() {
			waits = append(waits, t.WorkStarted.Sub(t.Started))
			r.WorkSeconds += t.WorkEnded.Sub(t.WorkStarted).Seconds()
		}
		transitions += t.Transitions
		requests += t.DynamoDBRequests
	}
	sort.Slice(traces, func(i, j int) bool { return traces[i].Started.Before(traces[j].Started) })
	r.MakespanSeconds = last.Sub(first).Seconds()
	r.MaxConcurrentWork = MaxOverlap(traces)
	if slices.ContainsFunc(traces, func(t *Trace) bool { return t.Weight > 0 }) {
		r.MaxConcurrentWeight = maxWeightOverlap(traces)
		for _, t := range traces {
			if t.Worked() {
				r.WeightedWorkSeconds += float64(max(t.Weight, 1)) * t.WorkEnded.Sub(t.WorkStarted).Seconds()
			}
		}
	}
	if len(cfg.Keys) > 0 {
		byKey := map[string][]*Trace{}
		for _, t := range traces {
			byKey[t.Key] = append(byKey[t.Key], t)
		}
		r.MaxConcurrentWorkByKey = map[string]int{}
		for key, ts := range byKey {
			r.MaxConcurrentWorkByKey[key] = MaxOverlap(ts)
		}
	}
	r.WaitForSlot = StatsOf(waits)
	r.HandOff = StatsOf(handOffs(traces))
	r.Queued, r.AdmittedFromQueue, r.AdmissionOrderInversions = admissionOrder(traces)
	r.Priorities = priorityOrder(traces)
	if n := len(traces); n > 0 {
		r.TransitionsPerExecution = float64(transitions) / float64(n)
		r.DynamoDBRequestsPerExecution = float64(requests) / float64(n)
	}
	return r
}

// setLocks records the lock items and the slots they still hold.
func (r *Report) setLocks(locks []LockItem) {
	r.Locks = locks
	r.LeakedSlots, r.WaitersLeft = 0, 0
	for _, l := range locks {
		r.LeakedSlots += l.Leaked()
		r.WaitersLeft += len(l.Waiting)
	}
}
