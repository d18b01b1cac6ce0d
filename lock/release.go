package lock

import (
	"context"
	"fmt"
)

// ReleaseResult says what Release did.
type ReleaseResult struct {
	// Released: the execution held a slot and gave it up (to a waiter or to the lock).
	Released bool `json:"released"`
	// HandedTo are the waiters the slot was handed to, in order; all but the last were found
	// dead when woken, and their slot went on to the next.
	HandedTo []string `json:"handedTo,omitempty"`
}

// Release gives execution's slot of lock to the oldest waiter and wakes it, or back to the lock
// when nobody waits. Releasing an execution that holds no slot does nothing: Release is
// idempotent. A woken waiter whose task cannot be completed and whose execution is not RUNNING
// is released in turn, so its slot goes on to the next waiter. A lock holding limit slots or
// more (the limit was lowered) hands none on: the slot goes back to the lock.
func (c *Client) Release(ctx context.Context, lock, execution string, limit int) (ReleaseResult, error) {
	switch {
	case lock == "" || execution == "":
		return ReleaseResult{}, fmt.Errorf("%w: release needs a lock name and an execution", ErrInvalidRequest)
	case limit < 1:
		return ReleaseResult{}, fmt.Errorf("%w: release needs a limit of at least 1, got %d", ErrInvalidRequest, limit)
	}
	var res ReleaseResult
	holder := execution
	contended := 0
	for range c.attempts {
		step, err := c.releaseOnce(ctx, lock, holder, limit, &res)
		switch {
		case err != nil || step.done:
			return res, err
		case step.next != "":
			holder = step.next // a dead waiter was handed the slot: release it in turn
		case step.contended:
			contended++
			if err := c.backoff(ctx, holder, contended); err != nil {
				return res, err
			}
		}
	}
	return res, fmt.Errorf("%w: release %s on %q: the lock changed under %d attempts", ErrBusy, execution, lock, c.attempts)
}

// ReleaseIfHeld is Release for an execution that may hold no slot any more (a dead execution
// whose own release may have run: the cleanup's case): one strongly consistent read of its
// holder item first, so that releasing what is not held costs a read, not a cancelled
// transaction.
func (c *Client) ReleaseIfHeld(ctx context.Context, lock, execution string, limit int) (ReleaseResult, error) {
	if lock == "" || execution == "" {
		return ReleaseResult{}, fmt.Errorf("%w: release needs a lock name and an execution", ErrInvalidRequest)
	}
	holds, err := c.Holds(ctx, lock, execution)
	if err != nil || !holds {
		return ReleaseResult{}, err
	}
	return c.Release(ctx, lock, execution, limit)
}

// releaseStep is what one release step says: done when the release is complete, next naming a
// dead waiter that was handed the slot and must be released in turn, neither when the lock
// changed and the step must be tried again; contended when that is because a concurrent
// release took the waiter this one reached for.
type releaseStep struct {
	done      bool
	next      string
	contended bool
}

// releaseOnce makes one release step for holder from one read.
func (c *Client) releaseOnce(ctx context.Context, lock, holder string, limit int, res *ReleaseResult) (releaseStep, error) {
	own := len(res.HandedTo) == 0
	ctr, waiters, err := c.head(ctx, lock, c.lookAhead)
	if err != nil {
		return releaseStep{done: true}, err
	}
	if len(waiters) == 0 || ctr.count > limit {
		tx, err := c.transact(ctx, "release "+holder, c.countDown(lock), c.deleteItem(HolderKey(lock, holder)))
		switch {
		case err != nil:
			return releaseStep{done: true}, err
		case tx.outcome == refused && tx.failed[1]:
			return releaseStep{done: true}, nil // not a holder: released already
		case tx.outcome == unknown:
			// Whether it was applied, the holder item tells.
			holds, err := c.Holds(ctx, lock, holder)
			if err != nil || holds {
				return releaseStep{done: err != nil}, err
			}
		case tx.outcome != applied:
			return releaseStep{}, nil
		}
		if own {
			res.Released = true
		}
		// The releaser's half of the double check: a waiter that joined after the read finds
		// the slot free, or is found here.
		return releaseStep{done: true}, c.fillFreeSlots(ctx, lock, limit)
	}
	for _, w := range waiters {
		tx, err := c.transact(ctx, "hand the slot of "+holder+" to "+w.execution,
			c.deleteItem(HolderKey(lock, holder)), c.putHolder(lock, w.execution), c.deleteItem(Key(lock, WaiterEntry(w.ticket))))
		switch {
		case err != nil:
			return releaseStep{done: true}, err
		case tx.outcome == refused && tx.failed[0]:
			return releaseStep{done: true}, nil // not a holder: released already
		case tx.outcome == refused && tx.failed[1] && !tx.failed[2]:
			// The waiter holds already (a re-park raced) but its waiter item is still there:
			// it only has to leave the queue.
			if err := c.removeWaiter(ctx, lock, w.ticket); err != nil {
				return releaseStep{done: true}, err
			}
			continue
		case tx.outcome == refused:
			// Taken by a concurrent release: the others in this read are likely taken too.
			return releaseStep{contended: true}, nil
		case tx.outcome == notApplied:
			return releaseStep{}, nil
		case tx.outcome == unknown:
			// Applied if the releaser holds no more and the waiter does; not applied if the
			// releaser still holds: read again.
			handed, err := c.handedOff(ctx, lock, holder, w.execution)
			if err != nil || !handed {
				return releaseStep{done: err != nil}, err
			}
		}
		if own {
			res.Released = true
		}
		res.HandedTo = append(res.HandedTo, w.execution)
		dead, err := c.wakeOrFindDead(ctx, w, holder)
		if err != nil || !dead {
			return releaseStep{done: true}, err
		}
		return releaseStep{next: w.execution}, nil
	}
	return releaseStep{}, nil
}

// handedOff reads back whether a hand-off from holder to waiter whose outcome is unknown was
// applied: the holder holds no slot and the waiter one. A holder that holds no slot while the
// waiter does not either lost its slot otherwise (the cleanup released it): nothing to hand.
func (c *Client) handedOff(ctx context.Context, lock, holder, waiter string) (bool, error) {
	holderHolds, err := c.Holds(ctx, lock, holder)
	if err != nil || holderHolds {
		return false, err
	}
	return c.Holds(ctx, lock, waiter)
}

// wakeGranted wakes a waiter admitted to a free slot; a dead one gives the slot up again.
func (c *Client) wakeGranted(ctx context.Context, lock string, limit int, w waiter, grantedBy string) error {
	dead, err := c.wakeOrFindDead(ctx, w, grantedBy)
	if err != nil || !dead {
		return err
	}
	_, err = c.Release(ctx, lock, w.execution, limit)
	return err
}

// wakeOrFindDead wakes a waiter that was just handed a slot. If its task cannot be completed,
// dead reports whether its execution is not RUNNING (the slot must go on); a RUNNING waiter
// finds its slot itself when its task times out and it parks again.
func (c *Client) wakeOrFindDead(ctx context.Context, w waiter, grantedBy string) (dead bool, err error) {
	if c.wake(ctx, w.token, Wake{GrantedBy: grantedBy, Ticket: w.ticket}) == nil {
		c.reportAdmitted(w, grantedBy)
		return false, nil
	}
	alive, err := c.running(ctx, w.execution)
	return !alive, err
}
