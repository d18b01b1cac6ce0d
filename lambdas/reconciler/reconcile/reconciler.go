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
	// Checked is the number of holders and waiters checked with DescribeExecution.
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
	// Truncated is true when MaxHolders left holders or waiters of the machine unchecked.
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

// Run pages through the lock table, then checks the holder and waiter items of the state
// machine's executions, at most MaxHolders of them, and frees what dead ones hold or wait for.
// Holders come first, the longest-held first: a slot leaked by a lost event keeps its age while
// live holders come and go, so it is checked within a run or two however many holders and
// waiters the table holds; waiters (a dead one only takes its place in the line until a release
// reaches it) get what the holders leave of the budget. It logs each release and, at the end,
// writes its metrics (WithMetrics).
func (r *Reconciler) Run(ctx context.Context) (Result, error) {
	var res Result
	holders, waiters, err := r.scan(ctx, &res)
	if err != nil {
		return res, err
	}
	sort.SliceStable(holders, func(i, j int) bool { return holders[i].since < holders[j].since })
	for _, c := range append(holders, waiters...) {
		if res.Checked >= r.cfg.MaxHolders {
			res.Truncated = true
			break
		}
		if err := r.check(ctx, c, &res); err != nil {
			return res, err
		}
	}
	return r.finish(res), nil
}

// candidate is a holder or waiter item of the machine's executions, as the scan read it.
type candidate struct {
	lock, execution string
	// since is the item's AttributeSince (lock.SinceLayout sorts as time does).
	since string
	// waiting: a waiter item, at place ticket in its lock's queue; else a holder item.
	waiting bool
	ticket  int64
	// submission: a holder item granted to a submission (lock.AttributeSubmission).
	submission bool
}

// scan pages through the table (a consistent Scan): it counts the locks and their gauges in
// res and returns the holder items of the machine's executions, and its waiter items up to
// MaxHolders (more could not be checked in this run anyway).
func (r *Reconciler) scan(ctx context.Context, res *Result) (holders, waiters []candidate, err error) {
	prefix := r.cfg.executionPrefix()
	p := dynamodb.NewScanPaginator(r.ddb, &dynamodb.ScanInput{TableName: aws.String(r.cfg.TableName), ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, nil, fmt.Errorf("reconcile: scan %s: %w", r.cfg.TableName, err)
		}
		for _, item := range page.Items {
			r.observe(res, item)
			c, isHolder, ok := r.candidateOf(res, item, prefix)
			switch {
			case !ok:
			case isHolder:
				holders = append(holders, c)
			case len(waiters) < r.cfg.MaxHolders:
				waiters = append(waiters, c)
			default:
				res.Truncated = true
			}
		}
	}
	return holders, waiters, nil
}

// candidateOf reads item: a holder (isHolder) or waiter item of an execution of the machine
// (ARN prefix) that a run checks, or ok false (a counter item, counted in res; another
// machine's item; a waiting submission, which its time to live ends).
func (r *Reconciler) candidateOf(res *Result, item map[string]types.AttributeValue, prefix string) (c candidate, isHolder, ok bool) {
	lockName := stringAttr(item, lock.AttributeLockName)
	entry := stringAttr(item, lock.AttributeEntry)
	if entry == lock.EntryLock {
		res.Locks++
		return c, false, false
	}
	execution, holder := lock.ExecutionOf(entry)
	if holder {
		if lockName, holder = lock.LockOfHolders(lockName); !holder {
			return c, false, false // not in a holder partition: not a lock item
		}
	}
	ticket, waiting := lock.TicketOf(entry)
	if waiting {
		execution = stringAttr(item, lock.AttributeExecution)
	}
	submission := stringAttr(item, lock.AttributeSubmission) != ""
	if (!holder && !waiting) || !strings.HasPrefix(execution, prefix) || (waiting && submission) {
		return c, false, false
	}
	return candidate{lock: lockName, execution: execution, since: stringAttr(item, lock.AttributeSince), waiting: waiting, ticket: ticket, submission: submission}, holder, true
}

// check frees what c's execution holds or waits for when it is not running (a submission's
// grant whose start never happened is started instead), and counts it in res.
func (r *Reconciler) check(ctx context.Context, c candidate, res *Result) error {
	if c.submission {
		if done, err := r.repairGrant(ctx, c.lock, c.execution, res); err != nil || done {
			return err
		}
	}
	res.Checked++
	alive, err := r.running(ctx, c.execution)
	if err != nil {
		return err
	}
	if alive {
		res.Live++
		return nil
	}
	if c.waiting {
		if _, err := r.locks.Leave(ctx, c.lock, c.execution, c.ticket, r.cfg.Limit); err != nil {
			return fmt.Errorf("reconcile: take %s out of the queue of %s: %w", c.execution, c.lock, err)
		}
		res.DequeuedWaiters++
		r.logf("removed %s from the queue of %s: the execution is not running", c.execution, c.lock)
		return nil
	}
	out, err := r.locks.ReleaseIfHeld(ctx, c.lock, c.execution, r.cfg.Limit)
	if err != nil {
		return fmt.Errorf("reconcile: release %s from %s: %w", c.execution, c.lock, err)
	}
	r.count(res, c.lock, c.execution, out.Released)
	return nil
}

// finish sorts the released holders and reports the run.
func (r *Reconciler) finish(res Result) Result {
	sort.Strings(res.ReleasedHolders)
	r.report(res)
	return res
}

// repairGrant finishes the grant of a submission whose start never happened: it starts the
// execution, or releases the slot when it cannot start (lock.Client.RepairGrant). done is
// false when there was nothing to repair: the holder is then checked like any other.
func (r *Reconciler) repairGrant(ctx context.Context, lockName, execution string, res *Result) (done bool, err error) {
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
