package machines

import (
	"fmt"

	"github.com/turnstile-sfn/turnstile/asl"
)

// RedriveGuard returns the machine that keeps a redriven semaphore execution from running its
// work without a slot. Its input is the EventBridge status-change event of the execution
// turning RUNNING again with a redriveCount above 0.
//
// A redrive resumes the execution at the step that did not complete, often inside the work,
// without acquiring again, while the cleanup may have freed its slot. The guard:
//
//  1. rejects a malformed event (ErrorMalformedEvent) and leaves an execution that is no
//     longer RUNNING to the cleanup;
//  2. re-acquires a slot for the execution with the acquire's own condition (below the limit,
//     not a holder already), so a free slot is simply taken back;
//  3. if the condition fails, reads back whether the execution still holds its slot (its slot
//     was never freed: nothing to do), and otherwise stops the execution with
//     ErrorRedriveWithoutSlot and a cause that says why and what to do.
func RedriveGuard(opts CleanupOptions) (*asl.StateMachine, error) {
	opts, _ = opts.withTotalLocks()
	if len(opts.Locks) > 0 {
		o, err := opts.validateLocks()
		if err != nil {
			return nil, err
		}
		return multiRedriveGuard(o)
	}
	o, err := opts.validate(true)
	if err != nil {
		return nil, err
	}
	states := append(describedExecution(StateStillRunningGuard, firstLockNameState(o, StatePrepareRelease), StateNotRunning),
		asl.NamedState{Name: StateNotRunning, State: &asl.Succeed{}})
	states = append(states, recoverLockName(o, StatePrepareRelease, StateNotRunning)...)
	states = append(states,
		asl.NamedState{Name: StatePrepareRelease, State: prepareHolder(o, StateReacquireSlot)},
		asl.NamedState{Name: StateReacquireSlot, State: reacquireSlot(o)},
		asl.NamedState{Name: StateSlotReacquired, State: &asl.Succeed{}},
		asl.NamedState{Name: StateCheckRedrivenHolder, State: checkRedrivenHolder(o)},
		asl.NamedState{Name: StateHoldsSlot, State: &asl.Choice{
			Choices: []*asl.ChoiceRule{{Variable: "$.holder.held", Operator: "NumericGreaterThan", Value: 0, Next: StateAlreadyHolder}},
			Default: StateStopRedriven,
		}},
		asl.NamedState{Name: StateAlreadyHolder, State: &asl.Succeed{}},
		asl.NamedState{Name: StateStopRedriven, State: stopRedriven(o)},
		asl.NamedState{Name: StateStopped, State: &asl.Succeed{}},
		asl.NamedState{Name: StateLockTableError, State: &asl.Fail{Error: ErrorLockTable, CausePath: "$.lockTableError.Cause"}},
	)
	m := &asl.StateMachine{
		Comment: fmt.Sprintf("Turnstile redrive guard: a redriven execution takes back one of the %d slots of %s, or is stopped.", o.Limit, lockDescription(o)),
		StartAt: StateCheckEvent,
		States:  states,
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("machines: the redrive guard is invalid: %w", err)
	}
	return m, nil
}

// reacquireSlot is the semaphore's acquire, for the redriven execution named in the data.
func reacquireSlot(o CleanupOptions) *asl.Task {
	return cleanupRef(o).acquireTask(o.Limit, StateSlotReacquired, []*asl.Catcher{
		{ErrorEquals: []string{ErrorTransactionCanceled}, Next: StateCheckRedrivenHolder, ResultPath: asl.NullPath()},
		fatalCatch(),
	})
}

// checkRedrivenHolder reads back, strongly consistent, whether the redriven execution holds a
// slot.
func checkRedrivenHolder(o CleanupOptions) *asl.Task {
	return cleanupRef(o).holderCountTask(StateHoldsSlot, "$.holder", nil)
}

// stopRedriven stops the execution, naming the reason in its error and cause.
func stopRedriven(o CleanupOptions) *asl.Task {
	return &asl.Task{
		Transition: asl.Next(StateStopped),
		Resource:   ResourceStopExecution,
		Parameters: map[string]any{
			"ExecutionArn.$": "$.executionArn",
			"Error":          ErrorRedriveWithoutSlot,
			"Cause": fmt.Sprintf("the execution was redriven after its slot of %s was freed, and all %d slots are taken: "+
				"it was stopped so that its work does not run without a slot; start a new execution instead", lockDescription(o), o.Limit),
		},
		ResultPath: asl.NullPath(),
		Retry: []*asl.Retrier{{
			ErrorEquals:     append([]string(nil), transientSfnErrors...),
			IntervalSeconds: asl.Int(1),
			MaxAttempts:     asl.Int(6),
			BackoffRate:     asl.Float(2),
			MaxDelaySeconds: asl.Int(10),
			JitterStrategy:  asl.JitterFull,
		}},
	}
}
