package machines

import (
	"fmt"
	"strconv"

	"github.com/turnstile-sfn/turnstile/asl"
)

// CleanupOptions describes the cleanup machine and the redrive guard of one semaphore: how to
// find the lock a dead or redriven execution holds. Exactly one of LockName and LockNamePath is
// set, as in the semaphore's SemaphoreOptions.
type CleanupOptions struct {
	// LockName is the semaphore's fixed lock name.
	LockName string
	// LockNamePath is the semaphore's LockNamePath: the lock name is read from the execution's
	// input (DescribeExecution returns it as text, parsed with States.StringToJson).
	LockNamePath string
	// Limit is the semaphore's limit: the redrive guard re-acquires below it only, and the
	// hand-off function hands a slot on only within it. Required by RedriveGuard, and by
	// Cleanup with HandOffFunctionArn.
	Limit int
	// TableName is the lock table's name as written in the definition. Default:
	// Placeholder(SubstitutionTableName).
	TableName string
	// Locks are the semaphore's Locks, in place of LockName and LockNamePath: the cleanup
	// releases each lock the execution's input names (through HandOffFunctionArn when set),
	// and the redrive guard stops every redriven execution. Default: none, a single lock.
	Locks []LockSpec
	// TotalLimit and TotalLockName are the semaphore's (with LockNamePath): the cleanup
	// releases the key's lock and the total lock, and the redrive guard stops every redriven
	// execution. Default: 0 and DefaultTotalLockName.
	TotalLimit    int
	TotalLockName string
	// HandOffFunctionArn, set when the semaphore waits with WaitCallback, makes the cleanup
	// release through the hand-off function: the slot goes to the oldest waiter, and an
	// execution that died while parked leaves the queue. Write it as
	// Placeholder(SubstitutionHandOffFunctionArn) for a deployed machine. Default: "", a plain
	// conditional release (WaitPoll).
	HandOffFunctionArn string
}

// validate checks the lock name options (and the limit when withLimit) and fills in defaults.
func (o CleanupOptions) validate(withLimit bool) (CleanupOptions, error) {
	if o.TableName == "" {
		o.TableName = Placeholder(SubstitutionTableName)
	}
	sem := SemaphoreOptions{LockName: o.LockName, LockNamePath: o.LockNamePath, Limit: o.Limit}
	if err := sem.checkLockName(); err != nil {
		err.Options = "CleanupOptions"
		return o, err
	}
	if withLimit {
		if err := sem.checkLimit(); err != nil {
			err.Options = "CleanupOptions"
			return o, err
		}
	}
	return o, nil
}

// Cleanup returns the machine that frees the slot of a semaphore execution that ended without
// releasing it (FAILED, TIMED_OUT, ABORTED). Its input is the EventBridge status-change event.
//
//  1. An event without a string detail.executionArn fails with ErrorMalformedEvent.
//  2. DescribeExecution: an execution that is RUNNING again (redriven; the event is stale or
//     out of order) is left alone; an unknown one fails with ErrorExecutionNotFound.
//  3. The lock name is the fixed one, or read from the execution's input at LockNamePath (an
//     input without one never acquired: nothing to release).
//  4. The release transaction deletes the execution's holder item and counts one holder less
//     (with a hand-off function, that function's release hands the slot to the oldest waiter);
//     "not a holder" (released already, or never acquired) is success, so duplicated events
//     are no-ops.
func Cleanup(opts CleanupOptions) (*asl.StateMachine, error) {
	opts, total := opts.withTotalLocks()
	if len(opts.Locks) > 0 {
		o, err := opts.validateLocks()
		if err != nil {
			return nil, err
		}
		return multiCleanup(o, total)
	}
	o, err := opts.validate(opts.HandOffFunctionArn != "") // the hand-off needs the limit
	if err != nil {
		return nil, err
	}
	states := append(describedExecution(StateStillRunning, StateNothingToRelease, firstLockNameState(o, StatePrepareRelease)),
		asl.NamedState{Name: StateNothingToRelease, State: &asl.Succeed{}})
	states = append(states, recoverLockName(o, StatePrepareRelease, StateNothingToRelease)...)
	states = append(states,
		asl.NamedState{Name: StatePrepareRelease, State: prepareHolder(o, StateReleaseHolder)},
		asl.NamedState{Name: StateReleaseHolder, State: releaseHolder(o)},
		asl.NamedState{Name: StateReleased, State: &asl.Succeed{}},
	)
	if o.HandOffFunctionArn == "" {
		// The hand-off function tells "not a holder" itself; a cancelled release transaction
		// means it unless the read-back finds the execution still holding.
		states = append(states,
			asl.NamedState{Name: StateCheckReleased, State: cleanupRef(o).holderCountTask(StateStillHolding, "$.released", nil)},
			asl.NamedState{Name: StateStillHolding, State: stillHolding(StateAlreadyReleased)},
			asl.NamedState{Name: StateWaitBeforeRelease, State: waitBeforeRelease(StateReleaseHolder)},
			asl.NamedState{Name: StateAlreadyReleased, State: &asl.Succeed{}},
		)
	}
	states = append(states,
		asl.NamedState{Name: StateLockTableError, State: &asl.Fail{Error: ErrorLockTable, CausePath: "$.lockTableError.Cause"}},
	)
	m := &asl.StateMachine{
		Comment: "Turnstile cleanup: free the slot of " + lockDescription(o) + " held by an execution that ended without releasing it.",
		StartAt: StateCheckEvent,
		States:  states,
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("machines: the cleanup machine is invalid: %w", err)
	}
	return m, nil
}

// lockDescription names the lock in a comment.
func lockDescription(o CleanupOptions) string {
	if o.LockNamePath != "" {
		return "the lock named by " + o.LockNamePath
	}
	return "the lock " + strconv.Quote(o.LockName)
}

// checkEvent rejects events without a string detail.executionArn; rules are tried in order, so
// IsString never sees a missing value.
// describedExecution are the first states of the cleanup and the redrive guard: check the
// status-change event, describe its execution, and the Choice named choice that goes on to
// running while the execution is RUNNING, else to otherwise.
func describedExecution(choice, running, otherwise string) asl.States {
	return asl.States{
		checkEvent(),
		malformedEvent(),
		describeExecution(choice),
		executionNotFound(),
		{Name: choice, State: &asl.Choice{
			Choices: []*asl.ChoiceRule{{Variable: "$.execution.status", Operator: "StringEquals", Value: ExecutionStatusRunning, Next: running}},
			Default: otherwise,
		}},
	}
}

func checkEvent() asl.NamedState {
	return asl.NamedState{Name: StateCheckEvent, State: &asl.Choice{
		Choices: []*asl.ChoiceRule{
			{Variable: "$.detail.executionArn", Operator: "IsPresent", Value: false, Next: StateMalformedEvent},
			{Variable: "$.detail.executionArn", Operator: "IsString", Value: false, Next: StateMalformedEvent},
		},
		Default: StateDescribeExecution,
	}}
}

func malformedEvent() asl.NamedState {
	return asl.NamedState{Name: StateMalformedEvent, State: &asl.Fail{
		Error: ErrorMalformedEvent,
		Cause: "the input is not a Step Functions status-change event with a string detail.executionArn; nothing was released",
	}}
}

// describeExecution reads the execution's status and input into $.execution.
func describeExecution(next string) asl.NamedState {
	return asl.NamedState{Name: StateDescribeExecution, State: &asl.Task{
		Transition: asl.Next(next),
		Resource:   ResourceDescribeExecution,
		Parameters: map[string]any{"ExecutionArn.$": "$.detail.executionArn"},
		ResultSelector: map[string]any{
			"executionArn.$": "$.ExecutionArn",
			"status.$":       "$.Status",
			"input.$":        "$.Input",
		},
		ResultPath: asl.P("$.execution"),
		Retry: []*asl.Retrier{{
			ErrorEquals:     append([]string(nil), transientSfnErrors...),
			IntervalSeconds: asl.Int(1),
			MaxAttempts:     asl.Int(6),
			BackoffRate:     asl.Float(2),
			MaxDelaySeconds: asl.Int(10),
			JitterStrategy:  asl.JitterFull,
		}},
		Catch: []*asl.Catcher{{ErrorEquals: []string{ErrorSfnExecutionDoesNotExist}, Next: StateExecutionNotFound}},
	}}
}

func executionNotFound() asl.NamedState {
	return asl.NamedState{Name: StateExecutionNotFound, State: &asl.Fail{
		Error: ErrorExecutionNotFound,
		Cause: "DescribeExecution does not know the event's execution; nothing was released",
	}}
}

// firstLockNameState is where the lock name is found: read from the input, or fixed.
func firstLockNameState(o CleanupOptions, fixed string) string {
	if o.LockNamePath != "" {
		return StateReadLockName
	}
	return fixed
}

// recoverLockName returns, for LockNamePath, the states that parse the execution's input and
// check the lock name in it: found → next, missing (the execution failed before acquiring) →
// none. With a fixed lock name there is nothing to recover.
func recoverLockName(o CleanupOptions, next, none string) asl.States {
	if o.LockNamePath == "" {
		return nil
	}
	path := inputLockNamePath(o)
	missing := func(op asl.Operator, value any) *asl.ChoiceRule {
		return &asl.ChoiceRule{Variable: path, Operator: op, Value: value, Next: none}
	}
	return asl.States{
		{Name: StateReadLockName, State: &asl.Pass{
			Transition: asl.Next(StateCheckRecoveredLockName),
			Parameters: map[string]any{"value.$": "States.StringToJson($.execution.input)"},
			ResultPath: asl.P("$.input"),
		}},
		{Name: StateCheckRecoveredLockName, State: &asl.Choice{
			Choices: []*asl.ChoiceRule{missing("IsPresent", false), missing("IsString", false), missing("StringEquals", "")},
			Default: next,
		}},
	}
}

// inputLockNamePath is LockNamePath inside the parsed input at $.input.value.
func inputLockNamePath(o CleanupOptions) string { return "$.input.value" + o.LockNamePath[1:] }

// prepareHolder replaces the data with the holder (the execution's ARN) and its lock name.
func prepareHolder(o CleanupOptions, next string) *asl.Pass {
	params := map[string]any{"executionArn.$": "$.execution.executionArn"}
	if o.LockNamePath != "" {
		params["lockName.$"] = inputLockNamePath(o)
	} else {
		params["lockName"] = o.LockName
	}
	return &asl.Pass{Transition: asl.Next(next), Parameters: params}
}

// cleanupRef is where the cleanup's and the redrive guard's lock tasks find the lock and the
// execution: in the data prepareHolder leaves.
func cleanupRef(o CleanupOptions) lockRef {
	return lockRef{table: o.TableName, lockName: "$.lockName", execution: "$.executionArn"}
}

// releaseHolder is the semaphore's conditional release, for the holder named in the data; with
// a hand-off function, that function's release.
func releaseHolder(o CleanupOptions) *asl.Task {
	if o.HandOffFunctionArn != "" {
		return &asl.Task{
			Transition: asl.Next(StateReleased),
			Resource:   ResourceLambdaInvoke,
			Parameters: map[string]any{
				"FunctionName": o.HandOffFunctionArn,
				"Payload": map[string]any{
					"action":         HandOffActionRelease,
					"lockName.$":     "$.lockName",
					"limit":          o.Limit,
					"executionArn.$": "$.executionArn",
					"ifHeld":         true,
				},
			},
			ResultPath: asl.NullPath(),
			Retry:      handOffRetry(),
			Catch:      []*asl.Catcher{{ErrorEquals: []string{ErrorLockTable}, Next: StateLockTableError, ResultPath: asl.P("$.lockTableError")}},
		}
	}
	return cleanupRef(o).releaseTask(StateReleased, []*asl.Catcher{
		{ErrorEquals: []string{ErrorTransactionCanceled}, Next: StateCheckReleased, ResultPath: asl.NullPath()},
		fatalCatch(),
	})
}
