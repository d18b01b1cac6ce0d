package lock

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/aws/smithy-go"
)

// The grant side of submissions (submit.go): the hooks the hand-off, the admission and the
// reconciler call when the waiter they reach is a submission.

// putGrant is the transaction item that puts the holder item of waiter w, granted a slot by
// by: a submission's carries what starts its execution (state machine, input, id), so that a
// start a crash interrupted can be finished from it (RepairGrant).
func (c *Client) putGrant(lock string, w waiter, by, since string) types.TransactWriteItem {
	put := c.putHolder(lock, w.execution, by, since)
	if w.submission != "" {
		put.Put.Item[AttributeSubmission] = str(w.submission)
		put.Put.Item[AttributeStateMachine] = str(w.stateMachine)
		put.Put.Item[AttributeInput] = str(w.input)
	}
	return put
}

// liveHead is head without the expired submissions at the head of the queue: it removes them
// (OutcomeExpired) and reads again while every waiter it read had expired.
func (c *Client) liveHead(ctx context.Context, lock string, n int32) (counter, []waiter, error) {
	for idle := 0; idle < c.attempts; {
		ctr, ws, err := c.head(ctx, lock, n)
		if err != nil {
			return ctr, nil, err
		}
		now := c.now().Unix()
		var live []waiter
		removed := false
		for _, w := range ws {
			if w.submission == "" || w.expires == 0 || now < w.expires {
				live = append(live, w)
				continue
			}
			gone, err := c.expire(ctx, lock, w)
			if err != nil {
				return ctr, nil, err
			}
			removed = removed || gone
		}
		if len(live) > 0 || len(live) == len(ws) {
			return ctr, live, nil
		}
		if !removed {
			idle++
		}
	}
	return counter{}, nil, fmt.Errorf("%w: remove the expired submissions of %q: the lock changed under %d attempts", ErrBusy, lock, c.attempts)
}

// expire removes the expired submission w from the queue, recording OutcomeExpired, in one
// transaction; gone reports that it is out of the queue (by this or by another operation).
func (c *Client) expire(ctx context.Context, lock string, w waiter) (gone bool, err error) {
	tx, err := c.transact(ctx, "expire the submission "+w.submission, c.deleteSubmission(lock, w), types.TransactWriteItem{Put: &types.Put{
		TableName: aws.String(c.table), Item: c.outcomeItem(lock, w.submission, OutcomeExpired, w.execution, "waited longer than its TTL"),
	}})
	if err != nil {
		return false, err
	}
	return tx.outcome == applied || tx.outcome == refused, nil
}

// startGranted starts the execution of submission w, just granted a slot: it records
// OutcomeStarted, then calls StartExecution with the name derived from the id, so that a
// repeated start (a lost reply retried by the SDK, a repair) finds the same execution.
// dead reports that the execution did not start and will not (OutcomeFailed recorded with the
// reason, or it ran already): the slot must go on. A transient error leaves the grant as it
// is (ErrBusy): the reconciler finishes the start (RepairGrant).
func (c *Client) startGranted(ctx context.Context, w waiter, wake Wake) (dead bool, err error) {
	starter, ok := c.sfn.(StartExecutionAPI)
	if !ok {
		return false, ErrCannotStart
	}
	// The outcome's time is the grant's (the holder item's since), which orders the grants
	// even when a retry delayed this start.
	started := c.outcomeItem(w.lock, w.submission, OutcomeStarted, w.execution, "")
	if wake.HeldSince != "" {
		started[AttributeSince] = str(wake.HeldSince)
	}
	if _, err := c.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(c.table), Item: started}); err != nil {
		return false, classify("record the start of the submission "+w.submission, err)
	}
	_, err = starter.StartExecution(ctx, &sfn.StartExecutionInput{
		StateMachineArn: aws.String(w.stateMachine), Name: aws.String(SubmissionNamePrefix + w.submission), Input: aws.String(w.input),
	})
	if err == nil {
		c.reportAdmitted(w, wake.GrantedBy)
		return false, nil
	}
	var exists *sfntypes.ExecutionAlreadyExists
	var api smithy.APIError
	switch {
	case errors.As(err, &exists):
		return c.startedBefore(ctx, w)
	case !errors.As(err, &api) || transientSFN[api.ErrorCode()]:
		return false, fmt.Errorf("%w: start %s: %w", ErrBusy, w.execution, err)
	}
	return true, c.record(ctx, w.lock, w, OutcomeFailed, api.ErrorCode()+": "+api.ErrorMessage())
}

// transientSFN are the Step Functions error codes a later StartExecution can get past.
var transientSFN = map[string]bool{
	"ThrottlingException": true, "ExecutionLimitExceeded": true, "ServiceUnavailable": true,
	"InternalFailure": true, "InternalServerError": true, "RequestLimitExceeded": true, "KmsThrottlingException": true,
}

// startedBefore tells, after ExecutionAlreadyExists, whether the name's execution is the
// submission's (the same input: started before, by an earlier try whose reply was lost or by a
// repair) or another's. The submission's, RUNNING: it is started (not dead). The submission's,
// over: it ran already, and the slot just granted goes on. Another input: OutcomeFailed.
func (c *Client) startedBefore(ctx context.Context, w waiter) (dead bool, err error) {
	out, err := c.sfn.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: aws.String(w.execution)})
	if err != nil {
		return false, fmt.Errorf("%w: describe %s: %w", ErrBusy, w.execution, err)
	}
	if aws.ToString(out.Input) != w.input {
		return true, c.record(ctx, w.lock, w, OutcomeFailed, "ExecutionAlreadyExists: an execution named like the submission exists with another input")
	}
	return out.Status != sfntypes.ExecutionStatusRunning, nil
}

// RepairResult says what RepairGrant did.
type RepairResult struct {
	// Submission is the submission whose grant the holder item is ("" for an execution's).
	Submission string `json:"submission,omitempty"`
	// Started: its execution did not exist, and was started now.
	Started bool `json:"started,omitempty"`
	// Released: its execution could not start (OutcomeFailed) and the slot went on.
	Released bool `json:"released,omitempty"`
}

// RepairGrant finishes a submission's grant whose start never happened (a crash between the
// grant and StartExecution): when execution's holder item on lock is a submission's and the
// execution does not exist, it starts it (idempotent: the same name and input) or, when it
// cannot start, records OutcomeFailed and releases the slot. Any other holder is left alone.
// The reconciler calls it for every submission holder it sweeps.
func (c *Client) RepairGrant(ctx context.Context, lock, execution string, limit int) (RepairResult, error) {
	out, err := c.ddb.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(c.table), Key: HolderKey(lock, execution), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return RepairResult{}, classify("read the holder "+execution, err)
	}
	w := waiter{lock: lock, execution: execution, submission: stringOf(out.Item, AttributeSubmission),
		stateMachine: stringOf(out.Item, AttributeStateMachine), input: stringOf(out.Item, AttributeInput)}
	res := RepairResult{Submission: w.submission}
	if w.submission == "" {
		return res, nil
	}
	_, err = c.sfn.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: aws.String(execution)})
	var missing *sfntypes.ExecutionDoesNotExist
	switch {
	case err == nil:
		return res, nil // started: its own release, or the reconciler's, ends the grant
	case !errors.As(err, &missing):
		return res, fmt.Errorf("%w: describe %s: %w", ErrBusy, execution, err)
	}
	dead, err := c.startGranted(ctx, w, Wake{GrantedBy: stringOf(out.Item, AttributeGrantedBy), HeldSince: stringOf(out.Item, AttributeSince)})
	if err != nil {
		return res, err
	}
	if !dead {
		res.Started = true
		return res, nil
	}
	r, err := c.Release(ctx, lock, execution, limit)
	res.Released = r.Released
	return res, err
}
