package waitqueue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/turnstile-sfn/turnstile/asl/machines"
)

// DefaultAttempts bounds the read-then-write rounds of one operation before it gives up with
// ErrBusy (the state machine retries it).
const DefaultAttempts = 25

// DynamoDBAPI is the part of the DynamoDB client the queue uses.
type DynamoDBAPI interface {
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
}

// StepFunctionsAPI is the part of the Step Functions client the queue uses.
type StepFunctionsAPI interface {
	SendTaskSuccess(ctx context.Context, in *sfn.SendTaskSuccessInput, opts ...func(*sfn.Options)) (*sfn.SendTaskSuccessOutput, error)
	DescribeExecution(ctx context.Context, in *sfn.DescribeExecutionInput, opts ...func(*sfn.Options)) (*sfn.DescribeExecutionOutput, error)
}

// Queue runs the queue operations on the locks of one table.
type Queue struct {
	table    string
	ddb      DynamoDBAPI
	sfn      StepFunctionsAPI
	now      func() time.Time
	attempts int
}

// Option configures a Queue.
type Option func(*Queue)

// WithNow sets the clock of the acquisition times written for handed-off slots. Default:
// time.Now.
func WithNow(now func() time.Time) Option { return func(q *Queue) { q.now = now } }

// WithAttempts bounds the rounds of one operation. Default: DefaultAttempts.
func WithAttempts(n int) Option { return func(q *Queue) { q.attempts = n } }

// New returns the Queue of table's locks.
func New(table string, ddb DynamoDBAPI, sfnClient StepFunctionsAPI, opts ...Option) (*Queue, error) {
	if table == "" {
		return nil, fmt.Errorf("%w: the lock table's name is required", ErrInvalidRequest)
	}
	q := &Queue{table: table, ddb: ddb, sfn: sfnClient, now: time.Now, attempts: DefaultAttempts}
	for _, o := range opts {
		o(q)
	}
	return q, nil
}

// Wake is the output a woken waiter's task receives.
type Wake struct {
	// GrantedBy is the execution whose slot the waiter took over, or the waiter itself when it
	// took a free slot.
	GrantedBy string `json:"grantedBy"`
	// Admission is the waiter's number in the order of admissions from the lock's queue; 0
	// for an execution that took a free slot without queueing.
	Admission int64 `json:"admission,omitempty"`
}

// read reads the lock item, strongly consistent.
func (q *Queue) read(ctx context.Context, lock string) (lockState, error) {
	out, err := q.ddb.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(q.table),
		Key:            lockKey(lock),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return lockState{}, classify("read the lock "+strconv.Quote(lock), err)
	}
	return parseLock(out.Item), nil
}

// update sends one conditional write; ok is false when its condition failed.
func (q *Queue) update(ctx context.Context, lock string, w write) (ok bool, out *dynamodb.UpdateItemOutput, err error) {
	in := &dynamodb.UpdateItemInput{
		TableName:                 aws.String(q.table),
		Key:                       lockKey(lock),
		UpdateExpression:          aws.String(w.update),
		ConditionExpression:       aws.String(w.condition),
		ExpressionAttributeNames:  w.names,
		ExpressionAttributeValues: w.values,
		ReturnValues:              w.returnValues,
	}
	if len(in.ExpressionAttributeValues) == 0 {
		in.ExpressionAttributeValues = nil
	}
	out, err = q.ddb.UpdateItem(ctx, in)
	var failed *types.ConditionalCheckFailedException
	switch {
	case errors.As(err, &failed):
		return false, nil, nil
	case err != nil:
		return false, nil, classify(w.what, fmt.Errorf("on the lock %s: %w", strconv.Quote(lock), err))
	}
	return true, out, nil
}

// wake completes a waiter's task token.
func (q *Queue) wake(ctx context.Context, token string, w Wake) error {
	output, err := json.Marshal(w)
	if err != nil {
		return err
	}
	_, err = q.sfn.SendTaskSuccess(ctx, &sfn.SendTaskSuccessInput{TaskToken: aws.String(token), Output: aws.String(string(output))})
	return err
}

// running reports whether the execution is RUNNING; one that does not exist is not.
func (q *Queue) running(ctx context.Context, execution string) (bool, error) {
	out, err := q.sfn.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: aws.String(execution)})
	var missing *sfntypes.ExecutionDoesNotExist
	switch {
	case errors.As(err, &missing):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("%w: describe %s: %w", ErrBusy, execution, err)
	}
	return out.Status == sfntypes.ExecutionStatusRunning, nil
}

// lockKey is the lock item's key.
func lockKey(lock string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{machines.AttributeLockName: &types.AttributeValueMemberS{Value: lock}}
}

// timestamp renders an acquisition time like $$.State.EnteredTime.
func (q *Queue) timestamp() string { return q.now().UTC().Format("2006-01-02T15:04:05.000Z") }
