package lock

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Status reads what became of submission id of lock: its status item if it has an outcome,
// else its waiter item (queued), else its grant's holder item (started, being started).
func (c *Client) Status(ctx context.Context, lock, id string) (SubmissionStatus, error) {
	ticket, ok := ticketOfID(id)
	if lock == "" || !ok {
		return SubmissionStatus{}, fmt.Errorf("%w: a submission's status needs its lock name and its id (<ticket>-<16 hex digits>), got %q", ErrInvalidRequest, id)
	}
	st, err := c.outcomeOf(ctx, lock, id)
	if err != nil || st != nil {
		return deref(st), err
	}
	out, err := c.ddb.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(c.table), Key: Key(lock, WaiterEntry(ticket)), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return SubmissionStatus{}, classify("read the submission "+id, err)
	}
	if w, ok := parseWaiter(out.Item); ok && w.submission == id {
		ahead, err := c.ahead(ctx, lock, ticket)
		return SubmissionStatus{ID: id, Lock: lock, Outcome: OutcomeQueued, Execution: w.execution, At: w.since,
			Expires: time.Unix(w.expires, 0).UTC().Format(time.RFC3339), Ahead: ahead}, err
	}
	// Granted between the two reads and not yet recorded: its holder item says so.
	holders, err := c.ddb.Query(ctx, &dynamodb.QueryInput{
		TableName: aws.String(c.table), ConsistentRead: aws.Bool(true),
		KeyConditionExpression:    aws.String("#lock = :lock"),
		FilterExpression:          aws.String("#submission = :id"),
		ExpressionAttributeNames:  map[string]string{"#lock": AttributeLockName, "#submission": AttributeSubmission},
		ExpressionAttributeValues: map[string]types.AttributeValue{":lock": str(HolderPartition(lock)), ":id": str(id)},
	})
	if err != nil {
		return SubmissionStatus{}, classify("read the holders of "+strconv.Quote(lock), err)
	}
	if len(holders.Items) > 0 {
		item := holders.Items[0]
		e, _ := ExecutionOf(stringOf(item, AttributeEntry))
		return SubmissionStatus{ID: id, Lock: lock, Outcome: OutcomeStarted, Execution: e, At: stringOf(item, AttributeSince)}, nil
	}
	if st, err = c.outcomeOf(ctx, lock, id); err != nil || st != nil {
		return deref(st), err
	}
	return SubmissionStatus{}, fmt.Errorf("%w: %q on %q", ErrNoSubmission, id, lock)
}

func deref(st *SubmissionStatus) SubmissionStatus {
	if st == nil {
		return SubmissionStatus{}
	}
	return *st
}

// outcomeOf reads submission id's status item; nil when it has none (no outcome yet).
func (c *Client) outcomeOf(ctx context.Context, lock, id string) (*SubmissionStatus, error) {
	out, err := c.ddb.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(c.table), Key: Key(SubmissionPartition(lock), id), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, classify("read the submission "+id, err)
	}
	if out.Item == nil {
		return nil, nil
	}
	return &SubmissionStatus{ID: id, Lock: lock, Outcome: Outcome(stringOf(out.Item, AttributeOutcome)),
		Execution: stringOf(out.Item, AttributeExecution), Reason: stringOf(out.Item, AttributeReason), At: stringOf(out.Item, AttributeSince)}, nil
}

// maxAhead bounds the waiters Status counts ahead of a queued submission.
const maxAhead = 100

// ahead counts the waiters with a ticket below ticket, up to maxAhead (one Query).
func (c *Client) ahead(ctx context.Context, lock string, ticket int64) (int, error) {
	out, err := c.ddb.Query(ctx, &dynamodb.QueryInput{
		TableName: aws.String(c.table), Select: types.SelectCount,
		KeyConditionExpression:    aws.String("#lock = :lock AND #entry BETWEEN :from AND :to"),
		ExpressionAttributeNames:  map[string]string{"#lock": AttributeLockName, "#entry": AttributeEntry},
		ExpressionAttributeValues: map[string]types.AttributeValue{":lock": str(lock), ":from": str(WaiterPrefix), ":to": str(WaiterEntry(ticket - 1))},
		Limit:                     aws.Int32(maxAhead),
	})
	if err != nil {
		return 0, classify("count the queue of "+strconv.Quote(lock), err)
	}
	return int(out.Count), nil
}

// AttributeTimeToLive is the lock table's time-to-live attribute (Unix seconds): a status item
// carries it, StatusRetention after its outcome, so that DynamoDB deletes it then (within a few
// days, as DynamoDB's time to live does; until then it reads as before). The table the
// semaphore construct creates for Submissions has its time to live on this attribute; a table
// of one's own needs it turned on to the same (else status items stay). No other item carries
// it: the lock's own items leave only through the protocol.
const AttributeTimeToLive = "ttl"

// StatusRetention is how long a submission's status item is kept after its outcome: Status
// answers for it at least that long, then (once DynamoDB has deleted it) ErrNoSubmission.
const StatusRetention = 7 * 24 * time.Hour

// outcomeItem is the status item recording submission id's outcome.
func (c *Client) outcomeItem(lock, id string, o Outcome, execution, reason string) map[string]types.AttributeValue {
	item := Key(SubmissionPartition(lock), id)
	item[AttributeOutcome] = str(string(o))
	item[AttributeExecution] = str(execution)
	item[AttributeSince] = str(c.timestamp())
	item[AttributeTimeToLive] = num(c.now().Add(StatusRetention).Unix())
	if reason != "" {
		item[AttributeReason] = str(reason)
	}
	return item
}

// record writes a submission's outcome (one write unit).
func (c *Client) record(ctx context.Context, lock string, w waiter, o Outcome, reason string) error {
	_, err := c.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(c.table), Item: c.outcomeItem(lock, w.submission, o, w.execution, reason)})
	if err != nil {
		return classify("record the outcome of the submission "+w.submission, err)
	}
	return nil
}
