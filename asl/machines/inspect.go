package machines

import (
	"strconv"

	"github.com/turnstile-sfn/turnstile/asl"
)

// SemaphoreLimit reads the limit back from a definition Semaphore generated: the ":limit" value
// of its acquire step. ok is false when m is not such a semaphore machine (it has no acquire
// step, or no work step, or the limit is not a positive integer).
func SemaphoreLimit(m *asl.StateMachine) (limit int, ok bool) {
	if m.States.Get(StateRunWork) == nil {
		return 0, false
	}
	acquire, isTask := m.States.Get(StateAcquireSlot).(*asl.Task)
	if !isTask {
		return 0, false
	}
	params, _ := acquire.Parameters.(map[string]any)
	values, _ := params["ExpressionAttributeValues"].(map[string]any)
	attr, _ := values[":limit"].(map[string]any)
	n, _ := attr["N"].(string)
	limit, err := strconv.Atoi(n)
	if err != nil || limit < 1 {
		return 0, false
	}
	return limit, true
}

// SemaphoreLockNamePath reads back where a semaphore machine Semaphore generated takes its lock
// name from: its LockNamePath, or "" for a machine with a fixed LockName (or no semaphore).
func SemaphoreLockNamePath(m *asl.StateMachine) string {
	prepare, ok := m.States.Get(StatePrepareAcquire).(*asl.Pass)
	if !ok {
		return ""
	}
	params, _ := prepare.Parameters.(map[string]any)
	p, _ := params["lockName.$"].(string)
	return p
}
