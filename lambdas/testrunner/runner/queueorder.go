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
// the order in which they joined the queue: it counts the queued executions, those admitted
// from the queue, and the waiters overtaken: admitted more than handOffTolerance after a
// younger waiter (a higher ticket) that was admitted while they had been waiting for longer
// than that (0 when the queue is FIFO).
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
		sort.Slice(ts, func(i, j int) bool { return ts[i].Ticket < ts[j].Ticket })
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

// parkRecord is what a "Wait In Queue" task's events say: the payload the hand-off function
// got (its lock and ticket), what it answered (queued or admitted), and the wake-up (who
// granted the slot).
type parkRecord struct {
	Payload struct {
		LockName string `json:"lockName"`
		Ticket   int64  `json:"ticket"`
		Park     struct {
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
