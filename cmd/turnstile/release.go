package main

import (
	"context"
	"errors"
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

// releaseFlags are the flags of `turnstile release`.
type releaseFlags struct {
	*lockFlags
	execution string
	force     bool
}

func parseReleaseFlags(args []string, stderr io.Writer) (releaseFlags, error) {
	f := releaseFlags{lockFlags: newLockFlags("release", "print what happened as one JSON object", stderr)}
	f.addLock("the lock's name (required)", errLockRequired)
	f.fs.StringVar(&f.execution, "execution", "", "the holding execution's ARN (required)")
	f.require(func() error {
		if !strings.Contains(f.execution, ":execution:") {
			return fmt.Errorf("--execution must be an execution ARN (arn:aws:states:REGION:ACCOUNT:execution:MACHINE:NAME), got %q", f.execution)
		}
		return nil
	})
	f.addLimit()
	f.fs.BoolVar(&f.force, "force", false, "release the slot even if its execution is RUNNING (it may still be inside the work)")
	err := f.parse(args)
	return f, err
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
	c, err := f.client(ctx)
	if err != nil {
		return err
	}
	holds, err := c.locks.Holds(ctx, f.lock, f.execution)
	if err != nil {
		return err
	}
	if !holds {
		return fmt.Errorf("%s on %q: %w", f.execution, f.lock, errNotHolder)
	}
	status, err := executionStatus(ctx, c.sfn, f.execution)
	if err != nil {
		return err
	}
	if status == "RUNNING" && !f.force {
		return fmt.Errorf("%s on %q: %w", f.execution, f.lock, errHolderRunning)
	}
	res, err := c.locks.ReleaseIfHeld(ctx, f.lock, f.execution, f.limit)
	if err != nil {
		return err
	}
	report := releaseReport{Lock: f.lock, Execution: f.execution, Status: status, ReleaseResult: res}
	if f.json {
		return writeJSON(stdout, report)
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
	*lockFlags
	// maxHolders bounds the checks (reconcile.Config.MaxHolders).
	maxHolders int
}

func parseReconcileFlags(args []string, stderr io.Writer) (reconcileFlags, error) {
	f := reconcileFlags{lockFlags: newLockFlags("reconcile", "print the result as one JSON object", stderr)}
	f.addStateMachine("the semaphore state machine's ARN: only its executions are checked (required)", true)
	f.addLimit()
	f.fs.IntVar(&f.maxHolders, "max-holders", reconcile.DefaultMaxHolders, "holders and waiters checked at most (one DescribeExecution each)")
	if err := f.parse(args); err != nil {
		return f, err
	}
	if f.maxHolders < 1 {
		return f, fmt.Errorf("--max-holders must be at least 1, got %d", f.maxHolders)
	}
	return f, nil
}

func reconcileCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseReconcileFlags(args, stderr)
	if err != nil {
		return err
	}
	c, err := f.client(ctx)
	if err != nil {
		return err
	}
	r, err := reconcile.New(reconcile.Config{TableName: f.table, StateMachineArn: f.stateMachine, Limit: f.limit, MaxHolders: f.maxHolders}, c.sfn, c.ddb)
	if err != nil {
		return err
	}
	res, err := r.Run(ctx)
	if err != nil {
		return err
	}
	if f.json {
		return writeJSON(stdout, res)
	}
	fmt.Fprintf(stdout, "Reconciled %s: %d locks, %d holders and waiters checked, %d live; released %d dead holders (%d released by someone else first), took %d dead waiters out of queues.\n",
		f.table, res.Locks, res.Checked, res.Live, res.Released, res.AlreadyReleased, res.DequeuedWaiters)
	for _, h := range res.ReleasedHolders {
		fmt.Fprintf(stdout, "  released %s\n", h)
	}
	if res.Truncated {
		fmt.Fprintf(stdout, "Stopped after %d checks (--max-holders): run it again for the rest.\n", f.maxHolders)
	}
	return nil
}
