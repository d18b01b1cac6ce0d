package machines

// Environment variables of the reconciler Lambda (lambdas/reconciler), set by the Cleanup
// construct. They live here, beside the lock table's data model, because the construct and the
// Lambda must agree on them and neither may import the other.
const (
	// EnvReconcilerLockTable names the lock table to sweep.
	EnvReconcilerLockTable = "TURNSTILE_LOCK_TABLE"
	// EnvReconcilerStateMachineArn is the semaphore machine whose holders the reconciler checks;
	// holders of other machines' executions (a shared table) are left alone.
	EnvReconcilerStateMachineArn = "TURNSTILE_STATE_MACHINE_ARN"
	// EnvReconcilerLimit is the semaphore's limit (a positive integer): with it the reconciler
	// hands a dead holder's slot to the oldest waiter (Callback strategy) within the limit.
	EnvReconcilerLimit = "TURNSTILE_LIMIT"
	// EnvReconcilerMaxHolders bounds the holders checked per run (a positive integer).
	EnvReconcilerMaxHolders = "TURNSTILE_MAX_HOLDERS"
)
