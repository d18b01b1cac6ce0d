package machines

// Names of the semaphore machine's states, in the order they render. Tests, the emulator and
// the cleanup machinery refer to them; a work graph must not reuse them.
const (
	// StateCheckLockName rejects an execution whose input has no usable lock name (only with
	// LockNamePath).
	StateCheckLockName = "Check Lock Name"
	// StateInvalidLockName fails with ErrorInvalidLockName.
	StateInvalidLockName = "Invalid Lock Name"
	// StatePrepareAcquire sets up the acquire loop's data: the lock name and the time waited.
	StatePrepareAcquire = "Prepare Acquire"
	// StateAcquireSlot is the transaction that takes a free slot (Poll strategy).
	StateAcquireSlot = "Acquire Slot"
	// StateCheckHolder reads back, strongly consistent, whether this execution already holds a
	// slot (its earlier write landed but the reply was lost).
	StateCheckHolder = "Check Holder"
	// StateSlotHeld decides: go on with the slot, give up, or wait and try again.
	StateSlotHeld = "Slot Held?"
	// StateCountWait draws the next pause and adds it to the time waited.
	StateCountWait = "Count Wait"
	// StateWaitForSlot pauses before the next acquire attempt.
	StateWaitForSlot = "Wait For Slot"
	// StateTakeTicket draws the execution's ticket, its place in the lock's queue (Callback
	// strategy).
	StateTakeTicket = "Take Ticket"
	// StateWaitInQueue parks the execution in the lock's queue on a task token until it holds
	// a slot (Callback strategy).
	StateWaitInQueue = "Wait In Queue"
	// StateLeaveQueue removes the execution from the queue before it gives up (Callback
	// strategy).
	StateLeaveQueue = "Leave Queue"
	// StateAcquireTimedOut fails with ErrorAcquireTimeout.
	StateAcquireTimedOut = "Acquire Timed Out"
	// StateRunWork is the Parallel state that runs the work.
	StateRunWork = "Run Work"
	// StateReleaseSlot gives the slot back after the work succeeded.
	StateReleaseSlot = "Release Slot"
	// StateCheckReleased reads back whether a release whose transaction was cancelled left the
	// execution holding (Poll strategy).
	StateCheckReleased = "Check Released"
	// StateStillHolding goes on, or releases again when the execution still holds its slot.
	StateStillHolding = "Still Holding?"
	// StateWaitBeforeRelease pauses before a release is tried again (its transaction conflicted
	// with another one).
	StateWaitBeforeRelease = "Wait Before Release"
	// StateDone ends the execution with the work's output.
	StateDone = "Done"
	// StateReleaseAfterFailure gives the slot back after the work failed.
	StateReleaseAfterFailure = "Release Slot After Failure"
	// StateReraiseWorkError picks the Fail state that repeats the work's error: a caught error
	// may lack a cause (a Fail state without one) or even a name.
	StateReraiseWorkError = "Re-raise Work Error"
	// StateWorkFailed fails the execution with the work's own error and cause.
	StateWorkFailed = "Work Failed"
	// StateWorkFailedWithoutCause fails with the work's own error, which had no cause.
	StateWorkFailedWithoutCause = "Work Failed Without Cause"
	// StateWorkFailedWithoutError fails with ErrorWorkFailed: the work's error had no name.
	StateWorkFailedWithoutError = "Work Failed Without Error"
	// StateLockTableError fails with ErrorLockTable.
	StateLockTableError = "Lock Table Error"
)

// StateNames returns the names of every state a semaphore machine may have, in rendering order.
func StateNames() []string {
	return []string{
		StateCheckLockName, StateInvalidLockName, StateReservedLockName, StatePrepareAcquire,
		StateCheckPriority, StateDefaultPriority, StateReadPriority, StateInvalidPriority,
		StateCheckWeight, StateDefaultWeight, StateReadWeight, StateInvalidWeight, StateTakeTicket, StateAcquireSlot,
		StateCheckHolder, StateSlotHeld, StateCountWait, StateWaitForSlot,
		StateWaitInQueue, StateLeaveQueue, StateAcquireTimedOut,
		StateTakeRatePermit, StateRestartRate, StateRetakeRatePermit, StateWaitForRateSlot,
		StateRunWork, StateReleaseSlot, StateCheckReleased, StateStillHolding, StateWaitBeforeRelease, StateDone, StateReleaseAfterFailure,
		StateReraiseWorkError,
		StateWorkFailed, StateWorkFailedWithoutCause, StateWorkFailedWithoutError, StateLockTableError,
		StateCheckLockNames, StatePrepareLocks, StateAcquireLocks, StateLockTableErrorWhileAcquiring,
		StateReleaseLocks, StateReleaseLocksAfterFailure, StateReleaseGate, StateForgetGate,
	}
}

// Error names the semaphore machine fails with, for ErrorEquals and for callers that read an
// execution's error.
const (
	// ErrorAcquireTimeout: no slot became free within the acquire timeout.
	ErrorAcquireTimeout = "Turnstile.AcquireTimeout"
	// ErrorLockTable: the lock table rejected a request that no retry can fix (invalid request,
	// item over 400 KB, missing table, access denied). The cause is DynamoDB's.
	ErrorLockTable = "Turnstile.LockTableError"
	// ErrorInvalidLockName: the execution input has no non-empty string at LockNamePath.
	ErrorInvalidLockName = "Turnstile.InvalidLockName"
	// ErrorWorkFailed: the work failed with an error that had no name (a Fail state with
	// neither Error nor ErrorPath). Named errors of the work are re-raised as they are.
	ErrorWorkFailed = "Turnstile.WorkFailed"
)
