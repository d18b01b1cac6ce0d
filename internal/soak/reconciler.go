package soak

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/turnstile-sfn/turnstile/internal/semcheck"
	"github.com/turnstile-sfn/turnstile/lambdas/reconciler/reconcile"
	"github.com/turnstile-sfn/turnstile/lock"
)

// recordingDynamoDB is the reconciler's DynamoDB client: it talks to the server directly (the
// reconciler's own faults are not this soak's subject) and records every release it sends in
// the current segment's history, so the checker sees the reconciler's releases too.
type recordingDynamoDB struct {
	*dynamodb.Client
	recorder *atomic.Pointer[semcheck.Recorder]
	client   int
}

// TransactWriteItems sends the reconciler's release transaction (lock.Client.Release: the
// counter down and the holder item deleted) and records it: done means Released, a failed
// condition on the holder item NotHeld, any other error an operation abandoned. Other
// transactions (the soak's locks have no waiters to hand a slot to) pass unrecorded.
func (d recordingDynamoDB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	holder, position := releasedHolder(in.TransactItems)
	if holder == "" {
		return d.Client.TransactWriteItems(ctx, in, opts...)
	}
	call := d.recorder.Load().Begin(d.client, semcheck.Release(holder))
	out, err := d.Client.TransactWriteItems(ctx, in, opts...)
	var cancelled *types.TransactionCanceledException
	switch {
	case err == nil:
		call.End(semcheck.Released)
	case errors.As(err, &cancelled) && len(cancelled.CancellationReasons) > position &&
		aws.ToString(cancelled.CancellationReasons[position].Code) == "ConditionalCheckFailed":
		call.End(semcheck.NotHeld)
	default:
		call.Abandon()
	}
	return out, err
}

// releasedHolder finds the execution whose holder item a release transaction deletes, and the
// item's position; "" when the transaction is not a release.
func releasedHolder(items []types.TransactWriteItem) (string, int) {
	for i, item := range items {
		if item.Delete == nil {
			continue
		}
		entry, _ := item.Delete.Key[lock.AttributeEntry].(*types.AttributeValueMemberS)
		if entry == nil {
			continue
		}
		if execution, ok := lock.ExecutionOf(entry.Value); ok {
			return execution, i
		}
	}
	return "", 0
}

// newReconciler returns the reconciler of the Cleanup construct's Lambda, sweeping table, with
// the crashed executions as Step Functions' answers.
func newReconciler(table string, limit int, executions *crashedExecutions, ddb recordingDynamoDB) (*reconcile.Reconciler, error) {
	return reconcile.New(reconcile.Config{
		TableName:       table,
		StateMachineArn: stateMachineArn,
		MaxHolders:      reconcile.DefaultMaxHolders,
		Limit:           limit,
	}, executions, ddb)
}

// Interface checks.
var (
	_ reconcile.DynamoDBAPI      = recordingDynamoDB{}
	_ reconcile.StepFunctionsAPI = (*crashedExecutions)(nil)
)
