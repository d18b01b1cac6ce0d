package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/turnstile-sfn/turnstile/lock"
)

// errTableRequired: an operator's command needs the lock table.
var errTableRequired = errors.New("--table is required (the lock table: the demo stack's LockTableName output, or the table `turnstile up` lists)")

// errLockRequired: the command acts on one lock.
var errLockRequired = errors.New("--lock is required: the lock's name (turnstile inspect lists them)")

// errNotStateMachine: --state-machine is not a state machine ARN.
var errNotStateMachine = errors.New("--state-machine must be a state machine ARN (arn:aws:states:REGION:ACCOUNT:stateMachine:NAME)")

// errLimitRequired: releasing and reconciling hand slots on up to the limit, which a lock
// without a live limit of its own does not hold.
var errLimitRequired = errors.New("--limit is required: the semaphore's limit (the construct's Limit), which applies to locks without a live limit of their own")

// isStateMachineArn reports whether arn names a state machine (not an execution, not a name).
func isStateMachineArn(arn string) bool { return strings.Contains(arn, ":stateMachine:") }

// lockFlags are the flags the lock commands (inspect, release, reconcile, limit, pause,
// resume, drain, submit, submission, cancel) share, on the command's flag set: --table, --json
// and the endpoints (awsFlags) always; --lock, --state-machine and --limit for the commands that
// add them. parse checks them, client connects to the lock table. A command adds its own flags
// to fs and checks them after parse.
type lockFlags struct {
	// cmd is the command's name, e.g. "release".
	cmd string
	// fs is the command's flag set.
	fs  *flag.FlagSet
	aws awsFlags

	table        string
	lock         string
	stateMachine string
	limit        int
	json         bool

	// required are the checks of the flags added as required, in the order they were added.
	required []func() error
}

// newLockFlags returns the flags of `turnstile cmd`, with --table, --json (jsonHelp saying what
// it prints) and the endpoints.
func newLockFlags(cmd, jsonHelp string, stderr io.Writer) *lockFlags {
	f := &lockFlags{cmd: cmd, fs: flag.NewFlagSet("turnstile "+cmd, flag.ContinueOnError)}
	f.fs.SetOutput(stderr)
	f.fs.StringVar(&f.table, "table", "", "the lock table (required)")
	f.fs.BoolVar(&f.json, "json", false, jsonHelp)
	f.aws.register(f.fs)
	return f
}

// require adds a check of a required flag, which parse runs after those added before it.
func (f *lockFlags) require(check func() error) { f.required = append(f.required, check) }

// addLock adds --lock with help; a non-nil missing is the error parse returns when it is not
// given (nil: it may be left out).
func (f *lockFlags) addLock(help string, missing error) {
	f.fs.StringVar(&f.lock, "lock", "", help)
	if missing != nil {
		f.require(func() error {
			if f.lock == "" {
				return missing
			}
			return nil
		})
	}
}

// addStateMachine adds --state-machine with help; with required, parse refuses any value that
// is not a state machine ARN (errNotStateMachine).
func (f *lockFlags) addStateMachine(help string, required bool) {
	f.fs.StringVar(&f.stateMachine, "state-machine", "", help)
	if required {
		f.require(func() error {
			if !isStateMachineArn(f.stateMachine) {
				return fmt.Errorf("%w, got %q", errNotStateMachine, f.stateMachine)
			}
			return nil
		})
	}
}

// addLimit adds --limit, the semaphore's limit, which parse requires (errLimitRequired).
func (f *lockFlags) addLimit() {
	f.fs.IntVar(&f.limit, "limit", 0, "the semaphore's limit (required)")
	f.require(func() error {
		if f.limit < 1 {
			return fmt.Errorf("%w, got %d", errLimitRequired, f.limit)
		}
		return nil
	})
}

// parse parses args (see parseFlags) and checks that there are no arguments, that --table is
// given, then the required flags in the order they were added (addLock, addStateMachine,
// addLimit, require).
func (f *lockFlags) parse(args []string) error {
	if err := parseFlags(f.fs, args); err != nil {
		return err
	}
	if f.fs.NArg() > 0 {
		return fmt.Errorf("%s takes no arguments, got %q", f.cmd, f.fs.Args())
	}
	if f.table == "" {
		return errTableRequired
	}
	for _, check := range f.required {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// lockClients are what a lock command talks to: the lock table through locks, and the AWS
// clients it was made with.
type lockClients struct {
	locks *lock.Client
	ddb   *dynamodb.Client
	sfn   *sfn.Client
}

// client connects to the lock table with the AWS clients the endpoint flags select.
func (f *lockFlags) client(ctx context.Context) (lockClients, error) {
	ddb, sfnClient, err := f.aws.clients(ctx)
	if err != nil {
		return lockClients{}, err
	}
	locks, err := lock.New(f.table, ddb, sfnClient)
	if err != nil {
		return lockClients{}, err
	}
	return lockClients{locks: locks, ddb: ddb, sfn: sfnClient}, nil
}
