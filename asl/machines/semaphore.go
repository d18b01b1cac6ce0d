package machines

import (
	"fmt"
	"strconv"
	"time"

	"github.com/turnstile-sfn/turnstile/asl"
)

// Semaphore returns the acquire → run → release machine (docs/architecture.md, "The lock: data
// model and semantics") for the given options, or an *OptionError naming the first invalid
// option.
//
// The execution's data, from Prepare Acquire on, is a small object owned by the machine:
// {"lockName", "waitedSeconds"} plus, along the way, "holder" (the read-back), "work" (the
// work's output), "workError" or "lockTableError" (a caught error). The work itself receives
// the execution input unchanged ($$.Execution.Input) and the execution's output is the work's
// output, so the semaphore is invisible to the data flowing through it. Any execution input is
// accepted (with LockNamePath, an object with a non-empty string at that path).
func Semaphore(opts SemaphoreOptions) (*asl.StateMachine, error) {
	o := opts.withDefaults()
	if err := o.validate(); err != nil {
		return nil, err
	}
	if len(o.Locks) > 0 {
		return multiSemaphore(o, nil)
	}
	if o.TotalLimit > 0 {
		return totalSemaphore(o)
	}
	o.Work = withSlotContext(o.Work, o)
	b := builder{o}
	var states asl.States
	start := StatePrepareAcquire
	if o.LockNamePath != "" {
		start = StateCheckLockName
		states = append(states, b.checkLockName()...)
	}
	callback := o.WaitStrategy == WaitCallback
	states = append(states, asl.NamedState{Name: StatePrepareAcquire, State: b.prepareAcquire()})
	if b.o.PriorityPath != "" {
		states = append(states, b.priorityStates()...)
	}
	if b.o.WeightPath != "" {
		states = append(states, b.weightStates()...)
	}
	if callback {
		states = append(states,
			asl.NamedState{Name: StateTakeTicket, State: b.ref().drawTicketTask(StateWaitInQueue)},
			asl.NamedState{Name: StateWaitInQueue, State: b.waitInQueue()},
			asl.NamedState{Name: StateLeaveQueue, State: b.leaveQueue()},
		)
	} else {
		states = append(states,
			asl.NamedState{Name: StateAcquireSlot, State: b.acquireSlot()},
			asl.NamedState{Name: StateCheckHolder, State: b.checkHolder()},
			asl.NamedState{Name: StateSlotHeld, State: b.slotHeld()},
			asl.NamedState{Name: StateCountWait, State: b.countWait()},
			asl.NamedState{Name: StateWaitForSlot, State: b.waitForSlot()},
		)
	}
	states = append(states,
		asl.NamedState{Name: StateAcquireTimedOut, State: b.acquireTimedOut()},
		asl.NamedState{Name: StateRunWork, State: b.runWork()},
	)
	if callback {
		states = append(states,
			asl.NamedState{Name: StateReleaseSlot, State: b.handOff(StateDone, false)},
			asl.NamedState{Name: StateDone, State: b.done()},
			asl.NamedState{Name: StateReleaseAfterFailure, State: b.handOff(StateReraiseWorkError, true)},
		)
	} else {
		states = append(states,
			asl.NamedState{Name: StateReleaseSlot, State: b.release()},
			asl.NamedState{Name: StateCheckReleased, State: b.ref().holderCountTask(StateStillHolding, "$.released", nil)},
			asl.NamedState{Name: StateStillHolding, State: stillHolding(StateDone)},
			asl.NamedState{Name: StateWaitBeforeRelease, State: waitBeforeRelease(StateReleaseSlot)},
			asl.NamedState{Name: StateDone, State: b.done()},
			asl.NamedState{Name: StateReleaseAfterFailure, State: b.releaseAfterFailure()},
		)
	}
	states = append(states,
		asl.NamedState{Name: StateReraiseWorkError, State: b.reraiseWorkError()},
		asl.NamedState{Name: StateWorkFailed, State: &asl.Fail{ErrorPath: "$.workError.Error", CausePath: "$.workError.Cause"}},
		asl.NamedState{Name: StateWorkFailedWithoutCause, State: &asl.Fail{ErrorPath: "$.workError.Error"}},
		asl.NamedState{Name: StateWorkFailedWithoutError, State: &asl.Fail{Error: ErrorWorkFailed, Cause: "the work failed with an error that has no name"}},
		asl.NamedState{Name: StateLockTableError, State: b.lockTableError()},
	)
	states = b.withRateGate(states)
	return b.machine(b.comment(), start, states)
}

// machine is the semaphore machine of states, checked: a Work whose states do not fit in it
// (a name taken, a transition out of the graph) is an OptionError.
func (b builder) machine(comment, start string, states asl.States) (*asl.StateMachine, error) {
	m := &asl.StateMachine{
		Comment:        comment,
		StartAt:        start,
		TimeoutSeconds: asl.Int(seconds(b.o.Timeout)),
		States:         states,
	}
	if err := m.Validate(); err != nil {
		return nil, &OptionError{Field: "Work", Value: strconv.Quote(b.o.Work.StartAt), Problem: "must fit in the semaphore machine", Kind: ErrWork, Cause: err}
	}
	return m, nil
}

// builder builds the states of one semaphore machine from validated options.
type builder struct{ o SemaphoreOptions }

func (b builder) comment() string {
	lock := strconv.Quote(b.o.LockName)
	if b.o.LockNamePath != "" {
		lock = "named by " + b.o.LockNamePath
	}
	return fmt.Sprintf("Turnstile semaphore: take one of %d slots of the lock %s, run the work, give the slot back.", b.o.Limit, lock)
}

// checkLockName returns the Choice that rejects inputs without a usable lock name, and its
// Fail state. Each rule is tested only if the ones before it did not match, so IsString and
// StringEquals never see a missing value.
func (b builder) checkLockName() asl.States {
	p := b.o.LockNamePath
	invalid := func(op asl.Operator, value any) *asl.ChoiceRule {
		return &asl.ChoiceRule{Variable: p, Operator: op, Value: value, Next: StateInvalidLockName}
	}
	return asl.States{
		{Name: StateCheckLockName, State: &asl.Choice{
			Choices: []*asl.ChoiceRule{
				invalid("IsPresent", false),
				invalid("IsString", false),
				invalid("StringEquals", ""),
			},
			Default: StatePrepareAcquire,
		}},
		{Name: StateInvalidLockName, State: &asl.Fail{
			Error: ErrorInvalidLockName,
			Cause: "the execution input has no non-empty string at " + p + ", the lock name",
		}},
	}
}

// prepareAcquire replaces the execution's data with the acquire loop's own.
func (b builder) prepareAcquire() *asl.Pass {
	params := map[string]any{"waitedSeconds": 0}
	if b.o.LockNamePath != "" {
		params["lockName.$"] = b.o.LockNamePath
	} else {
		params["lockName"] = b.o.LockName
	}
	next := StateAcquireSlot
	switch {
	case b.o.PriorityPath != "":
		next = StateCheckPriority
	case b.o.WeightPath != "":
		next = StateCheckWeight
	case b.o.WaitStrategy == WaitCallback:
		next = StateTakeTicket
	}
	return &asl.Pass{Transition: asl.Next(next), Parameters: params}
}

// ref is where the machine's lock tasks find the lock and the execution.
func (b builder) ref() lockRef {
	return lockRef{table: b.o.TableName, lockName: "$.lockName", execution: "$$.Execution.Id"}
}

// acquireSlot takes a free slot (Poll). A cancelled transaction means no free slot, or that
// this execution holds one already (an earlier attempt landed, its reply lost): the read-back
// tells.
func (b builder) acquireSlot() *asl.Task {
	return b.ref().acquireTask(b.o.Limit, StateRunWork, []*asl.Catcher{
		{ErrorEquals: []string{ErrorTransactionCanceled}, Next: StateCheckHolder, ResultPath: asl.NullPath()},
		fatalCatch(),
	})
}

// checkHolder reads back whether this execution holds a slot, and draws the next pause.
func (b builder) checkHolder() *asl.Task {
	return b.ref().holderCountTask(StateSlotHeld, "$.holder", map[string]any{
		"nextWaitSeconds.$": fmt.Sprintf("States.MathRandom(%d, %d)", seconds(b.o.WaitMin), seconds(b.o.WaitMax)),
	})
}

func (b builder) slotHeld() *asl.Choice {
	return &asl.Choice{
		Choices: []*asl.ChoiceRule{
			// Our earlier acquire landed (its reply was lost): we hold a slot.
			{Variable: "$.holder.held", Operator: "NumericGreaterThan", Value: 0, Next: StateRunWork},
			{Variable: "$.waitedSeconds", Operator: "NumericGreaterThanEquals", Value: seconds(b.o.AcquireTimeout), Next: StateAcquireTimedOut},
		},
		Default: StateCountWait,
	}
}

func (b builder) countWait() *asl.Pass {
	return &asl.Pass{
		Transition: asl.Next(StateWaitForSlot),
		Parameters: map[string]any{
			"lockName.$":      "$.lockName",
			"waitedSeconds.$": "States.MathAdd($.waitedSeconds, $.holder.nextWaitSeconds)",
			"waitSeconds.$":   "$.holder.nextWaitSeconds",
		},
	}
}

func (b builder) waitForSlot() *asl.Wait {
	return &asl.Wait{Transition: asl.Next(StateAcquireSlot), SecondsPath: "$.waitSeconds"}
}

func (b builder) acquireTimedOut() *asl.Fail {
	return &asl.Fail{
		Error: ErrorAcquireTimeout,
		Cause: fmt.Sprintf("no slot became free within the acquire timeout of %d seconds", seconds(b.o.AcquireTimeout)),
	}
}

func (b builder) runWork() *asl.Parallel {
	return &asl.Parallel{
		Common:         asl.Common{InputPath: asl.P("$$.Execution.Input")},
		Transition:     asl.Next(StateReleaseSlot),
		Branches:       []*asl.Graph{b.o.Work},
		ResultSelector: map[string]any{"output.$": "$[0]"},
		ResultPath:     asl.P("$.work"),
		Catch: []*asl.Catcher{
			{ErrorEquals: []string{asl.ErrorAll}, Next: StateReleaseAfterFailure, ResultPath: asl.P("$.workError")},
		},
	}
}

// release gives the slot back (Poll). A cancelled transaction means the slot was released
// already (by an earlier attempt whose reply was lost, or by the cleanup), or a conflict with
// another transaction: the read-back tells, and a holder releases again.
func (b builder) release() *asl.Task {
	return b.ref().releaseTask(StateDone, []*asl.Catcher{
		{ErrorEquals: []string{ErrorTransactionCanceled}, Next: StateCheckReleased, ResultPath: asl.NullPath()},
		fatalCatch(),
	})
}

// stillHolding waits and releases again when the read-back at $.released shows the execution
// still holding its slot (its transaction conflicted with another), and goes on (next)
// otherwise.
func stillHolding(next string) *asl.Choice {
	return &asl.Choice{
		Choices: []*asl.ChoiceRule{{Variable: "$.released.held", Operator: "NumericGreaterThan", Value: 0, Next: StateWaitBeforeRelease}},
		Default: next,
	}
}

// waitBeforeRelease pauses a second before the release is tried again.
func waitBeforeRelease(release string) *asl.Wait {
	return &asl.Wait{Transition: asl.Next(release), Seconds: asl.Int(1)}
}

// releaseAfterFailure gives the slot back after a failed work (Poll); any error of its own
// goes on to re-raise the work's error: the cleanup frees the slot of the failed execution.
func (b builder) releaseAfterFailure() *asl.Task {
	return b.ref().releaseTask(StateReraiseWorkError, []*asl.Catcher{
		{ErrorEquals: []string{asl.ErrorAll}, Next: StateReraiseWorkError, ResultPath: asl.NullPath()},
	})
}

func (b builder) done() *asl.Succeed {
	return &asl.Succeed{Common: asl.Common{OutputPath: asl.P("$.work.output")}}
}

// reraiseWorkError sends the caught work error to the Fail state that can repeat it: ErrorPath
// and CausePath must name strings, or the execution would fail with States.Runtime instead.
// Rules are tried in order, so a type test never sees a missing value.
func (b builder) reraiseWorkError() *asl.Choice {
	rule := func(path string, op asl.Operator, next string) *asl.ChoiceRule {
		return &asl.ChoiceRule{Variable: path, Operator: op, Value: false, Next: next}
	}
	return &asl.Choice{
		Choices: []*asl.ChoiceRule{
			rule("$.workError.Error", "IsPresent", StateWorkFailedWithoutError),
			rule("$.workError.Error", "IsString", StateWorkFailedWithoutError),
			rule("$.workError.Cause", "IsPresent", StateWorkFailedWithoutCause),
			rule("$.workError.Cause", "IsString", StateWorkFailedWithoutCause),
		},
		Default: StateWorkFailed,
	}
}

func (b builder) lockTableError() *asl.Fail {
	return &asl.Fail{Error: ErrorLockTable, CausePath: "$.lockTableError.Cause"}
}

// transientRetry retries throttling, 5xx and network errors with full-jitter exponential
// backoff: at most 6 retries, each at most 10 s apart.
func transientRetry() []*asl.Retrier {
	return []*asl.Retrier{{
		ErrorEquals:     TransientDynamoDBErrors(),
		IntervalSeconds: asl.Int(1),
		MaxAttempts:     asl.Int(6),
		BackoffRate:     asl.Float(2),
		MaxDelaySeconds: asl.Int(10),
		JitterStrategy:  asl.JitterFull,
	}}
}

// fatalCatch sends the errors no retry can fix to StateLockTableError, keeping the data.
func fatalCatch() *asl.Catcher {
	return &asl.Catcher{ErrorEquals: FatalDynamoDBErrors(), Next: StateLockTableError, ResultPath: asl.P("$.lockTableError")}
}

// number renders n as a DynamoDB number attribute value.
func number(n int) map[string]any { return map[string]any{"N": strconv.Itoa(n)} }

// seconds converts a whole-second duration to seconds.
func seconds(d time.Duration) int { return int(d / time.Second) }
