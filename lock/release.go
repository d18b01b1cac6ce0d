package lock

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
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
// is released in turn, so its slot goes on to the next waiter. A lock holding more than its
// limit (its live limit, or limit without one: the limit was lowered) or paused hands none
// on: the slot goes back to the lock.
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
	held := time.Duration(-1) // how long holder held its slot, once a loss needs it
	heldSoFar := func() time.Duration {
		if held < 0 {
			held = c.heldFor(ctx, lock, holder)
		}
		return held
	}
	for range c.attempts {
		step, err := c.releaseOnce(ctx, lock, holder, limit, contended == 0, &res)
		switch {
		case err != nil || step.done:
			return res, err
		case step.next != "":
			holder = step.next // a dead waiter was handed the slot: release it in turn
			held = -1
		case step.contenders > 0:
			contended++
			herd := herdWindow(contended, step)
			if herd > backoffWindow(contended) {
				// Only a herd's wider window needs the time the slot was held; unread (an
				// error), the usual window does.
				herd = min(herd, heldSoFar()/herdShare)
			}
			if step.lost && !step.marked && step.contenders >= HerdHolders {
				// Only a herd that its whole window holds is marked: the rest of it then
				// spreads its first tries over that window. A window that the time the slots
				// were held cuts short would only idle them, and the herd would lose as much.
				// The mark lasts the window: the herd it met, not the next.
				if window := herdWindow(1, step); window <= heldSoFar()/herdShare {
					c.markHerd(ctx, lock, window)
				}
			}
			if err := c.backoff(ctx, holder, contended, herd); err != nil {
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
// changed and the step must be tried again; contenders when that is because a concurrent
// release took the waiter this one reached for.
type releaseStep struct {
	done bool
	next string
	// contenders, for a step that lost its waiter to a concurrent release or that met the herd
	// mark on its first try, is the number of holders it read (as many releases may be
	// reaching for the head of the line at once), and roundTrip how long the step took, from
	// its read to its cancelled transaction (for a step that met the mark: twice its read).
	contenders int
	roundTrip  time.Duration
	// lost: the step's hand-off was cancelled by a concurrent one (not only spread); marked:
	// its read found the herd mark.
	lost, marked bool
}

// HerdHolders is the number of holders from which a lock's releases mark and heed a herd: a
// release that loses the head of the line to a concurrent one leaves the herd mark
// (AttributeHerdUntil) on the counter item for its herd window, and a release whose first read
// finds it spreads its first try over that window, instead of reaching for the same head as
// every other release of the herd. Below it, releases hand on as soon as they read.
const HerdHolders = 16

// releaseOnce makes one release step for holder from one read; first tells the release's
// first try (no loss and no spread yet), which heeds the herd mark.
func (c *Client) releaseOnce(ctx context.Context, lock, holder string, limit int, first bool, res *ReleaseResult) (releaseStep, error) {
	own := len(res.HandedTo) == 0
	start := c.now()
	ctr, waiters, err := c.liveHead(ctx, lock, c.lookAhead)
	if err != nil {
		return releaseStep{done: true}, err
	}
	marked := ctr.herdUntil > c.now().UnixMilli()
	hw := 1 // the holder's weight
	if ctr.weighted {
		if hw, err = c.holderWeight(ctx, lock, holder); err != nil {
			return releaseStep{done: true}, err
		}
	}
	// Strictly first in first out: the slot goes back when the head of the line does not fit
	// once the holder's weight is free (with weight 1 everywhere: when the lock holds more than
	// its limit).
	if len(waiters) == 0 || ctr.count-hw+waiters[0].weight > ctr.limitFor(limit) || ctr.paused {
		tx, err := c.transact(ctx, "release "+holder, c.releaseBy(lock, ctr, hw), c.deleteItem(HolderKey(lock, holder)))
		if err == nil && tx.outcome == unknown {
			// Whether this try released, only its own request can tell: the holder item is
			// gone as well when an earlier try did (one whose answer was lost).
			tx, err = c.settle(ctx, "release "+holder, tx)
		}
		switch {
		case err != nil:
			return releaseStep{done: true}, err
		case tx.outcome == refused && tx.failed[1]:
			// Not a holder: released already, by an earlier try whose end was lost; the double
			// check below may be what that try did not get to.
			return releaseStep{done: true}, c.fillFreeSlots(ctx, lock, limit, holder)
		case tx.outcome == unknown:
			return releaseStep{done: true}, fmt.Errorf("%w: release %s on %q: no answer in %d attempts", ErrBusy, holder, lock, c.attempts)
		case tx.outcome != applied:
			return releaseStep{}, nil
		}
		if own {
			res.Released = true
		}
		// The releaser's half of the double check: a waiter that joined after the read finds
		// the slot free, or is found here.
		return releaseStep{done: true}, c.fillFreeSlots(ctx, lock, limit, holder)
	}
	if first && marked && ctr.count >= HerdHolders {
		// A herd is reaching for the head: spread this first try over its window rather than
		// lose a transaction to it (a read costs no write unit).
		return releaseStep{contenders: ctr.count, roundTrip: 2 * c.now().Sub(start), marked: true}, nil
	}
	for _, w := range waiters {
		since := c.timestamp()
		delta := w.weight - hw
		if ctr.count+delta > ctr.limitFor(limit) {
			return releaseStep{}, nil // a later waiter that does not fit: read again
		}
		items := []types.TransactWriteItem{c.deleteItem(HolderKey(lock, holder)), withWeight(c.putGrant(lock, w, holder, since), w.weight), c.takeWaiter(lock, w)}
		if delta != 0 {
			// A waiter of another weight: the counter moves by the difference, within the room.
			items = append(items, c.countBy(lock, ctr, limit, delta))
		}
		tx, err := c.transact(ctx, "hand the slot of "+holder+" to "+w.execution, items...)
		switch {
		case err != nil:
			return releaseStep{done: true}, err
		case tx.outcome == refused && tx.failed[0]:
			// Not a holder: released already (see above).
			return releaseStep{done: true}, c.fillFreeSlots(ctx, lock, limit, holder)
		case tx.outcome == refused && delta != 0 && tx.failed[3] && !tx.failed[1] && !tx.failed[2]:
			return releaseStep{}, nil // the counter changed since the read: read again
		case tx.outcome == refused && tx.failed[1] && !tx.failed[2]:
			// The waiter holds already (a re-park raced) but its waiter item is still there:
			// it only has to leave the queue.
			if err := c.removeWaiter(ctx, lock, w.ticket); err != nil {
				return releaseStep{done: true}, err
			}
			continue
		case tx.passedSinceRead(2):
			return releaseStep{}, nil // an older waiter joined since the read: read again
		case tx.outcome == refused:
			// Taken by a concurrent release: the others in this read are likely taken too.
			return releaseStep{contenders: max(ctr.count, 1), roundTrip: c.now().Sub(start), lost: true, marked: marked}, nil
		case tx.outcome == notApplied:
			return releaseStep{}, nil
		case tx.outcome == unknown:
			// Applied if the waiter holds a slot from this releaser; not applied if the
			// releaser still holds (read again). Neither: the slot is given, by this try (and
			// the waiter left and gave it on meanwhile) or by an earlier one whose end was lost;
			// whom it went to, no read tells, so the release ends without an answer and its
			// retry finds nothing held.
			handed, err := c.readBack(ctx, func() (bool, error) { return c.heldFrom(ctx, lock, w.execution, holder) })
			if err != nil {
				return releaseStep{done: true}, err
			}
			if !handed {
				holds, err := c.readBack(ctx, func() (bool, error) { return c.Holds(ctx, lock, holder) })
				switch {
				case err != nil:
					return releaseStep{done: true}, err
				case holds:
					return releaseStep{}, nil
				}
				return releaseStep{done: true}, fmt.Errorf("%w: hand the slot of %s on %q: given, to whom is unknown (the reply was lost and the waiter holds no slot from it); try again", ErrBusy, holder, lock)
			}
		}
		if own {
			res.Released = true
		}
		res.HandedTo = append(res.HandedTo, w.execution)
		dead, err := c.wakeOrFindDead(ctx, w, Wake{GrantedBy: holder, Ticket: w.ticket, HeldSince: since})
		if err == nil && (delta < 0 || ctr.weighted) {
			// A lighter waiter left weight free, or the new head of the line is lighter than
			// the one just admitted: the next ones may fit.
			err = c.fillFreeSlots(ctx, lock, limit, holder)
		}
		if err != nil || !dead {
			return releaseStep{done: true}, err
		}
		return releaseStep{next: w.execution}, nil
	}
	return releaseStep{}, nil
}

// Herd backoff: releases that reach for the head of the line together (work of equal length
// ending at one moment) contend, and only one hand-off a round trip can win it (the oldest
// waiter is served first); each loss costs a cancelled transaction. A release that lost waits
// over a window of one round trip of its own per holder it read (as many may be reaching for
// the head), so that a herd loses about once per release instead of once per release and round,
// but at most herdMax, halved at each further loss (those left of a herd are fewer, and a
// release's waits stay within its function's timeout), and at most 1/herdShare of the time its
// slot was held: the slot idles while its release waits, which costs short work throughput.
const (
	herdMax   = 12 * time.Second
	herdShare = 8
)

// herdWindow is the backoff window of a release after its tries-th loss, step being the lost
// step, before the cap of the time its slot was held (herdShare).
func herdWindow(tries int, step releaseStep) time.Duration {
	return min(time.Duration(step.contenders)*step.roundTrip, herdMax>>min(tries-1, 16))
}

// markHerd sets lock's herd mark (AttributeHerdUntil) to window from now: one write of the
// counter item, by a release that lost the head of the line and read no mark. It only changes
// when later releases try, so a failed write is not an error: the releases then hand on as
// without it.
func (c *Client) markHerd(ctx context.Context, lock string, window time.Duration) {
	_, _ = c.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(c.table), Key: Key(lock, EntryLock),
		UpdateExpression:          aws.String("SET #herd = :until"),
		ConditionExpression:       aws.String(ItemPresent),
		ExpressionAttributeNames:  map[string]string{"#entry": AttributeEntry, "#herd": AttributeHerdUntil},
		ExpressionAttributeValues: map[string]types.AttributeValue{":until": num(c.now().Add(window).UnixMilli())},
	})
}

// heldFor reads how long execution has held its slot of lock (its holder item's AttributeSince),
// 0 when it holds none, the time does not parse or the read fails: it only widens a backoff.
func (c *Client) heldFor(ctx context.Context, lock, execution string) time.Duration {
	out, err := c.ddb.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(c.table), Key: HolderKey(lock, execution), ConsistentRead: aws.Bool(true),
		ProjectionExpression: aws.String("#since"), ExpressionAttributeNames: map[string]string{"#since": AttributeSince},
	})
	if err != nil {
		return 0
	}
	since, err := time.Parse(SinceLayout, stringOf(out.Item, AttributeSince))
	if err != nil {
		return 0
	}
	return max(c.now().Sub(since), 0)
}

// readBack runs the read-back of an operation whose outcome is unknown, again while it fails
// with ErrBusy (up to the client's attempts): given up, the operation would leave a slot it
// may have given unannounced, a waiter holding it without being woken.
func (c *Client) readBack(ctx context.Context, read func() (bool, error)) (bool, error) {
	var err error
	for range c.attempts {
		var ok bool
		if ok, err = read(); !errors.Is(err, ErrBusy) {
			return ok, err
		}
	}
	return false, err
}

// heldFrom reads back whether an operation of execution grantedBy whose outcome is unknown gave
// execution a slot: its holder item names who put it (AttributeGrantedBy). Holding alone would
// not tell: a concurrent release may have handed the same waiter a slot, after this
// operation's holder had released already (an earlier try of its release).
func (c *Client) heldFrom(ctx context.Context, lock, execution, grantedBy string) (bool, error) {
	out, err := c.ddb.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(c.table), Key: HolderKey(lock, execution), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return false, classify("read the holder "+execution, err)
	}
	return out.Item != nil && stringOf(out.Item, AttributeGrantedBy) == grantedBy, nil
}

// wakeGranted wakes a waiter admitted to a free slot; a dead one gives the slot up again.
func (c *Client) wakeGranted(ctx context.Context, lock string, limit int, w waiter, wake Wake) error {
	dead, err := c.wakeOrFindDead(ctx, w, wake)
	if err != nil || !dead {
		return err
	}
	_, err = c.Release(ctx, lock, w.execution, limit)
	return err
}

// wakeOrFindDead wakes a waiter that was just handed a slot. If its task cannot be completed,
// dead reports whether its execution is not RUNNING (the slot must go on); a RUNNING waiter
// finds its slot itself when its task times out and it parks again. A submission is started
// instead (startGranted); dead reports that it cannot be.
func (c *Client) wakeOrFindDead(ctx context.Context, w waiter, wake Wake) (dead bool, err error) {
	if w.submission != "" {
		return c.startGranted(ctx, w, wake)
	}
	if c.wake(ctx, w.token, wake) == nil {
		c.reportAdmitted(w, wake.GrantedBy)
		return false, nil
	}
	alive, err := c.running(ctx, w.execution)
	return !alive, err
}
