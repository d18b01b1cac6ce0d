package runner

import (
	"encoding/json"
	"sort"
)

// admissionOrder compares, per lock, the order in which queued executions were admitted with
// the order in which they joined the queue: it counts the queued executions, those admitted
// from the queue, and the admissions of a waiter whose ticket is lower than that of the waiter
// admitted just before it (0 when the queue is FIFO).
func admissionOrder(traces []*Trace) (queued, admitted, inversions int) {
	byLock := map[string][]*Trace{}
	for _, t := range traces {
		if t.Ticket == 0 {
			continue
		}
		queued++
		if t.Admission > 0 {
			admitted++
			byLock[t.LockName] = append(byLock[t.LockName], t)
		}
	}
	for _, ts := range byLock {
		sort.Slice(ts, func(i, j int) bool { return ts[i].Admission < ts[j].Admission })
		for i := 1; i < len(ts); i++ {
			if ts[i].Ticket < ts[i-1].Ticket {
				inversions++
			}
		}
	}
	return queued, admitted, inversions
}

// parkRecord is what a "Wait In Queue" task's events say: the payload the hand-off function
// got (its lock), what it answered (the ticket), and the wake-up (the admission number).
type parkRecord struct {
	Payload struct {
		LockName string `json:"lockName"`
		Park     struct {
			Ticket int64 `json:"ticket"`
		} `json:"park"`
	} `json:"Payload"`
	Admission int64 `json:"admission"`
}

// readPark decodes a "Wait In Queue" event's JSON; anything else reads as zero.
func readPark(raw *string) parkRecord {
	var p parkRecord
	if raw != nil {
		_ = json.Unmarshal([]byte(*raw), &p)
	}
	return p
}
