package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/emulator/jsonpath"
	"github.com/turnstile-sfn/turnstile/emulator/jsonvalue"
	"github.com/turnstile-sfn/turnstile/lock"
)

// errNotSubmittable: submissions are started by the releases of the hand-off function, which
// only a Callback semaphore has.
var errNotSubmittable = errors.New("the state machine does not park its waiters (Callback strategy): nothing would start a submission; use a Callback semaphore")

// errNoLockName: the lock name is neither given nor readable from the input.
var errNoLockName = errors.New("the execution input has no non-empty string at the machine's LockNamePath, the lock name")

// errNotFirstLock: on a semaphore with several locks or a total cap, a submission waits for the
// first lock its execution takes, which the input decides.
var errNotFirstLock = errors.New("--lock must be the first lock the machine takes for this input (a submission waits for that one); leave --lock out")

// submitFlags are the flags of `turnstile submit`.
type submitFlags struct {
	*lockFlags
	input string
	ttl   time.Duration
}

func parseSubmitFlags(args []string, stderr io.Writer) (submitFlags, error) {
	f := submitFlags{lockFlags: newLockFlags("submit", "print the submission as one JSON object", stderr)}
	f.addStateMachine("the semaphore's state machine ARN, Callback strategy (required)", true)
	f.addLock("the lock's name (default: the machine's LockName, or the input's value at its LockNamePath; with several locks or a total cap, the first lock the input's execution takes)", nil)
	f.fs.StringVar(&f.input, "input", "{}", "the execution input, JSON")
	f.fs.DurationVar(&f.ttl, "ttl", lock.DefaultSubmissionTTL, "how long the submission may wait in the queue before it expires")
	if err := f.parse(args); err != nil {
		return f, err
	}
	switch {
	case !json.Valid([]byte(f.input)):
		return f, fmt.Errorf("--input must be JSON, got %q", f.input)
	case f.ttl <= 0:
		return f, fmt.Errorf("--ttl must be positive, got %s", f.ttl)
	}
	return f, nil
}

// submitCommand queues an execution input on the semaphore's lock: the machine's definition
// gives its limit and, unless --lock names the lock, the path of the lock name in the input.
func submitCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseSubmitFlags(args, stderr)
	if err != nil {
		return err
	}
	c, err := f.client(ctx)
	if err != nil {
		return err
	}
	r, err := submissionTarget(ctx, c.sfn, f)
	if err != nil {
		return err
	}
	locks := c.locks
	lockName := r.Lock
	s, err := locks.Submit(ctx, r)
	if err != nil && s.ID == "" {
		return err
	}
	// Queued; an error after that is the start of a granted submission, which its status
	// shows (the reconciler finishes a start that failed for a transient reason).
	st, serr := locks.Status(ctx, lockName, s.ID)
	if serr != nil {
		return errors.Join(err, serr)
	}
	if err != nil {
		fmt.Fprintf(stderr, "turnstile: submitted, but starting it failed for now (the reconciler starts it): %v\n", err)
	}
	return printSubmission(stdout, f.json, st)
}

// submissionTarget is the submission of f.input: the definition of f.stateMachine gives the
// semaphore's limit, the lock's name (f.lock, or the input's value at the machine's
// LockNamePath; with several locks or a total cap, the first lock the input's execution takes,
// with its limit), and the input's priority and weight (read as the machine reads them).
func submissionTarget(ctx context.Context, sfnClient *sfn.Client, f submitFlags) (lock.SubmitRequest, error) {
	r := lock.SubmitRequest{Lock: f.lock, StateMachine: f.stateMachine, Input: f.input, TTL: f.ttl}
	out, err := sfnClient.DescribeStateMachine(ctx, &sfn.DescribeStateMachineInput{StateMachineArn: aws.String(f.stateMachine)})
	if err != nil {
		return r, fmt.Errorf("--state-machine %s: %w", f.stateMachine, err)
	}
	m, err := asl.Parse([]byte(aws.ToString(out.Definition)))
	if err != nil {
		return r, fmt.Errorf("--state-machine %s: %w", f.stateMachine, err)
	}
	first, several := machines.SemaphoreInputLocks(m)
	var ok bool
	if r.Limit, ok = machines.SemaphoreLimit(m); !ok && !several {
		return r, fmt.Errorf("--state-machine %s: not a Turnstile semaphore machine", f.stateMachine)
	}
	if !machines.SemaphoreParks(m) {
		return r, fmt.Errorf("%s: %w", f.stateMachine, errNotSubmittable)
	}
	if several {
		name, limit, err := first.For(f.input)
		switch {
		case err != nil:
			return r, fmt.Errorf("--input: %w", err)
		case r.Lock != "" && r.Lock != name:
			return r, fmt.Errorf("%w (--lock %q, the input's first lock %q)", errNotFirstLock, r.Lock, name)
		}
		r.Lock, r.Limit = name, limit
		return r, nil
	}
	doc, err := jsonvalue.Decode([]byte(f.input))
	if err != nil {
		return r, fmt.Errorf("--input: %w", err)
	}
	at := func(path string) (any, bool) {
		p, err := jsonpath.Compile(path)
		if err != nil {
			return nil, false
		}
		return p.Get(doc, doc)
	}
	order := machines.SemaphoreInputOrder(m)
	if r.Priority, r.Weight, err = order.Read(at); err != nil {
		return r, fmt.Errorf("--input: %w", err)
	}
	r.PriorityAgeing = order.PriorityAgeing
	if r.Lock != "" {
		return r, nil
	}
	path := machines.SemaphoreLockNamePath(m)
	if path == "" {
		r.Lock = machines.SemaphoreLockName(m)
		return r, nil
	}
	name, _ := at(path)
	if r.Lock, _ = name.(string); r.Lock == "" {
		return r, fmt.Errorf("%w (%s)", errNoLockName, path)
	}
	return r, nil
}

// errSubmissionLockRequired: a submission is found by its lock and its id.
var errSubmissionLockRequired = errors.New("--lock is required: the submission's lock (turnstile submit prints it)")

// errSubmissionIDRequired: a submission is found by its lock and its id.
var errSubmissionIDRequired = errors.New("--id is required: the submission's id (turnstile submit prints it)")

// submissionFlags are the flags of `turnstile submission` and `turnstile cancel`.
type submissionFlags struct {
	*lockFlags
	id     string
	reason string
}

func parseSubmissionFlags(cmd string, args []string, stderr io.Writer) (submissionFlags, error) {
	f := submissionFlags{lockFlags: newLockFlags(cmd, "print the submission's status as one JSON object", stderr)}
	f.addLock("the submission's lock (required; turnstile submit prints it)", errSubmissionLockRequired)
	f.fs.StringVar(&f.id, "id", "", "the submission's id (required; turnstile submit prints it)")
	f.require(func() error {
		if f.id == "" {
			return errSubmissionIDRequired
		}
		return nil
	})
	if cmd == "cancel" {
		f.fs.StringVar(&f.reason, "reason", "cancelled by an operator", "why, recorded as the submission's reason")
	}
	err := f.parse(args)
	return f, err
}

// submissionCommand prints a submission's status (cmd "submission") or cancels it ("cancel").
func submissionCommand(ctx context.Context, cmd string, args []string, stdout, stderr io.Writer) error {
	f, err := parseSubmissionFlags(cmd, args, stderr)
	if err != nil {
		return err
	}
	c, err := f.client(ctx)
	if err != nil {
		return err
	}
	var st lock.SubmissionStatus
	if cmd == "cancel" {
		st, err = c.locks.Cancel(ctx, f.lock, f.id, f.reason)
	} else {
		st, err = c.locks.Status(ctx, f.lock, f.id)
	}
	if err != nil {
		return err
	}
	return printSubmission(stdout, f.json, st)
}

// printSubmission prints a submission's status.
func printSubmission(w io.Writer, asJSON bool, st lock.SubmissionStatus) error {
	if asJSON {
		return writeJSON(w, st)
	}
	fmt.Fprintf(w, "Submission %s on %q: %s\n", st.ID, st.Lock, st.Outcome)
	switch st.Outcome {
	case lock.OutcomeQueued:
		fmt.Fprintf(w, "  waiting since %s, %d ahead of it; expires %s\n  will start as %s\n", st.At, st.Ahead, st.Expires, st.Execution)
	case lock.OutcomeStarted:
		fmt.Fprintf(w, "  execution %s (since %s)\n", st.Execution, st.At)
	default:
		fmt.Fprintf(w, "  %s at %s\n", st.Reason, st.At)
	}
	return nil
}
