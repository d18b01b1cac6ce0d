package machines

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/lock"
)

// DefaultTotalLockName is the name of the lock that counts the executions of all the keys of a
// semaphore with a TotalLimit. Semaphores that share a lock table and each have a TotalLimit
// need names of their own (TotalLockName).
const DefaultTotalLockName = "#total"

// checkTotal checks TotalLimit and TotalLockName, when TotalLimit is set.
func (o SemaphoreOptions) checkTotal() *OptionError {
	if o.TotalLimit == 0 && o.TotalLockName == "" {
		return nil
	}
	switch {
	case o.TotalLimit < 1 || o.TotalLimit > MaxLimit:
		return &OptionError{Field: "TotalLimit", Value: o.TotalLimit, Problem: fmt.Sprintf("must be 1 to MaxLimit (%d), with TotalLockName", MaxLimit), Kind: ErrLimit}
	case o.LockNamePath == "":
		return &OptionError{Field: "TotalLimit", Value: o.TotalLimit, Problem: "needs LockNamePath: it caps the executions of all keys together", Kind: ErrLockName}
	case o.WaitStrategy != WaitCallback:
		return &OptionError{Field: "WaitStrategy", Value: strconv.Quote(string(o.WaitStrategy)), Problem: `must be "Callback" with TotalLimit`, Kind: ErrWaitStrategy}
	case o.Rate != nil:
		return &OptionError{Field: "Rate", Value: "set", Problem: "is not supported with TotalLimit; remove one of them", Kind: ErrRate}
	case o.PriorityPath != "":
		return &OptionError{Field: "PriorityPath", Value: strconv.Quote(o.PriorityPath), Problem: "is not supported with TotalLimit; remove one of them", Kind: ErrPriority}
	case o.WeightPath != "":
		return &OptionError{Field: "WeightPath", Value: strconv.Quote(o.WeightPath), Problem: "is not supported with TotalLimit; remove one of them", Kind: ErrWeight}
	case strings.TrimSpace(o.TotalLockName) == "" || len(o.TotalLockName) > lock.MaxLockNameBytes || strings.Contains(o.TotalLockName, "${"):
		return &OptionError{Field: "TotalLockName", Value: strconv.Quote(o.TotalLockName), Problem: fmt.Sprintf("must be a lock name of 1 to %d bytes, not only blanks, without \"${\"", lock.MaxLockNameBytes), Kind: ErrLockName}
	case o.AcquireTimeout*3 >= o.Timeout:
		return &OptionError{Field: "AcquireTimeout", Value: o.AcquireTimeout, Problem: fmt.Sprintf("times 3 (the key's lock, its turn, then the total lock) must be shorter than Timeout (%s)", o.Timeout), Kind: ErrTiming}
	}
	return nil
}

// Names of the states of a semaphore with a TotalLimit, besides the several-locks machine's.
const (
	// StateReleaseGate gives back the key's gate once the execution holds a slot of the total
	// lock, so that the key's next execution queues for the total behind the other keys'.
	StateReleaseGate = "Release Gate"
	// StateForgetGate drops the gate from the execution's locks: the releases after the work
	// skip it.
	StateForgetGate = "Forget Gate"
)

// totalCap is the total lock of a semaphore with a TotalLimit, and the gate before it.
//
// An execution takes its key's lock (Limit), then its key's gate (a lock of limit 1 named
// TotalLockName + "#" + key), then the total lock (TotalLimit), and gives the gate back as soon
// as it holds the total slot. So each key has at most one execution in the total lock's FIFO
// queue, which serves the keys with waiters in turn, one admission each: round robin. The order
// is the same for every execution (key, gate, total: nobody holds the total lock while it waits
// for a key's), so acquisition never deadlocks.
type totalCap struct {
	name    string // TotalLockName
	limit   int    // TotalLimit
	keyPath string // LockNamePath
}

// locks is the JSONata array of the gate and the total lock, the input being at input.
func (c *totalCap) locks(input string) string {
	path, _ := jsonataInputPath(c.keyPath) // checked by checkLocks
	key := input + strings.TrimPrefix(path, "$states.input")
	return fmt.Sprintf(`[{"lockName": %s & %s, "limit": 1}, {"lockName": %s, "limit": %d}]`,
		jsonataString(c.name+"#"), key, jsonataString(c.name), c.limit)
}

// totalSemaphore is Semaphore for options with a TotalLimit (validated, with defaults): the
// several-locks machine over the key's lock, its gate and the total lock (totalCap).
func totalSemaphore(o SemaphoreOptions) (*asl.StateMachine, error) {
	total := &totalCap{name: o.TotalLockName, limit: o.TotalLimit, keyPath: o.LockNamePath}
	o.Locks, o.LockNamePath = []LockSpec{{LockNamePath: o.LockNamePath, Limit: o.Limit}}, ""
	return multiSemaphore(o, total)
}

// releaseGate gives the gate ($.locks[1]) back through the hand-off function, then drops it
// from $.locks, then goes to next. A failure goes to the release of every lock.
func (b builder) releaseGate(next string) asl.States {
	release := withLimitFromData(b.handOff(StateForgetGate, false))
	payload := release.Parameters.(map[string]any)["Payload"].(map[string]any)
	payload["lockName.$"], payload["limit.$"] = "$.locks[1].lockName", "$.locks[1].limit"
	release.Catch = []*asl.Catcher{{ErrorEquals: []string{asl.ErrorAll}, Next: StateReleaseLocksAfterFailure, ResultPath: asl.P("$.workError")}}
	return asl.States{
		{Name: StateReleaseGate, State: release},
		{Name: StateForgetGate, State: &asl.Pass{
			Transition: asl.Next(next),
			Parameters: map[string]any{"locks.$": "States.Array($.locks[0], $.locks[2])"},
		}},
	}
}

// withTotalLocks turns the options of a semaphore with a TotalLimit into those of its key's
// lock, with its gate and total lock (nil without a TotalLimit).
func (o CleanupOptions) withTotalLocks() (CleanupOptions, *totalCap) {
	if o.TotalLimit == 0 || o.LockNamePath == "" || len(o.Locks) > 0 {
		return o, nil
	}
	name := o.TotalLockName
	if name == "" {
		name = DefaultTotalLockName
	}
	total := &totalCap{name: name, limit: o.TotalLimit, keyPath: o.LockNamePath}
	o.Locks, o.LockNamePath = []LockSpec{{LockNamePath: o.LockNamePath, Limit: o.Limit}}, ""
	return o, total
}
