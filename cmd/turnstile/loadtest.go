package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/turnstile-sfn/turnstile/lambdas/testrunner/runner"
)

// loadtestCommand runs the load test against a deployed state machine with the default AWS
// credentials chain.
func loadtestCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg runner.Config
	var asJSON, noProgress bool
	var settle, capacityWait time.Duration
	fs := flag.NewFlagSet("turnstile loadtest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.StateMachineArn, "state-machine-arn", "", "the semaphore state machine to load (required; the demo stack's StateMachineArn output)")
	fs.IntVar(&cfg.Executions, "executions", runner.DefaultExecutions, "executions to start")
	fs.IntVar(&cfg.StartConcurrency, "start-concurrency", runner.DefaultStartConcurrency, "StartExecution calls in flight")
	fs.StringVar(&cfg.InputTemplate, "input", "", `execution input; "{{index}}" becomes the execution's index (default {"index": <index>})`)
	fs.StringVar(&cfg.LockTable, "lock-table", "", "the lock table to check for leaked slots (the demo stack's LockTableName output)")
	fs.DurationVar(&settle, "settle", runner.DefaultSettleTimeout, "how long to wait for cleanup after the last execution ended")
	fs.DurationVar(&capacityWait, "capacity-wait", runner.DefaultCapacityWait, "how long to wait for CloudWatch to publish the lock table's consumed capacity after the run (needs --lock-table; 0 skips the capacity figures)")
	fs.BoolVar(&asJSON, "json", false, "print the report as one JSON object")
	fs.BoolVar(&noProgress, "no-progress", false, "do not show the progress bar (shown only on a terminal)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if cfg.StateMachineArn == "" {
		return fmt.Errorf("--state-machine-arn is required")
	}
	cfg.SettleTimeout = runner.Duration(settle)
	awsCfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return fmt.Errorf("load the AWS configuration: %w", err)
	}
	r := &runner.Runner{StepFunctions: sfn.NewFromConfig(awsCfg), DynamoDB: dynamodb.NewFromConfig(awsCfg)}
	if capacityWait > 0 {
		r.CloudWatch, cfg.CapacityWait = cloudwatch.NewFromConfig(awsCfg), runner.Duration(capacityWait)
	}
	if !noProgress && !asJSON && showProgress(stderr) {
		bar := newProgress(stderr, max(cfg.Executions, 1))
		defer bar.finish()
		r.Progress = bar.set
	}
	report, err := r.Run(ctx, cfg)
	if err != nil {
		return err
	}
	if asJSON {
		if err := writeJSON(stdout, report); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "\nLoad test of %s\n\n", cfg.StateMachineArn)
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		printReport(tw, report, false)
		fmt.Fprintf(tw, "Most inside the work at once\t%d\t\n", report.MaxConcurrentWork)
		if report.Capacity != nil {
			printCapacity(tw, *report.Capacity)
		}
		tw.Flush()
	}
	if report.LeakedSlots > 0 {
		return fmt.Errorf("%w: %d slots still held", errViolation, report.LeakedSlots)
	}
	return nil
}
