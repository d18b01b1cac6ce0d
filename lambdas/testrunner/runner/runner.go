package runner

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/turnstile-sfn/turnstile/lock"
)

// StepFunctions is the part of the Step Functions API the runner uses; *sfn.Client satisfies it.
type StepFunctions interface {
	StartExecution(ctx context.Context, in *sfn.StartExecutionInput, opts ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error)
	DescribeExecution(ctx context.Context, in *sfn.DescribeExecutionInput, opts ...func(*sfn.Options)) (*sfn.DescribeExecutionOutput, error)
	GetExecutionHistory(ctx context.Context, in *sfn.GetExecutionHistoryInput, opts ...func(*sfn.Options)) (*sfn.GetExecutionHistoryOutput, error)
}

// DynamoDB is the part of the DynamoDB API the runner uses: it scans the lock table for its
// locks and reads each through package lock; *dynamodb.Client satisfies it.
type DynamoDB interface {
	lock.DynamoDBAPI
	Scan(ctx context.Context, in *dynamodb.ScanInput, opts ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)
}

// Runner runs load tests. Its zero value is not usable: set StepFunctions (and DynamoDB when
// Config.LockTable is set).
type Runner struct {
	// StepFunctions starts and inspects the executions.
	StepFunctions StepFunctions
	// DynamoDB reads the lock table after the run.
	DynamoDB DynamoDB
	// CloudWatch, when set, reads the lock table's consumed capacity after the run
	// (Config.LockTable must be set): Report.Capacity. Default: none, no capacity figures.
	CloudWatch CloudWatch
	// Now returns the current time, for naming executions. Default: time.Now.
	Now func() time.Time
	// Progress, when set, is called after every change in the number of finished executions.
	Progress func(finished, total int)
}

// ErrNoClient is returned when the Runner lacks a client the Config needs.
var ErrNoClient = errors.New("testrunner: missing AWS client")

// Run starts cfg.Executions executions, waits for all of them, and reports. It returns an error
// only when it could not run or observe the test; failed executions are part of the report.
func (r *Runner) Run(ctx context.Context, cfg Config) (*Report, error) {
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	cfg, err := cfg.withDefaults(now())
	if err != nil {
		return nil, err
	}
	if r.StepFunctions == nil || (cfg.LockTable != "" && r.DynamoDB == nil) {
		return nil, ErrNoClient
	}
	began := now()
	arns, err := r.startAll(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := r.waitAll(ctx, cfg, arns); err != nil {
		return nil, err
	}
	traces := make([]*Trace, len(arns))
	for i, arn := range arns {
		events, err := r.history(ctx, arn)
		if err != nil {
			return nil, err
		}
		traces[i] = traceOf(arn, events, cfg.WorkState, cfg.ReleaseStates)
		traces[i].Key = cfg.key(i)
	}
	report := newReport(cfg, traces)
	if cfg.LockTable != "" {
		locks, err := r.settledLocks(ctx, cfg)
		if err != nil {
			return nil, err
		}
		report.setLocks(locks)
	}
	if r.CloudWatch != nil && cfg.LockTable != "" {
		totals, err := r.tableCapacity(ctx, cfg, began, now(), capacityPoll, now)
		if err != nil {
			return nil, err
		}
		per := totals.PerExecution(report.Started)
		report.Capacity = &per
	}
	return report, nil
}

// startAll starts the executions with at most cfg.StartConcurrency calls in flight and returns
// their ARNs in index order.
func (r *Runner) startAll(ctx context.Context, cfg Config) ([]string, error) {
	arns := make([]string, cfg.Executions)
	errs := make([]error, cfg.Executions)
	sem := make(chan struct{}, cfg.StartConcurrency)
	var wg sync.WaitGroup
	for i := range cfg.Executions {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			input, err := cfg.input(i)
			if err != nil {
				errs[i] = err
				return
			}
			out, err := r.StepFunctions.StartExecution(ctx, &sfn.StartExecutionInput{
				StateMachineArn: aws.String(cfg.StateMachineArn),
				Name:            aws.String(fmt.Sprintf("%s-%04d", cfg.NamePrefix, i)),
				Input:           aws.String(input),
			})
			if err != nil {
				errs[i] = fmt.Errorf("testrunner: start execution %d: %w", i, err)
				return
			}
			arns[i] = aws.ToString(out.ExecutionArn)
		}()
	}
	wg.Wait()
	return arns, errors.Join(errs...)
}

// waitAll polls until no execution is RUNNING.
func (r *Runner) waitAll(ctx context.Context, cfg Config, arns []string) error {
	done := make([]bool, len(arns))
	finished := 0
	for {
		for i, arn := range arns {
			if done[i] {
				continue
			}
			out, err := r.StepFunctions.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: aws.String(arn)})
			if err != nil {
				return fmt.Errorf("testrunner: describe %s: %w", arn, err)
			}
			if out.Status != types.ExecutionStatusRunning && out.Status != types.ExecutionStatusPendingRedrive {
				done[i] = true
				finished++
				if r.Progress != nil {
					r.Progress(finished, len(arns))
				}
			}
		}
		if finished == len(arns) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("testrunner: %d of %d executions still running: %w", len(arns)-finished, len(arns), ctx.Err())
		case <-time.After(time.Duration(cfg.PollInterval)):
		}
	}
}

// history returns every event of one execution, oldest first.
func (r *Runner) history(ctx context.Context, arn string) ([]types.HistoryEvent, error) {
	return History(ctx, r.StepFunctions, arn)
}

// History returns every event of one execution, with its data, oldest first.
func History(ctx context.Context, client sfn.GetExecutionHistoryAPIClient, arn string) ([]types.HistoryEvent, error) {
	var events []types.HistoryEvent
	p := sfn.NewGetExecutionHistoryPaginator(client, &sfn.GetExecutionHistoryInput{
		ExecutionArn:         aws.String(arn),
		IncludeExecutionData: aws.Bool(true), // the wait queue's tickets and admissions
		MaxResults:           1000,
	})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("testrunner: history of %s: %w", arn, err)
		}
		events = append(events, page.Events...)
	}
	return events, nil
}
