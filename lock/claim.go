package lock

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Claims: a release with a waiter at the head of the line claims the waiter's item
// (AttributeClaim, one conditional write) before its hand-off transaction, so that releases
// that reach for the same waiter together lose one single-item write each instead of a
// cancelled transaction. The package comment gives the protocol; this file its reads and writes.

// claimState is what a waiter item's claim by another operation is now.
type claimState int

const (
	// claimLive: the claimer still holds its slot and the waiter holds none: the claimer is
	// handing it its slot. Queue readers pass over the waiter.
	claimLive claimState = iota
	// claimDone: the waiter holds a slot; its waiter item is left over and whoever reads it
	// deletes it.
	claimDone
	// claimDead: neither holds: the claimer gave its slot elsewhere, or its execution ended and
	// the slot was released. The waiter counts as a plain waiter; writes to its item condition
	// on the dead claim as read.
	claimDead
)

// stateOf reads what w's claim (not empty) is: the claimer's holder item first, then the
// waiter's, both strongly consistent (a hand-off moves the slot from one to the other in one
// transaction, so in this order no hand-off between the reads passes for a dead claim). A
// claimer that holds makes the claim live without the second read.
func (c *Client) stateOf(ctx context.Context, lock string, w waiter) (claimState, error) {
	claimer, err := c.Holds(ctx, lock, w.claim)
	if err != nil || claimer {
		return claimLive, err
	}
	waiterHolds, err := c.Holds(ctx, lock, w.execution)
	switch {
	case err != nil:
		return claimLive, err
	case waiterHolds:
		return claimDone, nil
	}
	return claimDead, nil
}

// claimUnchanged adds to names and values the condition that w's item carries the claim it
// was read with (none, or a dead one), and returns it.
func claimUnchanged(w waiter, names map[string]string, values map[string]types.AttributeValue) string {
	names["#claim"] = AttributeClaim
	if w.claim == "" {
		return "attribute_not_exists(#claim)"
	}
	values[":claimed"] = str(w.claim)
	return "#claim = :claimed"
}

// errClaimTaken: the claim was refused, the waiter being claimed by another operation or out
// of the queue.
var errClaimTaken = errors.New("lock: the waiter is claimed by another operation or gone")

// claim claims w's item for the release of holder: it must exist, unclaimed, claimed by holder
// already (a retry), or carry the dead claim it was read with. It returns w as the claim left
// it (the current task token).
func (c *Client) claim(ctx context.Context, lock string, w waiter, holder string) (waiter, error) {
	names := map[string]string{"#entry": AttributeEntry, "#claim": AttributeClaim}
	values := map[string]types.AttributeValue{":holder": str(holder)}
	cond := ItemPresent + " AND (attribute_not_exists(#claim) OR #claim = :holder"
	if w.claim != "" && w.claim != holder {
		values[":claimed"] = str(w.claim)
		cond += " OR #claim = :claimed"
	}
	out, err := c.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(c.table), Key: Key(lock, WaiterEntry(w.ticket)),
		UpdateExpression:    aws.String("SET #claim = :holder"),
		ConditionExpression: aws.String(cond + ")"), ExpressionAttributeNames: names, ExpressionAttributeValues: values,
		ReturnValues: types.ReturnValueAllNew,
	})
	var failed *types.ConditionalCheckFailedException
	switch {
	case errors.As(err, &failed):
		return w, errClaimTaken
	case err != nil:
		return w, classify("claim the waiter "+w.execution, err)
	}
	claimed, ok := parseWaiter(out.Attributes)
	if !ok {
		return w, fmt.Errorf("%w: claim the waiter %s: the reply has no waiter item", ErrBusy, w.execution)
	}
	return claimed, nil
}

// dropClaimed deletes w's item while it carries claim: the claimer's own item after its
// hand-off, or another's left over once the waiter holds. An item gone or claimed otherwise
// is left alone: no error.
func (c *Client) dropClaimed(ctx context.Context, lock string, w waiter, claim string) error {
	_, err := c.ddb.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: aws.String(c.table), Key: Key(lock, WaiterEntry(w.ticket)),
		ConditionExpression:       aws.String("#claim = :claim"),
		ExpressionAttributeNames:  map[string]string{"#claim": AttributeClaim},
		ExpressionAttributeValues: map[string]types.AttributeValue{":claim": str(claim)},
	})
	var failed *types.ConditionalCheckFailedException
	if err != nil && !errors.As(err, &failed) {
		return classify("remove the waiter "+w.execution, err)
	}
	return nil
}

// claimGone reports whether w's item no longer carries holder's claim (a strongly consistent
// read): gone, or claimed otherwise.
func (c *Client) claimGone(ctx context.Context, lock string, w waiter, holder string) (bool, error) {
	out, err := c.ddb.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(c.table), Key: Key(lock, WaiterEntry(w.ticket)), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return false, classify("read the waiter "+w.execution, err)
	}
	return stringOf(out.Item, AttributeClaim) != holder, nil
}

// unclaim takes holder's claim off w's item: its release gave the slot elsewhere. An item gone
// or claimed otherwise is left alone.
func (c *Client) unclaim(ctx context.Context, lock string, w waiter, holder string) error {
	_, err := c.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(c.table), Key: Key(lock, WaiterEntry(w.ticket)),
		UpdateExpression:          aws.String("REMOVE #claim"),
		ConditionExpression:       aws.String("#claim = :holder"),
		ExpressionAttributeNames:  map[string]string{"#claim": AttributeClaim},
		ExpressionAttributeValues: map[string]types.AttributeValue{":holder": str(holder)},
	})
	var failed *types.ConditionalCheckFailedException
	if err != nil && !errors.As(err, &failed) {
		return classify("unclaim the waiter "+w.execution, err)
	}
	return nil
}

// settleClaim sorts out the claim of w, read by the operation of execution by: passed over
// (pass true) while another operation's claim is live, or once the waiter holds, its item then
// deleted when collect is set (a claim that outlived a read before this one: its claimer did
// not finish; a fresh one's claimer deletes the item itself, a round trip later); otherwise
// (no claim, by's own, or a dead one) w is a waiter for by's operation.
func (c *Client) settleClaim(ctx context.Context, lock string, w waiter, by string, collect bool) (pass bool, err error) {
	if w.claim == "" || w.claim == by {
		return false, nil
	}
	st, err := c.stateOf(ctx, lock, w)
	switch {
	case err != nil:
		return true, err
	case st == claimDone && collect:
		return true, c.dropClaimed(ctx, lock, w, w.claim)
	}
	return st != claimDead, nil
}
