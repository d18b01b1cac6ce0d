package machines

import "github.com/turnstile-sfn/turnstile/asl"

// Names of the states inside the Maps of a semaphore with several locks that polls
// (WaitPoll), besides the single-lock machine's, and of its cleanup's.
const (
	// StateSlotTaken ends an acquire iteration: the execution holds the lock's slot.
	StateSlotTaken = "Slot Taken"
	// StateSlotReleased ends a release iteration.
	StateSlotReleased = "Slot Released"
	// StateSlotNotHeld ends a release iteration after a failure whose release was refused: the
	// execution did not hold that lock (or the cleanup frees it).
	StateSlotNotHeld = "Slot Not Held"
	// StateLockTableErrorWhileReleasing fails a release iteration with ErrorLockTable.
	StateLockTableErrorWhileReleasing = "Lock Table Error While Releasing"
)

// limitFromData makes an acquire transaction compare the count with the lock's limit in the
// data ($.limit) rather than a fixed one.
func limitFromData(t *asl.Task) *asl.Task {
	items := t.Parameters.(map[string]any)["TransactItems"].([]any)
	values := items[0].(map[string]any)["Update"].(map[string]any)["ExpressionAttributeValues"].(map[string]any)
	values[":limit"] = map[string]any{"N.$": "States.Format('{}', $.limit)"}
	return t
}

// pollAcquire is the acquire iteration of one lock under WaitPoll: the single-lock Poll states,
// for the lock in the data.
func (b builder) pollAcquire() asl.Graph {
	acquire := limitFromData(b.acquireSlot())
	acquire.Transition = asl.Next(StateSlotTaken)
	acquire.Catch[1].Next = StateLockTableErrorWhileAcquiring
	check := b.checkHolder()
	check.Catch[0].Next = StateLockTableErrorWhileAcquiring
	held := b.slotHeld()
	held.Choices[0].Next = StateSlotTaken
	count := b.countWait()
	count.Parameters.(map[string]any)["limit.$"] = "$.limit"
	return asl.Graph{StartAt: StateAcquireSlot, States: asl.States{
		{Name: StateAcquireSlot, State: acquire},
		{Name: StateCheckHolder, State: check},
		{Name: StateSlotHeld, State: held},
		{Name: StateCountWait, State: count},
		{Name: StateWaitForSlot, State: b.waitForSlot()},
		{Name: StateSlotTaken, State: &asl.Succeed{}},
		{Name: StateAcquireTimedOut, State: b.acquireTimedOut()},
		{Name: StateLockTableErrorWhileAcquiring, State: b.lockTableError()},
	}}
}

// pollRelease is the release iteration of one lock under WaitPoll for ref's holder: the
// single-lock Poll release and its read-back, named release.
func pollRelease(ref lockRef, release string) asl.Graph {
	task := ref.releaseTask(StateSlotReleased, []*asl.Catcher{
		{ErrorEquals: []string{ErrorTransactionCanceled}, Next: StateCheckReleased, ResultPath: asl.NullPath()},
		fatalCatch(),
	})
	task.Catch[1].Next = StateLockTableErrorWhileReleasing
	check := ref.holderCountTask(StateStillHolding, "$.released", nil)
	check.Catch[0].Next = StateLockTableErrorWhileReleasing
	return asl.Graph{StartAt: release, States: asl.States{
		{Name: release, State: task},
		{Name: StateCheckReleased, State: check},
		{Name: StateStillHolding, State: stillHolding(StateSlotReleased)},
		{Name: StateWaitBeforeRelease, State: waitBeforeRelease(release)},
		{Name: StateSlotReleased, State: &asl.Succeed{}},
		{Name: StateLockTableErrorWhileReleasing, State: &asl.Fail{Error: ErrorLockTable, CausePath: "$.lockTableError.Cause"}},
	}}
}

// pollReleaseAfterFailure is the release iteration of one lock after a failure under WaitPoll:
// one try; a refusal means the lock was not held (or the cleanup frees it).
func (b builder) pollReleaseAfterFailure() asl.Graph {
	task := b.releaseAfterFailure()
	task.Transition = asl.End()
	task.Catch[0].Next = StateSlotNotHeld
	return asl.Graph{StartAt: StateReleaseAfterFailure, States: asl.States{
		{Name: StateReleaseAfterFailure, State: task},
		{Name: StateSlotNotHeld, State: &asl.Succeed{}},
	}}
}
