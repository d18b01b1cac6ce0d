package reconcile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/internal/waitqueue"
)

// StepFunctionsAPI is the part of the Step Functions client the reconciler uses.
type StepFunctionsAPI interface {
	DescribeExecution(ctx context.Context, in *sfn.DescribeExecutionInput, opts ...func(*sfn.Options)) (*sfn.DescribeExecutionOutput, error)
	// SendTaskSuccess wakes the waiter a released slot is handed to (Callback strategy).
	SendTaskSuccess(ctx context.Context, in *sfn.SendTaskSuccessInput, opts ...func(*sfn.Options)) (*sfn.SendTaskSuccessOutput, error)
}

// DynamoDBAPI is the part of the DynamoDB client the reconciler uses.
type DynamoDBAPI interface {
	Scan(ctx context.Context, in *dynamodb.ScanInput, opts ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)
	UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	// GetItem reads a lock item whose queue is not empty (Callback strategy).
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
}

// Result counts what one run did.
type Result struct {
	// Locks is the number of lock items read.
	Locks int `json:"locks"`
	// Checked is the number of holders checked with DescribeExecution.
	Checked int `json:"checked"`
	// Live is the number of holders whose execution is RUNNING.
	Live int `json:"live"`
	// Released is the number of holders this run released.
	Released int `json:"released"`
	// AlreadyReleased is the number of dead holders someone else released first.
	AlreadyReleased int `json:"alreadyReleased"`
	// DequeuedWaiters is the number of dead executions this run removed from wait queues.
	DequeuedWaiters int `json:"dequeuedWaiters"`
	// Truncated is true when MaxHolders stopped the run before the end of the table.
	Truncated bool `json:"truncated"`
	// ReleasedHolders lists the released holders as "lockName execution-ARN", sorted.
	ReleasedHolders []string `json:"releasedHolders,omitempty"`
}

// Reconciler frees the slots of holders whose execution is not RUNNING or no longer exists.
// Every release is the semaphore's conditional release, so two runs at once (or a run and the
// cleanup machine) never release a holder twice.
type Reconciler struct {
	cfg   Config
	sfn   StepFunctionsAPI
	ddb   DynamoDBAPI
	logf  func(format string, args ...any)
	now   func() time.Time
	queue *waitqueue.Queue
}

// Option configures a Reconciler.
type Option func(*Reconciler)

// WithLogf sends the log lines (one per release and the EMF metric line) to logf.
// Default: discard.
func WithLogf(logf func(format string, args ...any)) Option {
	return func(r *Reconciler) { r.logf = logf }
}

// WithNow sets the clock of the metric's timestamp. Default: time.Now.
func WithNow(now func() time.Time) Option { return func(r *Reconciler) { r.now = now } }

// New returns a Reconciler of cfg's table, or a *ConfigError.
func New(cfg Config, sfnClient StepFunctionsAPI, ddbClient DynamoDBAPI, opts ...Option) (*Reconciler, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	r := &Reconciler{cfg: cfg, sfn: sfnClient, ddb: ddbClient, logf: func(string, ...any) {}, now: time.Now}
	for _, o := range opts {
		o(r)
	}
	if r.queue, err = waitqueue.New(cfg.TableName, ddbClient, sfnClient, waitqueue.WithNow(r.now)); err != nil {
		return nil, err
	}
	return r, nil
}

// Handle is the Lambda handler: it ignores its event (a scheduled event) and runs once.
func (r *Reconciler) Handle(ctx context.Context, _ json.RawMessage) (Result, error) {
	return r.Run(ctx)
}

// Run pages through the lock table and releases every dead holder of the state machine, at
// most MaxHolders checked. It logs each release and, at the end, an EMF metric line.
func (r *Reconciler) Run(ctx context.Context) (Result, error) {
	var res Result
	var start map[string]types.AttributeValue
	for {
		page, err := r.ddb.Scan(ctx, &dynamodb.ScanInput{
			TableName:         aws.String(r.cfg.TableName),
			ConsistentRead:    aws.Bool(true),
			ExclusiveStartKey: start,
		})
		if err != nil {
			return res, fmt.Errorf("reconcile: scan %s: %w", r.cfg.TableName, err)
		}
		for _, item := range page.Items {
			res.Locks++
			if err := r.sweepItem(ctx, item, &res); err != nil {
				return res, err
			}
			if res.Truncated {
				return r.finish(res), nil
			}
		}
		if len(page.LastEvaluatedKey) == 0 {
			break
		}
		start = page.LastEvaluatedKey
	}
	return r.finish(res), nil
}

// finish sorts the released holders and reports the run.
func (r *Reconciler) finish(res Result) Result {
	sort.Strings(res.ReleasedHolders)
	r.report(res)
	return res
}

// sweepItem checks the holders of one lock item, in name order.
func (r *Reconciler) sweepItem(ctx context.Context, item map[string]types.AttributeValue, res *Result) error {
	nameAttr, ok := item[machines.AttributeLockName].(*types.AttributeValueMemberS)
	if !ok {
		return nil // not a lock item
	}
	prefix := r.cfg.executionPrefix()
	var holders []string
	for attr := range item {
		if strings.HasPrefix(attr, prefix) {
			holders = append(holders, attr)
		}
	}
	sort.Strings(holders)
	queued := queuedExecutions(item, prefix)
	for _, holder := range append(holders, queued...) {
		if res.Checked >= r.cfg.MaxHolders {
			res.Truncated = true
			return nil
		}
		res.Checked++
		alive, err := r.running(ctx, holder)
		if err != nil {
			return err
		}
		if alive {
			res.Live++
			continue
		}
		if len(queued) > 0 && r.cfg.Limit > 0 {
			// Executions wait: the slot is handed to the oldest, a dead waiter leaves the queue.
			out, err := r.queue.Release(ctx, nameAttr.Value, holder, r.cfg.Limit)
			if err != nil {
				return fmt.Errorf("reconcile: release %s from %s: %w", holder, nameAttr.Value, err)
			}
			if out.Dequeued {
				res.DequeuedWaiters++
				r.logf("removed %s from the queue of %s: the execution is not running", holder, nameAttr.Value)
				continue
			}
			r.count(res, nameAttr.Value, holder, out.Released)
			continue
		}
		released, err := r.release(ctx, nameAttr.Value, holder)
		if err != nil {
			return err
		}
		r.count(res, nameAttr.Value, holder, released)
	}
	return nil
}

// count records the outcome of one dead holder's release.
func (r *Reconciler) count(res *Result, lockName, holder string, released bool) {
	if !released {
		res.AlreadyReleased++
		return
	}
	res.Released++
	res.ReleasedHolders = append(res.ReleasedHolders, lockName+" "+holder)
	r.logf("released the slot of %s held by %s: the execution is not running", lockName, holder)
}

// running reports whether the execution is RUNNING; an execution that does not exist is not.
func (r *Reconciler) running(ctx context.Context, executionArn string) (bool, error) {
	out, err := r.sfn.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: aws.String(executionArn)})
	var missing *sfntypes.ExecutionDoesNotExist
	switch {
	case errors.As(err, &missing):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("reconcile: describe %s: %w", executionArn, err)
	}
	return out.Status == sfntypes.ExecutionStatusRunning, nil
}

// release is the semaphore's conditional release; false means "not a holder any more".
func (r *Reconciler) release(ctx context.Context, lockName, holder string) (bool, error) {
	_, err := r.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                aws.String(r.cfg.TableName),
		Key:                      map[string]types.AttributeValue{machines.AttributeLockName: &types.AttributeValueMemberS{Value: lockName}},
		UpdateExpression:         aws.String(machines.ReleaseUpdateExpression),
		ConditionExpression:      aws.String(machines.ReleaseConditionExpression),
		ExpressionAttributeNames: map[string]string{"#count": machines.AttributeHolderCount, "#holder": holder},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":one": &types.AttributeValueMemberN{Value: "1"},
		},
	})
	var failed *types.ConditionalCheckFailedException
	switch {
	case errors.As(err, &failed):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("reconcile: release %s from %s: %w", holder, lockName, err)
	}
	return true, nil
}

// queuedExecutions lists the machine's executions waiting in the item's queue (Callback
// strategy), in queue order.
func queuedExecutions(item map[string]types.AttributeValue, prefix string) []string {
	list, ok := item[machines.AttributeQueue].(*types.AttributeValueMemberL)
	if !ok {
		return nil
	}
	var queued []string
	for _, v := range list.Value {
		if s, ok := v.(*types.AttributeValueMemberS); ok && strings.HasPrefix(s.Value, prefix) {
			queued = append(queued, s.Value)
		}
	}
	return queued
}
