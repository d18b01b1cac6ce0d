package lock

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Cancel takes a queued submission out of the queue, recording OutcomeCancelled, in one
// transaction (its waiter item deleted on condition that it is this submission's, its status
// item put). A submission that has left the queue cannot be cancelled: ErrNotQueued, and
// Status says how it ended. Cancelling a cancelled submission again is no error.
func (c *Client) Cancel(ctx context.Context, lock, id, reason string) (SubmissionStatus, error) {
	ticket, ok := ticketOfID(id)
	if lock == "" || !ok {
		return SubmissionStatus{}, fmt.Errorf("%w: cancelling needs the lock name and the submission's id (<ticket>-<16 hex digits>), got %q", ErrInvalidRequest, id)
	}
	if reason == "" {
		reason = "cancelled"
	}
	for range c.attempts {
		out, err := c.ddb.GetItem(ctx, &dynamodb.GetItemInput{
			TableName: aws.String(c.table), Key: Key(lock, WaiterEntry(ticket)), ConsistentRead: aws.Bool(true),
		})
		if err != nil {
			return SubmissionStatus{}, classify("read the submission "+id, err)
		}
		w, ok := parseWaiter(out.Item)
		if !ok || w.submission != id {
			return c.notQueued(ctx, lock, id)
		}
		tx, err := c.transact(ctx, "cancel the submission "+id, c.deleteSubmission(lock, w), types.TransactWriteItem{Put: &types.Put{
			TableName: aws.String(c.table), Item: c.outcomeItem(lock, id, OutcomeCancelled, w.execution, reason),
		}})
		switch {
		case err != nil:
			return SubmissionStatus{}, err
		case tx.outcome == applied:
			return c.Status(ctx, lock, id)
		case tx.outcome == refused:
			return c.notQueued(ctx, lock, id) // granted or expired meanwhile
		}
		// Not applied, or unknown: the next read tells.
	}
	return SubmissionStatus{}, fmt.Errorf("%w: cancel %s on %q: the lock changed under %d attempts", ErrBusy, id, lock, c.attempts)
}

// notQueued answers a Cancel of a submission that is not in the queue: its status, with
// ErrNotQueued unless it was cancelled already.
func (c *Client) notQueued(ctx context.Context, lock, id string) (SubmissionStatus, error) {
	st, err := c.Status(ctx, lock, id)
	switch {
	case err != nil:
		return st, err
	case st.Outcome == OutcomeCancelled:
		return st, nil
	}
	return st, fmt.Errorf("%w: %s is %s", ErrNotQueued, id, st.Outcome)
}

// deleteSubmission is the transaction item that deletes w's waiter item while it is still
// the submission's.
func (c *Client) deleteSubmission(lock string, w waiter) types.TransactWriteItem {
	return types.TransactWriteItem{Delete: &types.Delete{
		TableName: aws.String(c.table), Key: Key(lock, WaiterEntry(w.ticket)),
		ConditionExpression:       aws.String("#submission = :id"),
		ExpressionAttributeNames:  map[string]string{"#submission": AttributeSubmission},
		ExpressionAttributeValues: map[string]types.AttributeValue{":id": str(w.submission)},
	}}
}
