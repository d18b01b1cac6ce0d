package waitqueue

import (
	"context"
	"fmt"

	"github.com/turnstile-sfn/turnstile/asl/machines"
)

// ReleaseResult says what Release did.
type ReleaseResult struct {
	// Released: the execution held a slot and gave it up (to a waiter or to the lock). When two
	// releases of one execution race, both may report the one hand-off.
	Released bool `json:"released"`
	// Dequeued: the execution waited in the queue and was removed from it.
	Dequeued bool `json:"dequeued"`
	// HandedTo are the waiters the slot was handed to, in order; all but the last were found
	// dead when woken, and their slot went on to the next.
	HandedTo []string `json:"handedTo,omitempty"`
	// Skipped are the dead waiters the slot passed through.
	Skipped []string `json:"skipped,omitempty"`
}

// Release gives execution's slot of lock to the oldest waiter and wakes it, or back to the
// lock when nobody waits; an execution that only waits is removed from the queue. Releasing an
// execution that neither holds nor waits does nothing (it is idempotent). A woken waiter whose
// task cannot be completed and whose execution is not RUNNING is released in turn, so its
// slot goes on to the next waiter. A lock holding more slots than limit (the limit was lowered)
// hands none on: the release gives its slot back until the count is within the limit again.
func (q *Queue) Release(ctx context.Context, lock, execution string, limit int) (ReleaseResult, error) {
	switch {
	case lock == "" || execution == "":
		return ReleaseResult{}, fmt.Errorf("%w: release needs a lock name and an execution", ErrInvalidRequest)
	case limit < 1:
		return ReleaseResult{}, fmt.Errorf("%w: release needs a limit of at least 1, got %d", ErrInvalidRequest, limit)
	}
	var res ReleaseResult
	var tried handOffTry
	current := execution
	for range q.attempts {
		st, err := q.read(ctx, lock)
		if err != nil {
			return res, err
		}
		if tried.landed(current, st) {
			// The hand-off's reply was lost (its write failed the condition on the client's
			// retry because the first attempt had applied it): the waiter holds the slot, so
			// wake it now rather than leave it asleep until its fallback period.
			if current == execution {
				res.Released = true
			}
			res.HandedTo = append(res.HandedTo, tried.waiter)
			dead, err := q.wakeOrFindDead(ctx, tried.waiter, tried.token, Wake{GrantedBy: current})
			if err != nil || !dead {
				return res, err
			}
			res.Skipped = append(res.Skipped, tried.waiter)
			current, tried = tried.waiter, handOffTry{}
			continue
		}
		tried = handOffTry{}
		next, done, err := q.releaseAfterRead(ctx, lock, current, current == execution, limit, st, &res, &tried)
		if err != nil || done {
			return res, err
		}
		if next != "" {
			res.Skipped = append(res.Skipped, next)
			current = next
		}
	}
	return res, fmt.Errorf("%w: release %s on %q: the lock changed under %d attempts", ErrBusy, execution, lock, q.attempts)
}

// releaseAfterRead makes one release step for holder from a read: done when the release is
// complete, next naming a dead waiter that was handed the slot and must be released in turn,
// neither when the lock changed and the step must be tried again. own is true when holder is
// the execution the release is for, not a dead waiter it passed the slot to.
func (q *Queue) releaseAfterRead(ctx context.Context, lock, holder string, own bool, limit int, st lockState, res *ReleaseResult, tried *handOffTry) (next string, done bool, err error) {
	if i := st.position(holder); i >= 0 {
		ok, _, err := q.update(ctx, lock, dequeueWrite(holder, i))
		if ok && own {
			res.Dequeued = true
		}
		return "", false, err
	}
	switch {
	case !st.holders[holder]:
		return "", true, nil
	case len(st.queue) == 0 || st.count > limit:
		w := releaseWrite(holder)
		if len(st.queue) > 0 {
			w = overLimitReleaseWrite(holder, limit)
		}
		ok, _, err := q.update(ctx, lock, w)
		if ok && own {
			res.Released = true
		}
		return "", ok, err
	}
	head := st.queue[0]
	var w write
	if st.holders[head] {
		// The oldest waiter holds a slot already: it only has to leave the queue.
		w = dequeueWrite(head, 0)
	} else {
		w = handOffWrite(holder, head, st.tokens[head], q.timestamp(), limit)
	}
	ok, out, err := q.update(ctx, lock, w)
	if err != nil || !ok || st.holders[head] {
		if !st.holders[head] && err == nil {
			*tried = handOffTry{waiter: head, token: st.tokens[head]}
		}
		return "", false, err
	}
	if own {
		res.Released = true
	}
	res.HandedTo = append(res.HandedTo, head)
	wake := Wake{GrantedBy: holder, Admission: counterOf(out.Attributes, machines.AttributeQueueAdmissions)}
	dead, err := q.wakeOrFindDead(ctx, head, st.tokens[head], wake)
	if err != nil || !dead {
		return "", true, err
	}
	return head, false, nil
}

// wakeOrFindDead wakes a waiter that was just handed a slot. If its task cannot be completed,
// dead reports whether its execution is not RUNNING (the slot must go on); a RUNNING waiter
// finds its slot itself when its task times out and it parks again.
func (q *Queue) wakeOrFindDead(ctx context.Context, waiter, token string, w Wake) (dead bool, err error) {
	if token == "" {
		return false, nil
	}
	if q.wake(ctx, token, w) == nil {
		return false, nil
	}
	alive, err := q.running(ctx, waiter)
	return !alive, err
}

// handOffTry is a hand-off whose write failed its condition: if the lock then shows the waiter
// holding and the releaser gone, the write had landed on an earlier attempt whose reply was
// lost.
type handOffTry struct{ waiter, token string }

// landed reports whether st shows the tried hand-off from holder as done.
func (t handOffTry) landed(holder string, st lockState) bool {
	return t.waiter != "" && !st.holders[holder] && st.holders[t.waiter] && st.position(t.waiter) < 0
}
