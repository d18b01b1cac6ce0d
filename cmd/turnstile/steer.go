package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/lock"
)

// errNoSuchLock: the lock has no counter item: nothing drew a ticket on it, took a slot or set
// it, so it is likely misspelt.
var errNoSuchLock = errors.New("the lock does not exist in the table (turnstile inspect lists the locks); nothing was changed")

// errLimitTarget: limit changes one lock or the semaphore's default.
var errLimitTarget = errors.New("give exactly one of --lock NAME (this lock's own limit) and --default (the semaphore's default)")

// errLimitChange: limit sets or clears.
var errLimitChange = errors.New("give exactly one of --set N and --clear")

// errDefaultClear: the default cannot be removed.
var errDefaultClear = errors.New("--default takes --set only: a semaphore always has a default (the construct's Limit until one is set); set it back to that number instead")

// errDefaultMachine: the default is per semaphore.
var errDefaultMachine = errors.New("--default needs --state-machine: the semaphore's state machine ARN (arn:aws:states:REGION:ACCOUNT:stateMachine:NAME)")

// errDefaultPoll: a Poll semaphore's locks follow the Limit in its definition.
var errDefaultPoll = errors.New("the semaphore waits by polling (Poll): its locks take their default from the Limit in its definition, so a default in the table would not reach a new lock; set a lock's own limit with --lock, or change Limit and redeploy")

// DefaultDrainCause is the cause a drained execution fails with unless --cause says otherwise.
const DefaultDrainCause = "the lock was drained by an operator (turnstile drain)"

// steerFlags are the flags of limit, pause, resume and drain.
type steerFlags struct {
	*lockFlags
	isDefault bool
	set       int
	setGiven  bool
	clear     bool
	cause     string
}

func parseSteerFlags(cmd string, args []string, stderr io.Writer) (steerFlags, error) {
	f := steerFlags{lockFlags: newLockFlags(cmd, "print what happened as one JSON object", stderr)}
	lockMissing := errLockRequired
	if cmd == "limit" {
		lockMissing = nil // --lock or --default: checked below
	}
	f.addLock("the lock's name (required)", lockMissing)
	switch cmd {
	case "limit":
		f.fs.BoolVar(&f.isDefault, "default", false, "change the semaphore's default limit (every lock without a limit of its own) instead of one lock's")
		f.addStateMachine("with --default: the semaphore's state machine ARN", false)
		f.fs.IntVar(&f.set, "set", 0, fmt.Sprintf("set the limit to N (1 to %d)", lock.MaxLimit))
		f.fs.BoolVar(&f.clear, "clear", false, "take back the lock's own limit: it follows the semaphore's default again")
	case "drain":
		f.fs.StringVar(&f.cause, "cause", DefaultDrainCause, "the cause the drained executions fail with")
	}
	if err := f.parse(args); err != nil {
		return f, err
	}
	f.fs.Visit(func(fl *flag.Flag) { f.setGiven = f.setGiven || fl.Name == "set" })
	switch {
	case cmd == "drain" && strings.TrimSpace(f.cause) == "":
		return f, errors.New("--cause must not be empty: the drained executions fail with it")
	case cmd != "limit":
		return f, nil
	case (f.lock == "") == !f.isDefault:
		return f, errLimitTarget
	case f.setGiven == f.clear:
		return f, errLimitChange
	case f.setGiven && (f.set < 1 || f.set > lock.MaxLimit):
		return f, fmt.Errorf("--set must be from 1 to %d, got %d (turnstile pause stops admissions)", lock.MaxLimit, f.set)
	case f.isDefault && f.clear:
		return f, errDefaultClear
	case f.isDefault && !isStateMachineArn(f.stateMachine):
		return f, fmt.Errorf("%w, got %q", errDefaultMachine, f.stateMachine)
	case !f.isDefault && f.stateMachine != "":
		return f, errors.New("--state-machine goes with --default only: a lock's own limit is the lock's, whichever semaphore uses it")
	}
	return f, nil
}

// steerReport is what limit, pause, resume and drain did, and the lock afterwards.
type steerReport struct {
	// Lock is the lock's name ("" for a default).
	Lock string `json:"lock,omitempty"`
	// StateMachine is the semaphore whose default was set.
	StateMachine string `json:"stateMachine,omitempty"`
	// Limit is the lock's live limit afterwards (the default, for --default).
	Limit int `json:"limit,omitempty"`
	// Paused tells whether the lock admits nobody.
	Paused bool `json:"paused"`
	// Locks are the locks a new default was written to.
	Locks []string `json:"locks,omitempty"`
	// Admitted are the waiters admitted into freed slots, oldest first.
	Admitted []string `json:"admitted"`
	// Drained are the waiters a drain ended.
	Drained []string `json:"drained,omitempty"`
	// Unreached are drained waiters whose task could not be failed (between two parks).
	Unreached []string `json:"unreached,omitempty"`
}

func steerCommand(ctx context.Context, cmd string, args []string, stdout, stderr io.Writer) error {
	f, err := parseSteerFlags(cmd, args, stderr)
	if err != nil {
		return err
	}
	c, err := f.client(ctx)
	if err != nil {
		return err
	}
	locks := c.locks
	report := steerReport{Lock: f.lock, Admitted: []string{}}
	if f.isDefault {
		if err := checkParksInQueue(ctx, c.sfn, f.stateMachine); err != nil {
			return err
		}
		res, err := locks.SetDefaultLimit(ctx, f.stateMachine, f.set)
		if err != nil {
			return err
		}
		report = steerReport{StateMachine: f.stateMachine, Limit: f.set, Locks: res.Locks, Admitted: append(report.Admitted, res.Admitted...)}
		return printSteer(stdout, cmd, f, report)
	}
	st, err := locks.Read(ctx, f.lock)
	if err != nil {
		return err
	}
	if !st.Exists && !(cmd == "limit" && f.setGiven) {
		return fmt.Errorf("%q: %w", f.lock, errNoSuchLock)
	}
	var admitted lock.AdmitResult
	switch {
	case cmd == "limit" && f.setGiven:
		admitted, err = locks.SetLimit(ctx, f.lock, f.set)
	case cmd == "limit":
		admitted, err = locks.ClearLimit(ctx, f.lock)
	case cmd == "pause":
		err = locks.Pause(ctx, f.lock)
	case cmd == "resume":
		admitted, err = locks.Resume(ctx, f.lock)
	case cmd == "drain":
		var res lock.DrainResult
		res, err = locks.Drain(ctx, f.lock, f.cause)
		report.Drained, report.Unreached = res.Drained, res.Unreached
	}
	report.Admitted = append(report.Admitted, admitted.Admitted...)
	if err != nil {
		return err
	}
	if st, err = locks.Read(ctx, f.lock); err != nil {
		return err
	}
	report.Limit, report.Paused = st.Limit, st.Paused
	return printSteer(stdout, cmd, f, report)
}

// printSteer writes the report as JSON or as a sentence or two.
func printSteer(w io.Writer, cmd string, f steerFlags, r steerReport) error {
	if f.json {
		return writeJSON(w, r)
	}
	limit := "the limit its callers are configured with"
	if r.Limit > 0 {
		limit = fmt.Sprint(r.Limit)
	}
	switch cmd {
	case "limit":
		if f.isDefault {
			fmt.Fprintf(w, "The default limit of %s is %d; set on %d locks without a limit of their own.\n", r.StateMachine, r.Limit, len(r.Locks))
		} else {
			fmt.Fprintf(w, "The limit of %q is %s.\n", r.Lock, limit)
		}
	case "pause":
		fmt.Fprintf(w, "%q is paused: nobody is admitted, the queue keeps its order, holders keep running.\n", r.Lock)
	case "resume":
		fmt.Fprintf(w, "%q admits again (limit %s).\n", r.Lock, limit)
	case "drain":
		fmt.Fprintf(w, "Drained %d waiters of %q: their executions fail with %s.\n", len(r.Drained), r.Lock, lock.ErrorDrained)
		if len(r.Unreached) > 0 {
			fmt.Fprintf(w, "%d of them were between two parks and could not be failed; they park again as newcomers: %s\n", len(r.Unreached), strings.Join(r.Unreached, ", "))
		}
	}
	if len(r.Admitted) > 0 {
		fmt.Fprintf(w, "Admitted %d waiters: %s\n", len(r.Admitted), strings.Join(r.Admitted, ", "))
	}
	return nil
}

// checkParksInQueue refuses a default for a semaphore whose machine does not park its waiters
// (machines.StateWaitInQueue): only a park copies the default into a new lock.
func checkParksInQueue(ctx context.Context, sfnClient *sfn.Client, stateMachine string) error {
	out, err := sfnClient.DescribeStateMachine(ctx, &sfn.DescribeStateMachineInput{StateMachineArn: aws.String(stateMachine)})
	if err != nil {
		return fmt.Errorf("--state-machine %s: %w", stateMachine, err)
	}
	parks, err := parksInQueue(aws.ToString(out.Definition))
	if err != nil {
		return fmt.Errorf("--state-machine %s: %w", stateMachine, err)
	}
	if !parks {
		return fmt.Errorf("%s: %w", stateMachine, errDefaultPoll)
	}
	return nil
}

// parksInQueue reports whether a semaphore's definition parks its waiters (the Callback
// strategy).
func parksInQueue(definition string) (bool, error) {
	m, err := asl.Parse([]byte(definition))
	if err != nil {
		return false, err
	}
	return m.States.Get(machines.StateWaitInQueue) != nil, nil
}
