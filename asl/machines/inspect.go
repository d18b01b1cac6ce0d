package machines

import (
	"fmt"
	"strconv"

	"github.com/turnstile-sfn/turnstile/asl"
)

// SemaphoreLimit reads the limit back from a definition Semaphore generated: the ":limit"
// value of its acquire transaction (Poll), or the "limit" of its park (Callback). ok is false
// when m is not such a semaphore machine (it has neither, or no work step, or the limit is not
// a positive integer).
func SemaphoreLimit(m *asl.StateMachine) (limit int, ok bool) {
	if m.States.Get(StateRunWork) == nil {
		return 0, false
	}
	var value any
	if acquire, isTask := m.States.Get(StateAcquireSlot).(*asl.Task); isTask {
		params, _ := acquire.Parameters.(map[string]any)
		items, _ := params["TransactItems"].([]any)
		if len(items) > 0 {
			first, _ := items[0].(map[string]any)
			update, _ := first["Update"].(map[string]any)
			values, _ := update["ExpressionAttributeValues"].(map[string]any)
			attr, _ := values[":limit"].(map[string]any)
			value = attr["N"]
		}
	} else if park, isTask := m.States.Get(StateWaitInQueue).(*asl.Task); isTask {
		params, _ := park.Parameters.(map[string]any)
		payload, _ := params["Payload"].(map[string]any)
		value = payload["limit"]
	}
	limit, err := strconv.Atoi(fmt.Sprint(value))
	if err != nil || limit < 1 {
		return 0, false
	}
	return limit, true
}

// SemaphoreTableName reads back the lock table a semaphore machine Semaphore generated uses:
// the TableName of its ticket draw (Callback) or of its acquire transaction (Poll), at the top
// or, with several locks or a total cap, inside its Acquire Locks Map, as written in the
// definition (a deployed or emulated definition has it resolved). "" when m is no such machine.
func SemaphoreTableName(m *asl.StateMachine) string {
	states := m.States
	if acquire, ok := states.Get(StateAcquireLocks).(*asl.Map); ok && acquire.Processor() != nil {
		states = acquire.Processor().Graph.States
	}
	var params map[string]any
	if draw, ok := states.Get(StateTakeTicket).(*asl.Task); ok {
		params, _ = draw.Parameters.(map[string]any)
	} else if acquire, ok := states.Get(StateAcquireSlot).(*asl.Task); ok {
		tx, _ := acquire.Parameters.(map[string]any)
		items, _ := tx["TransactItems"].([]any)
		if len(items) > 0 {
			first, _ := items[0].(map[string]any)
			params, _ = first["Update"].(map[string]any)
		}
	}
	table, _ := params["TableName"].(string)
	return table
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

// SemaphoreLockName reads back the fixed lock name of a semaphore machine Semaphore generated
// with LockName, or "" for one with a LockNamePath (or no semaphore).
func SemaphoreLockName(m *asl.StateMachine) string {
	prepare, ok := m.States.Get(StatePrepareAcquire).(*asl.Pass)
	if !ok {
		return ""
	}
	params, _ := prepare.Parameters.(map[string]any)
	name, _ := params["lockName"].(string)
	return name
}
