package machines

// Names of the cleanup machine's and the redrive guard's states. Both machines start from a Step
// Functions status-change event delivered by EventBridge.
const (
	// StateCheckEvent rejects an event without a string detail.executionArn.
	StateCheckEvent = "Check Event"
	// StateMalformedEvent fails with ErrorMalformedEvent.
	StateMalformedEvent = "Malformed Event"
	// StateDescribeExecution asks Step Functions for the execution's current status and input.
	StateDescribeExecution = "Describe Execution"
	// StateExecutionNotFound fails with ErrorExecutionNotFound.
	StateExecutionNotFound = "Execution Not Found"
	// StateStillRunning (cleanup) ends without releasing: the event is stale, the execution
	// runs (it was redriven).
	StateStillRunning = "Still Running?"
	// StateNothingToRelease ends the cleanup without touching the table.
	StateNothingToRelease = "Nothing To Release"
	// StateReadLockName parses the execution input to find the lock name (LockNamePath only).
	StateReadLockName = "Read Lock Name"
	// StateCheckRecoveredLockName tests the lock name found in the input (LockNamePath only).
	StateCheckRecoveredLockName = "Check Recovered Lock Name"
	// StatePrepareRelease sets up the holder (the execution ARN) and the lock name.
	StatePrepareRelease = "Prepare Release"
	// StateReleaseHolder is the conditional release of the dead execution's holder.
	StateReleaseHolder = "Release Holder"
	// StateReleased ends the cleanup after a release.
	StateReleased = "Released"
	// StateAlreadyReleased ends the cleanup when the execution held no slot: the semaphore
	// released it, an earlier cleanup did, or it never acquired one.
	StateAlreadyReleased = "Already Released"
	// StateNotRunning (redrive guard) ends the guard: the execution stopped again, the cleanup
	// takes over.
	StateNotRunning = "Not Running"
	// StateStillRunningGuard (redrive guard) goes on only while the execution runs.
	StateStillRunningGuard = "Running?"
	// StateReacquireSlot takes a slot for the redriven execution with the acquire's condition.
	StateReacquireSlot = "Reacquire Slot"
	// StateSlotReacquired ends the guard: the redriven execution holds a slot again.
	StateSlotReacquired = "Slot Reacquired"
	// StateCheckRedrivenHolder reads back whether the redriven execution holds a slot already.
	StateCheckRedrivenHolder = "Check Redriven Holder"
	// StateHoldsSlot decides: the execution holds a slot (done) or it must be stopped.
	StateHoldsSlot = "Holds Slot?"
	// StateAlreadyHolder ends the guard: the execution still held its slot.
	StateAlreadyHolder = "Already Holds Slot"
	// StateStopRedriven stops the redriven execution with ErrorRedriveWithoutSlot.
	StateStopRedriven = "Stop Redriven Execution"
	// StateStopped ends the guard after the stop.
	StateStopped = "Stopped"
)

// Error names of the cleanup machine and the redrive guard.
const (
	// ErrorMalformedEvent: the input is not a status-change event with a string
	// detail.executionArn. Nothing is released.
	ErrorMalformedEvent = "Turnstile.MalformedEvent"
	// ErrorExecutionNotFound: DescribeExecution does not know the event's execution. Nothing is
	// released (the reconciler frees holders of executions that no longer exist).
	ErrorExecutionNotFound = "Turnstile.ExecutionNotFound"
	// ErrorRedriveWithoutSlot is the error a redriven execution is stopped with when every slot
	// is taken: it would otherwise run its work without one.
	ErrorRedriveWithoutSlot = "Turnstile.RedriveWithoutSlot"
)

// Resources and errors of the Step Functions AWS SDK integration the cleanup uses.
const (
	// ResourceDescribeExecution is aws-sdk:sfn:describeExecution.
	ResourceDescribeExecution = "arn:aws:states:::aws-sdk:sfn:describeExecution"
	// ResourceStopExecution is aws-sdk:sfn:stopExecution.
	ResourceStopExecution = "arn:aws:states:::aws-sdk:sfn:stopExecution"
	// ErrorSfnExecutionDoesNotExist is raised by describeExecution for an unknown execution.
	ErrorSfnExecutionDoesNotExist = "Sfn.ExecutionDoesNotExistException"
	// ExecutionStatusRunning is the status of a running execution.
	ExecutionStatusRunning = "RUNNING"
)

// transientSfnErrors are the Step Functions API errors a later attempt can fix.
var transientSfnErrors = []string{
	"Sfn.ThrottlingException",
	"Sfn.SfnException",
	"Sfn.SdkClientException",
	"Sfn.InternalServerException",
}
