package lock

import "time"

// SinceLayout is the format of the AttributeSince of holder and waiter items
// ($$.State.EnteredTime's, in UTC).
const SinceLayout = "2006-01-02T15:04:05.000Z"

// Admission is a waiter woken with a slot, as a Client reports it to WithAdmitted.
type Admission struct {
	// Lock is the lock's name.
	Lock string
	// Execution is the admitted waiter's execution ARN.
	Execution string
	// GrantedBy is the execution whose slot it took over, or Execution itself when it took a
	// free slot.
	GrantedBy string
	// Since is when it joined the queue (zero when its waiter item had no readable time).
	Since time.Time
	// At is when it was woken, on the Client's clock.
	At time.Time
}

// WithAdmitted makes the client call admitted after each waiter it wakes with a slot (a
// hand-off, or a free slot given to the oldest waiter), from the goroutine of the operation
// that woke it, at no extra request: for metrics. Default: none.
func WithAdmitted(admitted func(Admission)) Option {
	return func(c *Client) { c.onAdmitted = admitted }
}

// reportAdmitted reports the waiter w of lock, just woken with the slot of grantedBy.
func (c *Client) reportAdmitted(w waiter, grantedBy string) {
	if c.onAdmitted == nil {
		return
	}
	since, _ := time.Parse(SinceLayout, w.since)
	c.onAdmitted(Admission{Lock: w.lock, Execution: w.execution, GrantedBy: grantedBy, Since: since, At: c.now()})
}
