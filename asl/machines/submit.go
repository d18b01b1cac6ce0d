package machines

// Environment variables of the submit Lambda (lambdas/submit), set by the Semaphore construct
// (Props.Submissions). The lock table, the machine and the limit are the reconciler's names.
const (
	// EnvSubmitLockName is the semaphore's fixed lock name; empty with a LockNamePath.
	EnvSubmitLockName = "TURNSTILE_LOCK_NAME"
	// EnvSubmitLockNamePath is the semaphore's LockNamePath: the submit function reads each
	// input's lock name there.
	EnvSubmitLockNamePath = "TURNSTILE_LOCK_NAME_PATH"
	// EnvSubmitTTL is how long a submission may wait (a Go duration, e.g. "24h"); empty for
	// lock.DefaultSubmissionTTL.
	EnvSubmitTTL = "TURNSTILE_SUBMISSION_TTL"
	// EnvSubmitPriorityPath is the semaphore's PriorityPath: the submit function reads each
	// input's priority there. Empty without priorities.
	EnvSubmitPriorityPath = "TURNSTILE_PRIORITY_PATH"
	// EnvSubmitPriorityAgeing is the semaphore's PriorityAgeing, set with
	// EnvSubmitPriorityPath.
	EnvSubmitPriorityAgeing = "TURNSTILE_PRIORITY_AGEING"
	// EnvSubmitWeightPath is the semaphore's WeightPath: the submit function reads each
	// input's weight there. Empty without weighted permits.
	EnvSubmitWeightPath = "TURNSTILE_WEIGHT_PATH"
	// EnvSubmitSeveralLocks is "true" for a semaphore with several locks or a total cap: the
	// submit function reads the machine's definition at cold start (DescribeStateMachine) and
	// submits each input to the first lock its execution takes (SemaphoreInputLocks).
	EnvSubmitSeveralLocks = "TURNSTILE_SEVERAL_LOCKS"
)
