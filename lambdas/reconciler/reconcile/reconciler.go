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

	"github.com/turnstile-sfn/turnstile/lock"
	"github.com/turnstile-sfn/turnstile/metrics"
)

// StepFunctionsAPI is the part of the Step Functions client the reconciler uses: it tells dead
// executions, and wakes the waiter a released slot is handed to (Callback strategy).
type StepFunctionsAPI = lock.StepFunctionsAPI

// DynamoDBAPI is the part of the DynamoDB client the reconciler uses: it scans the table and
// releases through package lock.
type DynamoDBAPI interface {
	lock.DynamoDBAPI
	Scan(ctx context.Context, in *dynamodb.ScanInput, opts ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)
}

// Result counts what one run did.
type Result struct {
	// Locks is the number of locks seen (their counter items).
	Locks int `json:"locks"`
	// Checked is the number of holders checked with DescribeExecution.
	Checked int `json:"checked"`
	// Live is the number of holders whose execution is RUNNING.
	Live int `json:"live"`
	// Released is the number of holders this run released.
	Released int `json:"released"`
	// AlreadyReleased is the number of dead holders someone else released first.
	AlreadyReleased int `json:"alreadyReleased"`
	// DequeuedWaiters is the number of dead executions this run took out of wait queues (or
	// found gone from them already).
	DequeuedWaiters int `json:"dequeuedWaiters"`
	// StartedGrants is the number of submissions granted a slot whose start never happened
	// (a crash between the grant and StartExecution) that this run started.
	StartedGrants int `json:"startedGrants,omitempty"`
	// Truncated is true when MaxHolders stopped the run before the end of the table.
	Truncated bool `json:"truncated"`
	// ReleasedHolders lists the released holders as "lockName execution-ARN", sorted.
	ReleasedHolders []string `json:"releasedHolders,omitempty"`

	// gauges are the locks' metrics, by lock name (WithMetrics).
	gauges map[string]*lockGauges
}

// Reconciler frees the slots of holders whose execution is not RUNNING or no longer exists,
// and takes dead waiters out of the queues. Every release is the lock's (lock.Client.Release),
// so two runs at once (or a run and the cleanup machine) never release a holder twice.
type Reconciler struct {
	cfg     Config
	sfn     StepFunctionsAPI
	ddb     DynamoDBAPI
	logf    func(format string, args ...any)
	now     func() time.Time
	locks   *lock.Client
	metrics *metrics.Logger
}

// Option configures a Reconciler.
type Option func(*Reconciler)

// WithLogf sends the log lines (one per release) to logf.
// Default: discard.
func WithLogf(logf func(format string, args ...any)) Option {
	return func(r *Reconciler) { r.logf = logf }
}

// WithNow sets the clock of the lock operations. Default: time.Now.
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
	if r.locks, err = lock.New(cfg.TableName, ddbClient, sfnClient, lock.WithNow(r.now)); err != nil {
		return nil, err
	}
	return r, nil
}

// Handle is the Lambda handler: it ignores its event (a scheduled event) and runs once.
func (r *Reconciler) Handle(ctx context.Context, _ json.RawMessage) (Result, error) {
	return r.Run(ctx)
}

// Run pages through the lock table's holder and waiter items of the state machine's
// executions and frees what dead ones hold or wait for, at most MaxHolders checked. It logs
// each release and, at the end, writes its metrics (WithMetrics).
func (r *Reconciler) Run(ctx context.Context) (Result, error) {
	var res Result
	var start map[string]types.AttributeValue
	prefix := r.cfg.executionPrefix()
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
			if err := r.sweepItem(ctx, item, prefix, &res); err != nil {
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

// sweepItem checks one item of the table: a holder or a waiter of the machine's executions.
func (r *Reconciler) sweepItem(ctx context.Context, item map[string]types.AttributeValue, prefix string, res *Result) error {
	r.observe(res, item)
	lockName := stringAttr(item, lock.AttributeLockName)
	entry := stringAttr(item, lock.AttributeEntry)
	if entry == lock.EntryLock {
		res.Locks++
		return nil
	}
	execution, holder := lock.ExecutionOf(entry)
	if holder {
		if lockName, holder = lock.LockOfHolders(lockName); !holder {
			return nil // not in a holder partition: not a lock item
		}
	}
	ticket, waiting := lock.TicketOf(entry)
	if waiting {
		execution = stringAttr(item, lock.AttributeExecution)
	}
	if (!holder && !waiting) || !strings.HasPrefix(execution, prefix) {
		return nil // another machine's, or not a lock item
	}
	if stringAttr(item, lock.AttributeSubmission) != "" {
		if waiting {
			return nil // a submission, not an execution yet: its TTL ends its wait
		}
		if done, err := r.repairGrant(ctx, lockName, execution, res); err != nil || done {
			return err
		}
	}
	if res.Checked >= r.cfg.MaxHolders {
		res.Truncated = true
		return nil
	}
	res.Checked++
	alive, err := r.running(ctx, execution)
	if err != nil {
		return err
	}
	if alive {
		res.Live++
		return nil
	}
	if waiting {
		if _, err := r.locks.Leave(ctx, lockName, execution, ticket, r.cfg.Limit); err != nil {
			return fmt.Errorf("reconcile: take %s out of the queue of %s: %w", execution, lockName, err)
		}
		res.DequeuedWaiters++
		r.logf("removed %s from the queue of %s: the execution is not running", execution, lockName)
		return nil
	}
	out, err := r.locks.ReleaseIfHeld(ctx, lockName, execution, r.cfg.Limit)
	if err != nil {
		return fmt.Errorf("reconcile: release %s from %s: %w", execution, lockName, err)
	}
	r.count(res, lockName, execution, out.Released)
	return nil
}

// repairGrant finishes the grant of a submission whose start never happened: it starts the
// execution, or releases the slot when it cannot start (lock.Client.RepairGrant). done is
// false when there was nothing to repair: the holder is then checked like any other.
func (r *Reconciler) repairGrant(ctx context.Context, lockName, execution string, res *Result) (done bool, err error) {
	if res.Checked >= r.cfg.MaxHolders {
		return false, nil // the caller truncates the run
	}
	rep, err := r.locks.RepairGrant(ctx, lockName, execution, r.cfg.Limit)
	switch {
	case err != nil:
		return true, fmt.Errorf("reconcile: start the submission %s on %s: %w", execution, lockName, err)
	case rep.Started:
		res.Checked++
		res.StartedGrants++
		r.logf("started %s, granted a slot of %s whose start never happened", execution, lockName)
		return true, nil
	case rep.Released:
		res.Checked++
		r.count(res, lockName, execution, true)
		return true, nil
	}
	return false, nil
}

// count records the outcome of one dead holder's release.
func (r *Reconciler) count(res *Result, lockName, holder string, released bool) {
	if !released {
		res.AlreadyReleased++
		return
	}
	res.Released++
	if r.metrics != nil {
		res.gauge(lockName).freed++
	}
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

// stringAttr reads a string attribute ("" when absent).
func stringAttr(item map[string]types.AttributeValue, name string) string {
	if s, ok := item[name].(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}
