package lock

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
)

// ErrorDrained is the error a drained waiter's execution fails with (Drain).
const ErrorDrained = "Turnstile.Drained"

// ErrCannotFailTasks: Drain ends waiters with SendTaskFailure, which the Client's Step
// Functions client lacks (*sfn.Client has it).
var ErrCannotFailTasks = errors.New("lock: the Step Functions client cannot SendTaskFailure; pass a *sfn.Client")

// TaskFailureAPI is what Drain needs of Step Functions besides StepFunctionsAPI; *sfn.Client
// has it.
type TaskFailureAPI interface {
	SendTaskFailure(ctx context.Context, in *sfn.SendTaskFailureInput, opts ...func(*sfn.Options)) (*sfn.SendTaskFailureOutput, error)
}

// DrainResult says what Drain did.
type DrainResult struct {
	// Drained are the waiters taken out of the queue and failed, in ticket order.
	Drained []string `json:"drained"`
	// Unreached are drained waiters whose task could not be failed (their token had expired:
	// between two parks). They are out of the queue; when their task times out they park
	// again, as a newcomer.
	Unreached []string `json:"unreached,omitempty"`
}

// Drain ends every waiter of lock: it deletes its waiter item (conditionally: a waiter handed a
// slot meanwhile holds it and is left alone) and fails its task with ErrorDrained and cause,
// so that its execution fails with that error, holding nothing. Holders keep running; waiters
// that join while it runs are drained too. Drain is idempotent: a drained lock has no waiter
// to drain. Pause the lock first to keep newcomers out.
func (c *Client) Drain(ctx context.Context, lock, cause string) (DrainResult, error) {
	res := DrainResult{Drained: []string{}}
	if lock == "" {
		return res, fmt.Errorf("%w: draining needs a lock name", ErrInvalidRequest)
	}
	failer, ok := c.sfn.(TaskFailureAPI)
	if !ok {
		return res, ErrCannotFailTasks
	}
	for {
		_, waiters, err := c.head(ctx, lock, c.lookAhead)
		if err != nil || len(waiters) == 0 {
			return res, err
		}
		for _, w := range waiters {
			_, err := c.ddb.DeleteItem(ctx, &dynamodb.DeleteItemInput{
				TableName: aws.String(c.table), Key: Key(lock, WaiterEntry(w.ticket)),
				ConditionExpression:       aws.String("#execution = :execution"),
				ExpressionAttributeNames:  map[string]string{"#execution": AttributeExecution},
				ExpressionAttributeValues: map[string]types.AttributeValue{":execution": str(w.execution)},
			})
			var failed *types.ConditionalCheckFailedException
			switch {
			case errors.As(err, &failed):
				continue // admitted meanwhile, or drained by another drain
			case err != nil:
				return res, classify("drain "+w.execution, err)
			}
			res.Drained = append(res.Drained, w.execution)
			if w.submission != "" {
				// A submission has no task to fail: its outcome says it was drained.
				if err := c.record(ctx, lock, w, OutcomeCancelled, "drained: "+cause); err != nil {
					return res, err
				}
				continue
			}
			_, err = failer.SendTaskFailure(ctx, &sfn.SendTaskFailureInput{
				TaskToken: aws.String(w.token), Error: aws.String(ErrorDrained), Cause: aws.String(cause),
			})
			if err != nil {
				res.Unreached = append(res.Unreached, w.execution)
			}
		}
	}
}
