package soak

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/turnstile-sfn/turnstile/internal/semcheck"
	"github.com/turnstile-sfn/turnstile/lambdas/reconciler/reconcile"
)

// recordingDynamoDB is the reconciler's DynamoDB client: it talks to the server directly (the
// reconciler's own faults are not this soak's subject) and records every release it sends in
// the current segment's history, so the checker sees the reconciler's releases too.
type recordingDynamoDB struct {
	*dynamodb.Client
	recorder *atomic.Pointer[semcheck.Recorder]
	client   int
}

// UpdateItem sends the reconciler's conditional release and records it: done means Released, a
// failed condition NotHeld, any other error an operation abandoned.
func (d recordingDynamoDB) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	call := d.recorder.Load().Begin(d.client, semcheck.Release(in.ExpressionAttributeNames["#holder"]))
	out, err := d.Client.UpdateItem(ctx, in, opts...)
	var failed *types.ConditionalCheckFailedException
	switch {
	case err == nil:
		call.End(semcheck.Released)
	case errors.As(err, &failed):
		call.End(semcheck.NotHeld)
	default:
		call.Abandon()
	}
	return out, err
}

// newReconciler returns the reconciler of the Cleanup construct's Lambda, sweeping table, with
// the crashed executions as Step Functions' answers.
func newReconciler(table string, executions *crashedExecutions, ddb recordingDynamoDB) (*reconcile.Reconciler, error) {
	return reconcile.New(reconcile.Config{
		TableName:       table,
		StateMachineArn: stateMachineArn,
		MaxHolders:      reconcile.DefaultMaxHolders,
	}, executions, ddb)
}

// Interface checks.
var (
	_ reconcile.DynamoDBAPI      = recordingDynamoDB{}
	_ reconcile.StepFunctionsAPI = (*crashedExecutions)(nil)
)
