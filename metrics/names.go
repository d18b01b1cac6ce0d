package metrics

// Namespace is the CloudWatch namespace of Turnstile's metrics.
const Namespace = "Turnstile"

// Dimensions of Turnstile's metrics. Each data point is published under {DimensionSemaphore}
// and under {DimensionSemaphore, DimensionLockName}.
const (
	// DimensionSemaphore names the semaphore: the Semaphore construct's path in its app
	// (Semaphore.MetricsName), which its functions read from EnvSemaphore.
	DimensionSemaphore = "Semaphore"
	// DimensionLockName names the lock (one key of a per-key semaphore).
	DimensionLockName = "LockName"
)

// EnvSemaphore is the environment variable that gives a function the value of
// DimensionSemaphore; the constructs set it on the hand-off function and the reconciler.
const EnvSemaphore = "TURNSTILE_METRICS_SEMAPHORE"

// Turnstile's metric names, with the unit each is emitted in and who emits it.
const (
	// SlotsHandedOn counts the slots a release handed straight to a waiter (UnitCount; the
	// hand-off function).
	SlotsHandedOn = "SlotsHandedOn"
	// HandOffLatency is how long a release that handed its slot on took, from the hand-off
	// function's invocation until the waiter was woken (UnitMilliseconds).
	HandOffLatency = "HandOffLatency"
	// WaitTime is how long an admitted waiter waited in the queue, from joining it until it
	// was woken with a slot (UnitMilliseconds; the hand-off function, one per admission).
	WaitTime = "WaitTime"
	// AcquireTimeouts counts the waiters whose acquire timed out and that left the queue
	// (UnitCount; the hand-off function).
	AcquireTimeouts = "AcquireTimeouts"
	// SlotsFreedByCleanup counts the slots the cleanup machine freed for executions that
	// failed, timed out or were stopped while holding one (UnitCount; the hand-off function,
	// on the cleanup's release).
	SlotsFreedByCleanup = "SlotsFreedByCleanup"
	// SlotsFreedByReconciler counts the slots the reconciler freed: each is a status-change
	// event that was lost or a cleanup that did not run (UnitCount; the reconciler).
	SlotsFreedByReconciler = "SlotsFreedByReconciler"
	// SlotsHeld is the number of slots held when the reconciler last read the lock
	// (UnitCount, a gauge; the reconciler, per lock, each run).
	SlotsHeld = "SlotsHeld"
	// ExecutionsWaiting is the number of executions in the lock's queue when the reconciler
	// last read it (UnitCount, a gauge; the reconciler).
	ExecutionsWaiting = "ExecutionsWaiting"
	// OldestWait is how long the oldest waiter of the lock had waited when the reconciler last
	// read it, 0 with nobody waiting (UnitMilliseconds, a gauge; the reconciler).
	OldestWait = "OldestWait"
)
