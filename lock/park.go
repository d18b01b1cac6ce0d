package lock

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ParkRequest is a waiting execution's park: its "Wait In Queue" task, parked on Token.
type ParkRequest struct {
	// Lock is the lock's name.
	Lock string
	// Limit is the lock's limit.
	Limit int
	// Execution is the parking execution's ARN.
	Execution string
	// Ticket is the execution's place in the queue: its ticket, drawn before it parked
	// (DrawTicketUpdate), or on a lock with priorities Place of the ticket.
	Ticket int64
	// Token is the parked task's token.
	Token string
	// Weight is how many slots the execution takes (weighted permits), 1 to the lock's limit;
	// 0 means 1. A waiter that does not fit blocks the ones behind it (see weight.go).
	Weight int
	// Again is true when the task parks again (its earlier park timed out or failed): the
	// execution may wait already, or hold the slot its lost wake-up was for.
	Again bool
}

// ParkResult says what Park did.
type ParkResult struct {
	// Queued: the execution waits in the queue for a hand-off.
	Queued bool `json:"queued"`
	// Admitted: the execution holds a slot, and its token was completed.
	Admitted bool `json:"admitted"`
}

// Park admits the execution at once when a slot is free and nobody with an older ticket waits,
// and otherwise puts it in the queue under its ticket with its token; a re-park keeps its place
// with the new token, or completes it when the execution was handed a slot meanwhile. A free
// slot with older waiters goes to the oldest of them, not to the caller.
func (c *Client) Park(ctx context.Context, r ParkRequest) (ParkResult, error) {
	switch {
	case r.Lock == "" || r.Execution == "" || r.Token == "":
		return ParkResult{}, fmt.Errorf("%w: park needs a lock name, an execution and a task token", ErrInvalidRequest)
	case r.Limit < 1:
		return ParkResult{}, fmt.Errorf("%w: park needs a limit of at least 1, got %d", ErrInvalidRequest, r.Limit)
	case r.Ticket < 1:
		return ParkResult{}, fmt.Errorf("%w: park needs the execution's ticket (at least 1), got %d", ErrInvalidRequest, r.Ticket)
	}
	switch {
	case r.Again:
		res, done, err := c.parkAgain(ctx, r)
		if err != nil || done {
			return res, err
		}
	case IsSubmitted(r.Execution):
		// A submission's execution was started holding a slot of its (first) lock: it finds its
		// holder item. On its other locks (several locks, a total cap) it holds nothing, and on
		// a first park it has no waiter item either: it parks as any execution.
		holds, err := c.Holds(ctx, r.Lock, r.Execution)
		if err != nil || holds {
			res, _, err := c.admitted(ctx, r, holds, err)
			return res, err
		}
	}
	for range c.attempts {
		// One read serves both questions: the counter item (is a slot free?) and the head of
		// the line (is an older waiter owed it?).
		ctr, waiters, err := c.liveHead(ctx, r.Lock, 1)
		if err != nil {
			return ParkResult{}, err
		}
		if ctr.limit == 0 {
			// The key's first park: it takes its semaphore's default limit (limit.go).
			if ctr, err = c.initLimit(ctx, r.Lock, r.Execution, r.Limit); err != nil {
				return ParkResult{}, err
			}
		}
		w := max(r.Weight, 1)
		if err := checkWeight(r.Weight, ctr.limitFor(r.Limit)); err != nil {
			return ParkResult{}, err
		}
		if !ctr.fits(r.Limit, w) {
			return c.join(ctx, r, ctr)
		}
		res, done, err := c.parkBelowLimit(ctx, r, ctr, waiters)
		if err != nil || done {
			return res, err
		}
	}
	return ParkResult{}, fmt.Errorf("%w: park %s on %q: the lock changed under %d attempts", ErrBusy, r.Execution, r.Lock, c.attempts)
}

// parkAgain finds a re-parking execution holding (its wake-up was lost) or waiting (it keeps its
// place with the new token); done is false when it is neither, and parks as on its first try.
func (c *Client) parkAgain(ctx context.Context, r ParkRequest) (ParkResult, bool, error) {
	holds, err := c.Holds(ctx, r.Lock, r.Execution)
	if err != nil || holds {
		return c.admitted(ctx, r, holds, err)
	}
	_, err = c.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(c.table), Key: Key(r.Lock, WaiterEntry(r.Ticket)),
		UpdateExpression:          aws.String("SET #token = :token"),
		ConditionExpression:       aws.String(ItemPresent + " AND #execution = :execution"),
		ExpressionAttributeNames:  map[string]string{"#entry": AttributeEntry, "#token": AttributeToken, "#execution": AttributeExecution},
		ExpressionAttributeValues: map[string]types.AttributeValue{":token": str(r.Token), ":execution": str(r.Execution)},
	})
	var failed *types.ConditionalCheckFailedException
	switch {
	case errors.As(err, &failed):
		// Not waiting: handed a slot since the read, or never queued.
		holds, err := c.Holds(ctx, r.Lock, r.Execution)
		if err != nil || holds {
			return c.admitted(ctx, r, holds, err)
		}
		return ParkResult{}, false, nil
	case err != nil:
		return ParkResult{}, true, classify("refresh the token of "+r.Execution, err)
	}
	return c.afterEnqueue(ctx, r)
}

// admitted completes the execution's own token: it holds a slot. A token that is over already
// was completed by the release that handed the execution its slot (it read the waiter item
// with this token): nothing is left to do.
func (c *Client) admitted(ctx context.Context, r ParkRequest, holds bool, err error) (ParkResult, bool, error) {
	if err != nil || !holds {
		return ParkResult{}, err != nil, err
	}
	if err := c.wake(ctx, r.Token, Wake{GrantedBy: r.Execution, Ticket: r.Ticket}); err != nil && !taskOver(err) {
		return ParkResult{}, true, fmt.Errorf("%w: complete the task of %s: %w", ErrBusy, r.Execution, err)
	}
	return ParkResult{Admitted: true}, true, nil
}

// parkBelowLimit takes a free slot for the execution, ctr and waiters being the read that found
// one, unless an older waiter is owed it: then that waiter is admitted and done is false (the
// caller reads again). When the slot went to someone else since the read (the limit refused
// the acquire), the execution queues at once: the queue's double check (afterEnqueue) finds
// any slot freed meanwhile, so reading again first would only cost a request.
func (c *Client) parkBelowLimit(ctx context.Context, r ParkRequest, ctr counter, waiters []waiter) (ParkResult, bool, error) {
	w := max(r.Weight, 1)
	if len(waiters) > 0 && waiters[0].ticket < r.Ticket {
		if ctr.weighted && !ctr.fits(r.Limit, waiters[0].weight) {
			// An older waiter that does not fit blocks the line (weighted permits).
			res, err := c.join(ctx, r, ctr)
			return res, true, err
		}
		_, err := c.admitOldest(ctx, r.Lock, r.Limit, ctr, waiters, r.Execution)
		return ParkResult{}, err != nil, err
	}
	tx, err := c.transact(ctx, "acquire for "+r.Execution, c.acquireBy(r.Lock, ctr, r.Limit, w), withWeight(c.putHolder(r.Lock, r.Execution, r.Execution, c.timestamp()), w))
	switch {
	case err != nil:
		return ParkResult{}, true, err
	case tx.outcome == applied || (tx.outcome == refused && tx.failed[1]):
		// Taken now, or held already (an earlier attempt's reply was lost).
		return c.admitted(ctx, r, true, nil)
	case tx.outcome == refused && tx.failed[0]:
		// Full (or paused) since the read.
		res, err := c.join(ctx, r, ctr)
		return res, true, err
	case tx.outcome == unknown:
		// Whether it was applied, the holder item tells.
		holds, err := c.Holds(ctx, r.Lock, r.Execution)
		if err != nil || holds {
			return c.admitted(ctx, r, holds, err)
		}
	}
	return ParkResult{}, false, nil
}

// join enqueues the execution, marking the lock weighted first when it is the lock's first
// execution heavier than 1.
func (c *Client) join(ctx context.Context, r ParkRequest, ctr counter) (ParkResult, error) {
	if r.Weight > 1 && !ctr.weighted {
		if err := c.markWeighted(ctx, r.Lock); err != nil {
			return ParkResult{}, err
		}
	}
	return c.enqueue(ctx, r)
}

// enqueue puts the execution in the queue under its ticket, then makes sure that no slot was
// freed meanwhile with nobody left to hand it on: a release that found the queue empty
// counted its slot back before the waiter item existed.
//
// The put is sent without the SDK's retries: a retry of a put whose reply was lost could land
// after a release handed the execution a slot and deleted its waiter item, and put it back (the
// execution would hold and wait at once). When no answer comes, enqueue reads back instead: a
// holder item means that the put landed and a release handed the execution a slot (and woke
// it, as any waiter), its waiter item that the put landed.
func (c *Client) enqueue(ctx context.Context, r ParkRequest) (ParkResult, error) {
	item := c.waiterItem(r)
	item[AttributeToken] = str(r.Token)
	in := &dynamodb.PutItemInput{
		TableName: aws.String(c.table), Item: item,
		ConditionExpression:       aws.String(ItemAbsent + " OR #execution = :execution"),
		ExpressionAttributeNames:  map[string]string{"#entry": AttributeEntry, "#execution": AttributeExecution},
		ExpressionAttributeValues: map[string]types.AttributeValue{":execution": str(r.Execution)},
	}
	for range c.attempts {
		_, err := c.ddb.PutItem(ctx, in, withoutRetries)
		var failed *types.ConditionalCheckFailedException
		switch {
		case errors.As(err, &failed):
			return ParkResult{}, fmt.Errorf("%w: ticket %d of %q belongs to another execution; draw a new ticket", ErrInvalidRequest, r.Ticket, r.Lock)
		case err == nil:
			res, _, err := c.afterEnqueue(ctx, r)
			return res, err
		}
		if err = classify("enqueue "+r.Execution, err); !errors.Is(err, ErrBusy) {
			return ParkResult{}, err
		}
		// The waiter item first: once it is gone, a hand-off to it has left a holder item that
		// stays until the execution releases (read the other way round, a hand-off between the
		// two reads would pass unseen and the put below would bring the waiter back).
		waiting, err := c.waits(ctx, r.Lock, r.Ticket, r.Execution)
		if err != nil {
			return ParkResult{}, err
		}
		if waiting {
			res, _, err := c.afterEnqueue(ctx, r)
			return res, err
		}
		holds, err := c.Holds(ctx, r.Lock, r.Execution)
		switch {
		case err != nil:
			return ParkResult{}, err
		case holds:
			// The put landed and a release then handed the execution its slot, deleting the
			// waiter item, and woke the task on the token the put wrote: the execution queued,
			// and the release admitted it (it does not take the slot itself, which would make
			// it overtake whoever the release read as older).
			return ParkResult{Queued: true}, nil
		}
	}
	return ParkResult{}, fmt.Errorf("%w: enqueue %s on %q: no answer in %d attempts", ErrBusy, r.Execution, r.Lock, c.attempts)
}

// waiterItem is the waiter item of r's execution, a park's or a submission's: under its place
// in the queue (r.Ticket), with its weight when above 1.
func (c *Client) waiterItem(r ParkRequest) map[string]types.AttributeValue {
	item := Key(r.Lock, WaiterEntry(r.Ticket))
	item[AttributeExecution] = str(r.Execution)
	item[AttributeSince] = str(c.timestamp())
	if r.Weight > 1 {
		item[AttributeWeight] = num(int64(r.Weight))
	}
	return item
}

// withoutRetries sends a request once: its caller reads back what became of it.
func withoutRetries(o *dynamodb.Options) { o.RetryMaxAttempts = 1 }

// waits reports whether execution's waiter item under ticket exists.
func (c *Client) waits(ctx context.Context, lock string, ticket int64, execution string) (bool, error) {
	out, err := c.ddb.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(c.table), Key: Key(lock, WaiterEntry(ticket)), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return false, classify("read the waiter "+execution, err)
	}
	return out.Item != nil && stringOf(out.Item, AttributeExecution) == execution, nil
}

// afterEnqueue is what a park does once its waiter item is in the queue (joined).
func (c *Client) afterEnqueue(ctx context.Context, r ParkRequest) (ParkResult, bool, error) {
	if err := c.joined(ctx, r.Lock, r.Ticket, r.Limit, r.Execution); err != nil {
		return ParkResult{}, true, err
	}
	return ParkResult{Queued: true}, true, nil
}

// joined is what a waiter whose item is in the queue at place does before it says it waits
// (a park's or a submission's, on behalf of execution by): from one read of the counter and
// the head of the queue, it marks the younger waiters there (passYounger), then admits
// waiters while a slot is free (the waiter's half of the double check that keeps a freed slot
// from staying free while someone waits).
func (c *Client) joined(ctx context.Context, lock string, place int64, limit int, by string) error {
	ctr, waiters, err := c.liveHead(ctx, lock, passWindow*c.lookAhead)
	if err != nil {
		return err
	}
	if err := c.passYounger(ctx, lock, place, waiters); err != nil {
		return err
	}
	if len(waiters) == 0 || !ctr.fits(limit, waiters[0].weight) {
		return nil
	}
	return c.fillFreeSlots(ctx, lock, limit, by)
}

// passWindow is how far a waiter that joined looks for younger waiters to mark, in look-aheads
// (the waiters a grant reads, Client.lookAhead): a grant in flight reached for one of the
// first look-ahead waiters as it read them, which the waiters that joined since in front of
// it have pushed back by one each.
const passWindow = 2

// passYounger marks the waiters younger than place among waiters (the head of the queue, read
// after the waiter at place joined): one write each (AttributePassed). A grant read before the
// waiter at place joined, in flight still (its request retried, or slow), may reach for one of
// them, passing the older waiter over; the mark makes it fail, and it reads again. The waiter
// says it waits only once they are marked, so no grant that passes it lands after that.
// Waiters join in the order of their places but for delayed requests: the marks cost nothing
// unless a waiter joins behind younger ones at the head of the queue.
func (c *Client) passYounger(ctx context.Context, lock string, place int64, waiters []waiter) error {
	for _, w := range waiters {
		if w.ticket <= place {
			continue
		}
		_, err := c.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: aws.String(c.table), Key: Key(lock, WaiterEntry(w.ticket)),
			UpdateExpression:          aws.String("ADD #passed :one"),
			ConditionExpression:       aws.String(ItemPresent),
			ExpressionAttributeNames:  map[string]string{"#entry": AttributeEntry, "#passed": AttributePassed},
			ExpressionAttributeValues: map[string]types.AttributeValue{":one": num(1)},
		})
		// A waiter granted or gone meanwhile (the condition failed) has nothing to be passed
		// over for. Any other error ends the park, whose retry (Again) marks them again.
		var gone *types.ConditionalCheckFailedException
		if err != nil && !errors.As(err, &gone) {
			return classify(fmt.Sprintf("mark the waiter with ticket %d", w.ticket), err)
		}
	}
	return nil
}

// fillFreeSlots admits the oldest waiters while the lock admits (admit.go), on behalf of the
// operation of execution by.
func (c *Client) fillFreeSlots(ctx context.Context, lock string, limit int, by string) error {
	_, err := c.admit(ctx, lock, limit, by)
	return err
}

// admitOldest gives a free slot to the oldest of waiters that is still waiting and wakes it, on
// behalf of the operation of execution by; a waiter found dead gives the slot up again. admittedTo is "" when every one of them was
// taken by someone else meanwhile, or the lock filled up.
func (c *Client) admitOldest(ctx context.Context, lock string, limit int, ctr counter, waiters []waiter, by string) (admittedTo string, err error) {
	for _, w := range waiters {
		since := c.timestamp()
		tx, err := c.transact(ctx, "admit "+w.execution,
			c.acquireBy(lock, ctr, limit, w.weight), withWeight(c.putGrant(lock, w, by, since), w.weight), c.takeWaiter(lock, w))
		switch {
		case err != nil:
			return "", err
		case tx.outcome == refused && tx.failed[0]:
			return "", nil // full again
		case tx.outcome == refused && tx.failed[1] && !tx.failed[2]:
			// It holds already (a re-park raced): it only has to leave the queue.
			if err := c.removeWaiter(ctx, lock, w.ticket); err != nil {
				return "", err
			}
			continue
		case tx.passedSinceRead(2):
			return "", nil // an older waiter joined since the read: read again
		case tx.outcome == refused:
			continue // taken by someone else: the next one
		case tx.outcome == notApplied:
			return "", nil // a conflict: read again
		case tx.outcome == unknown:
			// Whether it was applied, the waiter's holder item tells (another operation may
			// have admitted it meanwhile); if it was not, read again.
			held, err := c.readBack(ctx, func() (bool, error) { return c.heldFrom(ctx, lock, w.execution, by) })
			if err != nil || !held {
				return "", err
			}
		}
		if err := c.wakeGranted(ctx, lock, limit, w, Wake{GrantedBy: w.execution, Ticket: w.ticket, HeldSince: since}); err != nil {
			return "", err
		}
		return w.execution, nil
	}
	return "", nil
}

// removeWaiter deletes a waiter item; one that is gone already is no error.
func (c *Client) removeWaiter(ctx context.Context, lock string, ticket int64) error {
	_, err := c.ddb.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(c.table), Key: Key(lock, WaiterEntry(ticket))})
	if err != nil {
		return classify(fmt.Sprintf("remove the waiter with ticket %d", ticket), err)
	}
	return nil
}

// DrawTicket draws the next ticket of lock, as a state machine does before it parks
// (DrawTicketUpdate): one write of the counter item.
func (c *Client) DrawTicket(ctx context.Context, lock string) (int64, error) {
	if lock == "" {
		return 0, fmt.Errorf("%w: drawing a ticket needs a lock name", ErrInvalidRequest)
	}
	out, err := c.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(c.table), Key: Key(lock, EntryLock),
		UpdateExpression:          aws.String(DrawTicketUpdate),
		ExpressionAttributeNames:  map[string]string{"#tickets": AttributeTickets},
		ExpressionAttributeValues: map[string]types.AttributeValue{":zero": num(0), ":one": num(1)},
		ReturnValues:              types.ReturnValueUpdatedNew,
	})
	if err != nil {
		return 0, classify("draw a ticket of "+lock, err)
	}
	return numberOf(out.Attributes, AttributeTickets), nil
}

// TryAcquire takes a free slot of lock for execution without waiting, as the Poll strategy's
// acquire does (the acquire transaction): true when the execution holds a slot afterwards
// (taken now, or held already), false when the lock is full.
func (c *Client) TryAcquire(ctx context.Context, lock, execution string, limit int) (bool, error) {
	if lock == "" || execution == "" || limit < 1 {
		return false, fmt.Errorf("%w: an acquire needs a lock name, an execution and a limit of at least 1", ErrInvalidRequest)
	}
	for range c.attempts {
		tx, err := c.transact(ctx, "acquire for "+execution, c.countUp(lock, limit), c.putHolder(lock, execution, execution, c.timestamp()))
		switch {
		case err != nil:
			return false, err
		case tx.outcome == applied || (tx.outcome == refused && tx.failed[1]):
			return true, nil
		case tx.outcome == refused:
			// Full; DynamoDB need not report every failed condition, so read whether the
			// execution holds a slot already.
			return c.Holds(ctx, lock, execution)
		case tx.outcome == unknown:
			if holds, err := c.Holds(ctx, lock, execution); err != nil || holds {
				return holds, err
			}
		}
	}
	return false, fmt.Errorf("%w: acquire %s on %q: the lock changed under %d attempts", ErrBusy, execution, lock, c.attempts)
}
