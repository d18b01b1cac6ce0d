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
// leaves.
func (c *Client) Leave(ctx context.Context, lock, execution string, ticket int64, limit int) (ReleaseResult, error) {
	if lock == "" || execution == "" || ticket < 1 {
		return ReleaseResult{}, fmt.Errorf("%w: leave needs a lock name, an execution and its ticket", ErrInvalidRequest)
	}
	_, err := c.ddb.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: aws.String(c.table), Key: Key(lock, WaiterEntry(ticket)),
		ConditionExpression:       aws.String("attribute_not_exists(#entry) OR #execution = :execution"),
		ExpressionAttributeNames:  map[string]string{"#entry": AttributeEntry, "#execution": AttributeExecution},
		ExpressionAttributeValues: map[string]types.AttributeValue{":execution": str(execution)},
	})
	var failed *types.ConditionalCheckFailedException
	switch {
	case errors.As(err, &failed):
		return ReleaseResult{}, fmt.Errorf("%w: ticket %d of %q belongs to another execution than %s", ErrInvalidRequest, ticket, lock, execution)
	case err != nil:
		return ReleaseResult{}, classify("leave the queue of "+strconv.Quote(lock), err)
	}
	return c.ReleaseIfHeld(ctx, lock, execution, limit)
}

// State is what one read of a lock's partition shows.
type State struct {
	// Count is the counter item's number of holders.
	Count int `json:"count"`
	// Tickets is the number of tickets drawn on the lock.
	Tickets int64 `json:"tickets"`
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
}

// Waiter is a waiter item as read.
type Waiter struct {
	// Ticket is the waiter's place in the queue.
	Ticket int64 `json:"ticket"`
	// Execution is the waiting execution's ARN.
	Execution string `json:"execution"`
	// Since is when it joined the queue.
	Since string `json:"since"`
}

// Read reads a lock whole, strongly consistent: its counter and waiter items (one Query from
// the counter item on, paged) and its holder items (one Query of their partition, paged). It
// costs one read unit per 4 KB of items, so it is for inspection and checks, not for the
// operations.
func (c *Client) Read(ctx context.Context, lock string) (State, error) {
	var st State
	// The counter item and the waiters sort from "lock" on; a holder partition may also hold
	// the counter and waiters of a lock named like it, so its holders are read by prefix.
	for _, part := range []struct{ partition, condition, from string }{
		{lock, "#entry >= :from", EntryLock},
		{HolderPartition(lock), "begins_with(#entry, :from)", HolderPrefix},
	} {
		var start map[string]types.AttributeValue
		for {
			out, err := c.ddb.Query(ctx, &dynamodb.QueryInput{
				TableName:                 aws.String(c.table),
				ConsistentRead:            aws.Bool(true),
				KeyConditionExpression:    aws.String("#lock = :lock AND " + part.condition),
				ExpressionAttributeNames:  map[string]string{"#lock": AttributeLockName, "#entry": AttributeEntry},
				ExpressionAttributeValues: map[string]types.AttributeValue{":lock": str(part.partition), ":from": str(part.from)},
				ExclusiveStartKey:         start,
			})
			if err != nil {
				return State{}, classify("read the lock "+strconv.Quote(lock), err)
			}
			for _, item := range out.Items {
				st.add(item)
			}
			if len(out.LastEvaluatedKey) == 0 {
				break
			}
			start = out.LastEvaluatedKey
		}
	}
	sort.Slice(st.Holders, func(i, j int) bool { return st.Holders[i].Execution < st.Holders[j].Execution })
	sort.Slice(st.Waiters, func(i, j int) bool { return st.Waiters[i].Ticket < st.Waiters[j].Ticket })
	return st, nil
}

// add records one item of the lock's partition.
func (st *State) add(item map[string]types.AttributeValue) {
	entry := stringOf(item, AttributeEntry)
	if entry == EntryLock {
		ctr := parseCounter(item)
		st.Count, st.Tickets = ctr.count, ctr.tickets
		return
	}
	if e, ok := ExecutionOf(entry); ok {
		st.Holders = append(st.Holders, Holder{Execution: e, Since: stringOf(item, AttributeSince)})
		return
	}
	if w, ok := parseWaiter(item); ok {
		st.Waiters = append(st.Waiters, Waiter{Ticket: w.ticket, Execution: w.execution, Since: stringOf(item, AttributeSince)})
	}
}

// Check reports how the state breaks the lock's invariant for limit, or nil: the counter
// equals the number of holders, never exceeds limit, and no execution both holds and waits.
func (st State) Check(limit int) error {
	var problems []string
	if st.Count != len(st.Holders) {
		problems = append(problems, fmt.Sprintf("the counter says %d holders, %d holder items exist", st.Count, len(st.Holders)))
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

// ErrInvariant is wrapped by Check's error.
var ErrInvariant = errors.New("lock: the lock's invariant is broken")
