package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/turnstile-sfn/turnstile/lambdas/reconciler/reconcile"
	"github.com/turnstile-sfn/turnstile/lock"
)

// errHolderRunning: release refuses to free the slot of an execution that may still be inside
// the work, which would let one more in than the limit.
var errHolderRunning = errors.New("the holder's execution is RUNNING: it may still be inside the work, and releasing its slot would admit one more than the limit; nothing was changed (stop the execution first, or pass --force)")

// errNotHolder: the execution holds no slot of the lock.
var errNotHolder = errors.New("the execution holds no slot of the lock (see turnstile inspect --lock); nothing was changed")

// errLimitRequired: releasing and reconciling hand slots on up to the limit, which a lock
// without a live limit of its own does not hold.
var errLimitRequired = errors.New("--limit is required: the semaphore's limit (the construct's Limit), which applies to locks without a live limit of their own")

// releaseFlags are the flags of `turnstile release`.
type releaseFlags struct {
	aws       awsFlags
	table     string
	lock      string
	execution string
	limit     int
	force     bool
	json      bool
}

func parseReleaseFlags(args []string, stderr io.Writer) (releaseFlags, error) {
	var f releaseFlags
	fs := flag.NewFlagSet("turnstile release", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.table, "table", "", "the lock table (required)")
	fs.StringVar(&f.lock, "lock", "", "the lock's name (required)")
	fs.StringVar(&f.execution, "execution", "", "the holding execution's ARN (required)")
	fs.IntVar(&f.limit, "limit", 0, "the semaphore's limit (required)")
	fs.BoolVar(&f.force, "force", false, "release the slot even if its execution is RUNNING (it may still be inside the work)")
	fs.BoolVar(&f.json, "json", false, "print what happened as one JSON object")
	f.aws.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return f, err
	}
	switch {
	case fs.NArg() > 0:
		return f, fmt.Errorf("release takes no arguments, got %q", fs.Args())
	case f.table == "":
		return f, errTableRequired
	case f.lock == "":
		return f, errors.New("--lock is required: the lock's name (turnstile inspect lists them)")
	case !strings.Contains(f.execution, ":execution:"):
		return f, fmt.Errorf("--execution must be an execution ARN (arn:aws:states:REGION:ACCOUNT:execution:MACHINE:NAME), got %q", f.execution)
	case f.limit < 1:
		return f, fmt.Errorf("%w, got %d", errLimitRequired, f.limit)
	}
	return f, nil
}

// releaseReport is what `turnstile release` did.
type releaseReport struct {
	// Lock is the lock's name.
	Lock string `json:"lock"`
	// Execution is the released holder.
	Execution string `json:"execution"`
	// Status is its execution's status when released (GONE when Step Functions does not
	// know it).
	Status string `json:"status"`
	lock.ReleaseResult
}

func releaseCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseReleaseFlags(args, stderr)
	if err != nil {
		return err
	}
	ddb, sfnClient, err := f.aws.clients(ctx)
	if err != nil {
		return err
	}
	locks, err := lock.New(f.table, ddb, sfnClient)
	if err != nil {
		return err
	}
	holds, err := locks.Holds(ctx, f.lock, f.execution)
	if err != nil {
		return err
	}
	if !holds {
		return fmt.Errorf("%s on %q: %w", f.execution, f.lock, errNotHolder)
	}
	status, err := executionStatus(ctx, sfnClient, f.execution)
	if err != nil {
		return err
	}
	if status == "RUNNING" && !f.force {
		return fmt.Errorf("%s on %q: %w", f.execution, f.lock, errHolderRunning)
	}
	res, err := locks.ReleaseIfHeld(ctx, f.lock, f.execution, f.limit)
	if err != nil {
		return err
	}
	report := releaseReport{Lock: f.lock, Execution: f.execution, Status: status, ReleaseResult: res}
	if f.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(report)
	}
	switch {
	case !res.Released:
		fmt.Fprintf(stdout, "%s (%s) no longer held a slot of %q when released: someone released it first; nothing changed.\n", f.execution, status, f.lock)
	case len(res.HandedTo) == 0:
		fmt.Fprintf(stdout, "Released the slot of %s (%s) on %q: nobody waited, the slot went back to the lock.\n", f.execution, status, f.lock)
	default:
		fmt.Fprintf(stdout, "Released the slot of %s (%s) on %q and handed it to %s, which was woken.\n", f.execution, status, f.lock, res.HandedTo[len(res.HandedTo)-1])
		if n := len(res.HandedTo) - 1; n > 0 {
			fmt.Fprintf(stdout, "On the way %d dead waiters were handed it and released: %s\n", n, strings.Join(res.HandedTo[:n], ", "))
		}
	}
	return nil
}

// reconcileFlags are the flags of `turnstile reconcile`.
type reconcileFlags struct {
	aws awsFlags
	cfg reconcile.Config
	// json prints the result as JSON.
	json bool
}

func parseReconcileFlags(args []string, stderr io.Writer) (reconcileFlags, error) {
	var f reconcileFlags
	fs := flag.NewFlagSet("turnstile reconcile", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.cfg.TableName, "table", "", "the lock table (required)")
	fs.StringVar(&f.cfg.StateMachineArn, "state-machine", "", "the semaphore state machine's ARN: only its executions are checked (required)")
	fs.IntVar(&f.cfg.Limit, "limit", 0, "the semaphore's limit (required)")
	fs.IntVar(&f.cfg.MaxHolders, "max-holders", reconcile.DefaultMaxHolders, "holders and waiters checked at most (one DescribeExecution each)")
	fs.BoolVar(&f.json, "json", false, "print the result as one JSON object")
	f.aws.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return f, err
	}
	switch {
	case fs.NArg() > 0:
		return f, fmt.Errorf("reconcile takes no arguments, got %q", fs.Args())
	case f.cfg.TableName == "":
		return f, errTableRequired
	case !isStateMachineArn(f.cfg.StateMachineArn):
		return f, fmt.Errorf("%w, got %q", errNotStateMachine, f.cfg.StateMachineArn)
	case f.cfg.Limit < 1:
		return f, fmt.Errorf("%w, got %d", errLimitRequired, f.cfg.Limit)
	case f.cfg.MaxHolders < 1:
		return f, fmt.Errorf("--max-holders must be at least 1, got %d", f.cfg.MaxHolders)
	}
	return f, nil
}

func reconcileCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseReconcileFlags(args, stderr)
	if err != nil {
		return err
	}
	ddb, sfnClient, err := f.aws.clients(ctx)
	if err != nil {
		return err
	}
	r, err := reconcile.New(f.cfg, sfnClient, ddb)
	if err != nil {
		return err
	}
	res, err := r.Run(ctx)
	if err != nil {
		return err
	}
	if f.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	fmt.Fprintf(stdout, "Reconciled %s: %d locks, %d holders and waiters checked, %d live; released %d dead holders (%d released by someone else first), took %d dead waiters out of queues.\n",
		f.cfg.TableName, res.Locks, res.Checked, res.Live, res.Released, res.AlreadyReleased, res.DequeuedWaiters)
	for _, h := range res.ReleasedHolders {
		fmt.Fprintf(stdout, "  released %s\n", h)
	}
	if res.Truncated {
		fmt.Fprintf(stdout, "Stopped after %d checks (--max-holders): run it again for the rest.\n", f.cfg.MaxHolders)
	}
	return nil
}
