package runner

import (
	"encoding/json"
	"sort"
	"time"
)

// handOffTolerance is how much later than a younger waiter an older one may be woken without
// counting as overtaken: two releases that hand slots on at nearly the same moment wake their
// waiters in whichever order their SendTaskSuccess calls land.
const handOffTolerance = time.Second

// admissionOrder compares, per lock, the order in which queued executions were admitted with
// the order of their places in it (their tickets, or with priorities lock.Place of them): it
// counts the queued executions, those admitted from the queue, and the waiters overtaken:
// admitted more than handOffTolerance after a waiter with a later place that was admitted
// while they had been waiting for longer than that (0 when the queue keeps its order).
func admissionOrder(traces []*Trace) (queued, admitted, inversions int) {
	byLock := map[string][]*Trace{}
	for _, t := range traces {
		if t.Queued.IsZero() {
			continue
		}
		queued++
		if !t.Admitted.IsZero() {
			admitted++
			byLock[t.LockName] = append(byLock[t.LockName], t)
		}
	}
	for _, ts := range byLock {
		sort.Slice(ts, func(i, j int) bool { return ts[i].Place < ts[j].Place })
		for i, older := range ts {
			for _, younger := range ts[i+1:] {
				if younger.Admitted.Add(handOffTolerance).Before(older.Admitted) && older.Queued.Add(handOffTolerance).Before(younger.Admitted) {
					inversions++
					break
				}
			}
		}
	}
	return queued, admitted, inversions
}

// PriorityOrder is how waiters of different priorities were admitted, over the pairs of
// waiters of one lock, both admitted from the queue, of which the one with the lower priority
// queued first (the lower ticket). lock.Place promises the order of each pair: the later,
// higher one first, unless the earlier one queued at least (q-p)·ageing tickets before it.
type PriorityOrder struct {
	// Waiters counts the waiters admitted from the queue, by priority.
	Waiters map[int]int `json:"waiters"`
	// Pairs counts the pairs.
	Pairs int `json:"pairs"`
	// HigherFirst counts the pairs whose later, higher-priority waiter was admitted first.
	HigherFirst int `json:"higherFirst"`
	// AgedFirst counts the pairs whose earlier, lower-priority waiter was admitted first, as
	// the starvation bound wants: it queued long enough before the other.
	AgedFirst int `json:"agedFirst"`
	// AgainstPromise counts the pairs admitted in the order their places forbid: a later,
	// higher waiter admitted beyond the starvation bound, or an earlier, lower one admitted
	// first although the bound let the other overtake it. 0 in a run that keeps the promise.
	AgainstPromise int `json:"againstPromise"`
	// Simultaneous counts the pairs admitted within handOffTolerance of each other, whose
	// order the clocks do not tell.
	Simultaneous int `json:"simultaneous"`
}

// priorityOrder sums up the pairs of PriorityOrder; nil when no waiter had a priority.
func priorityOrder(traces []*Trace) *PriorityOrder {
	byLock := map[string][]*Trace{}
	o := &PriorityOrder{Waiters: map[int]int{}}
	for _, t := range traces {
		if t.Priority != nil && !t.Queued.IsZero() && !t.Admitted.IsZero() {
			byLock[t.LockName] = append(byLock[t.LockName], t)
			o.Waiters[*t.Priority]++
		}
	}
	if len(o.Waiters) == 0 {
		return nil
	}
	for _, ts := range byLock {
		for _, low := range ts {
			for _, high := range ts {
				if *low.Priority >= *high.Priority || low.Ticket >= high.Ticket {
					continue
				}
				o.Pairs++
				highPromised := high.Place < low.Place
				switch {
				case high.Admitted.Add(handOffTolerance).Before(low.Admitted):
					o.HigherFirst++
					if !highPromised {
						o.AgainstPromise++
					}
				case low.Admitted.Add(handOffTolerance).Before(high.Admitted):
					o.AgedFirst++
					if highPromised {
						o.AgainstPromise++
					}
				default:
					o.Simultaneous++
				}
			}
		}
	}
	return o
}

// parkRecord is what a "Wait In Queue" task's events say: the payload the hand-off function
// got (its lock and ticket), what it answered (queued or admitted), and the wake-up (who
// granted the slot).
type parkRecord struct {
	Payload struct {
		LockName       string `json:"lockName"`
		Ticket         int64  `json:"ticket"`
		Priority       *int   `json:"priority"`
		PriorityAgeing int64  `json:"priorityAgeing"`
		Weight         int    `json:"weight"`
		Park           struct {
			Queued bool `json:"queued"`
		} `json:"park"`
	} `json:"Payload"`
	GrantedBy string `json:"grantedBy"`
	HeldSince string `json:"heldSince"`
}

// readPark decodes a "Wait In Queue" event's JSON (a wake-up is a lock.Wake); anything else reads as zero.
func readPark(raw *string) parkRecord {
	var p parkRecord
	if raw != nil {
		_ = json.Unmarshal([]byte(*raw), &p)
	}
	return p
}
