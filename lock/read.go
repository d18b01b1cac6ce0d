package lock

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Holds reports whether execution holds a slot of lock (a strongly consistent read of its
// holder item).
func (c *Client) Holds(ctx context.Context, lock, execution string) (bool, error) {
	out, err := c.ddb.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(c.table), Key: HolderKey(lock, execution), ConsistentRead: aws.Bool(true),
		ProjectionExpression: aws.String("#entry"), ExpressionAttributeNames: map[string]string{"#entry": AttributeEntry},
	})
	if err != nil {
		return false, classify("read the holder "+execution, err)
	}
	return out.Item != nil, nil
}

// Leave takes a waiting execution out of the queue (it gives up waiting). When it was handed
// a slot meanwhile, the slot goes on as Release gives it: nothing is kept by an execution that
// leaves. ticket is its place in the queue, as it parked (ParkRequest.Ticket).
func (c *Client) Leave(ctx context.Context, lock, execution string, ticket int64, limit int) (ReleaseResult, error) {
	if lock == "" || execution == "" || ticket < 1 {
		return ReleaseResult{}, fmt.Errorf("%w: leave needs a lock name, an execution and its ticket", ErrInvalidRequest)
	}
	out, err := c.ddb.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: aws.String(c.table), Key: Key(lock, WaiterEntry(ticket)),
		ConditionExpression:       aws.String("attribute_not_exists(#entry) OR #execution = :execution"),
		ExpressionAttributeNames:  map[string]string{"#entry": AttributeEntry, "#execution": AttributeExecution},
		ExpressionAttributeValues: map[string]types.AttributeValue{":execution": str(execution)},
		ReturnValues:              types.ReturnValueAllOld,
	})
	var failed *types.ConditionalCheckFailedException
	switch {
	case errors.As(err, &failed):
		return ReleaseResult{}, fmt.Errorf("%w: ticket %d of %q belongs to another execution than %s", ErrInvalidRequest, ticket, lock, execution)
	case err != nil:
		return ReleaseResult{}, classify("leave the queue of "+strconv.Quote(lock), err)
	}
	res, err := c.ReleaseIfHeld(ctx, lock, execution, limit)
	if err == nil && weightOf(out.Attributes) > 1 {
		// A heavy waiter may have blocked lighter ones behind it that fit now.
		err = c.fillFreeSlots(ctx, lock, limit, execution)
	}
	return res, err
}

// State is what one read of a lock's partition shows.
type State struct {
	// Exists: the lock has a counter item (something drew a ticket, took a slot or set it).
	Exists bool `json:"-"`
	// Count is the counter item's number of holders.
	Count int `json:"count"`
	// Tickets is the number of tickets drawn on the lock.
	Tickets int64 `json:"tickets"`
	// Limit is the lock's live limit, 0 when it has none (its callers' configured limit
	// applies).
	Limit int `json:"limit,omitempty"`
	// LimitOverride: the live limit was set for this lock alone, and does not follow its
	// semaphore's default.
	LimitOverride bool `json:"limitOverride,omitempty"`
	// Paused: the lock admits nobody (Pause).
	Paused bool `json:"paused,omitempty"`
	// Semaphore is the state machine whose default limit the lock follows, if any.
	Semaphore string `json:"semaphore,omitempty"`
	// Holders are the holding executions, with the time each took its slot, in ARN order.
	Holders []Holder `json:"holders"`
	// Waiters are the waiting executions, oldest first.
	Waiters []Waiter `json:"waiters"`
}

// Holder is a holder item as read.
type Holder struct {
	// Execution is the holding execution's ARN.
	Execution string `json:"execution"`
	// Since is when it took its slot.
	Since string `json:"since"`
	// Weight is how many slots it holds with weighted permits; 0 for one slot.
	Weight int `json:"weight,omitempty"`
}

// Waiter is a waiter item as read.
type Waiter struct {
	// Ticket is the waiter's place in the queue.
	Ticket int64 `json:"ticket"`
	// Execution is the waiting execution's ARN.
	Execution string `json:"execution"`
	// Since is when it joined the queue.
	Since string `json:"since"`
	// Weight is how many slots it waits for with weighted permits; 0 for one slot.
	Weight int `json:"weight,omitempty"`
	// Submission is the id of a queued submission (Submit), whose Execution is the one it
	// will start as; "" for a parked execution.
	Submission string `json:"submission,omitempty"`
}

// Read reads a lock whole, strongly consistent, as one snapshot: its holder items (a Query of
// their partition, paged), its counter and waiter items (a Query from the counter item on,
// paged), its holder items again and its counter item again, until the two readings of the
// holders agree and the counter's AttributeChanges did not move, waiting a little more after each
// disagreement. Every hand-off changes the
// holders, and every change of the count AttributeChanges (a holder in and out again between
// two readings would leave the holders equal), so such a snapshot is one the lock was in. It costs one read unit per 4 KB of items
// per Query, so it is for inspection and checks, not for the operations.
func (c *Client) Read(ctx context.Context, lock string) (State, error) {
	holders, err := c.queryAll(ctx, HolderPartition(lock), "begins_with(#entry, :from)", HolderPrefix)
	if err != nil {
		return State{}, err
	}
	for tries := range c.attempts {
		if tries > 0 {
			// A busy lock changes between two readings; waiting a little (as a contended
			// release does) lets a reading fall between its changes.
			if err := c.backoff(ctx, lock, tries, 0); err != nil {
				return State{}, err
			}
		}
		// The counter item and the waiters sort from "lock" on; a holder partition may also
		// hold the counter and waiters of a lock named like it, so holders are read by prefix.
		rest, err := c.queryAll(ctx, lock, "#entry >= :from", EntryLock)
		if err != nil {
			return State{}, err
		}
		again, err := c.queryAll(ctx, HolderPartition(lock), "begins_with(#entry, :from)", HolderPrefix)
		if err != nil {
			return State{}, err
		}
		ctr, err := c.readCounter(ctx, lock)
		if err != nil {
			return State{}, err
		}
		if sameItems(holders, again) && changesOf(rest) == ctr.changes {
			var st State
			for _, item := range append(rest, again...) {
				st.add(item)
			}
			sort.Slice(st.Holders, func(i, j int) bool { return st.Holders[i].Execution < st.Holders[j].Execution })
			sort.Slice(st.Waiters, func(i, j int) bool { return st.Waiters[i].Ticket < st.Waiters[j].Ticket })
			return st, nil
		}
		holders = again
	}
	return State{}, fmt.Errorf("%w: read the lock %q: its holders changed under %d readings", ErrBusy, lock, c.attempts)
}

// queryAll reads the items of partition whose sort key meets condition (with :from), paged.
func (c *Client) queryAll(ctx context.Context, partition, condition, from string) ([]map[string]types.AttributeValue, error) {
	var items []map[string]types.AttributeValue
	var start map[string]types.AttributeValue
	for {
		out, err := c.ddb.Query(ctx, &dynamodb.QueryInput{
			TableName:                 aws.String(c.table),
			ConsistentRead:            aws.Bool(true),
			KeyConditionExpression:    aws.String("#lock = :lock AND " + condition),
			ExpressionAttributeNames:  map[string]string{"#lock": AttributeLockName, "#entry": AttributeEntry},
			ExpressionAttributeValues: map[string]types.AttributeValue{":lock": str(partition), ":from": str(from)},
			ExclusiveStartKey:         start,
		})
		if err != nil {
			return nil, classify("read "+strconv.Quote(partition), err)
		}
		items = append(items, out.Items...)
		if len(out.LastEvaluatedKey) == 0 {
			return items, nil
		}
		start = out.LastEvaluatedKey
	}
}

// sameItems reports whether two readings of holder items name the same holders with the same
// times.
func sameItems(a, b []map[string]types.AttributeValue) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if stringOf(a[i], AttributeEntry) != stringOf(b[i], AttributeEntry) || stringOf(a[i], AttributeSince) != stringOf(b[i], AttributeSince) {
			return false
		}
	}
	return true
}

// add records one item of the lock's partition.
func (st *State) add(item map[string]types.AttributeValue) {
	entry := stringOf(item, AttributeEntry)
	if entry == EntryLock {
		ctr := parseCounter(item)
		st.Exists, st.Count, st.Tickets = true, ctr.count, ctr.tickets
		st.Limit, st.LimitOverride, st.Paused, st.Semaphore = ctr.limit, ctr.override, ctr.paused, ctr.semaphore
		return
	}
	if e, ok := ExecutionOf(entry); ok {
		st.Holders = append(st.Holders, Holder{Execution: e, Since: stringOf(item, AttributeSince), Weight: int(numberOf(item, AttributeWeight))})
		return
	}
	if w, ok := parseWaiter(item); ok {
		st.Waiters = append(st.Waiters, Waiter{Ticket: w.ticket, Execution: w.execution, Since: stringOf(item, AttributeSince), Weight: int(numberOf(item, AttributeWeight)), Submission: w.submission})
	}
}

// Check reports how the state breaks the lock's invariant for limit, or nil: the counter
// equals the number of holders (with weighted permits, the sum of their weights), never exceeds
// limit, and no execution both holds and waits.
func (st State) Check(limit int) error {
	var problems []string
	if held := st.HeldWeight(); st.Count != held {
		problems = append(problems, fmt.Sprintf("the counter says %d held, the holder items hold %d", st.Count, held))
	}
	if st.Count > limit || st.Count < 0 {
		problems = append(problems, fmt.Sprintf("the counter is %d, outside 0..%d", st.Count, limit))
	}
	holding := map[string]bool{}
	for _, h := range st.Holders {
		holding[h.Execution] = true
	}
	for _, w := range st.Waiters {
		if holding[w.Execution] {
			problems = append(problems, w.Execution+" both holds and waits")
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: %v", ErrInvariant, problems)
	}
	return nil
}

// HeldWeight is the sum of the holders' weights: their number, without weighted permits.
func (st State) HeldWeight() int {
	held := 0
	for _, h := range st.Holders {
		held += max(h.Weight, 1)
	}
	return held
}

// ErrInvariant is wrapped by Check's error.
var ErrInvariant = errors.New("lock: the lock's invariant is broken")

// changesOf is the AttributeChanges of the counter item among items (0 without one).
func changesOf(items []map[string]types.AttributeValue) int64 {
	for _, item := range items {
		if stringOf(item, AttributeEntry) == EntryLock {
			return numberOf(item, AttributeChanges)
		}
	}
	return 0
}
