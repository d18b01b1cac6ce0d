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
	case strings.TrimSpace(o.TotalLockName) == "" || len(o.TotalLockName) > lock.MaxLockNameBytes || strings.Contains(o.TotalLockName, "${"):
		return &OptionError{Field: "TotalLockName", Value: strconv.Quote(o.TotalLockName), Problem: fmt.Sprintf("must be a lock name of 1 to %d bytes, not only blanks, without \"${\"", lock.MaxLockNameBytes), Kind: ErrLockName}
	case o.AcquireTimeout*2 >= o.Timeout:
		return &OptionError{Field: "AcquireTimeout", Value: o.AcquireTimeout, Problem: fmt.Sprintf("times 2 (the key's lock, then the total lock) must be shorter than Timeout (%s)", o.Timeout), Kind: ErrTiming}
	}
	return nil
}

// totalLocks are the locks of a semaphore with a TotalLimit: its key's, then the total lock.
func totalLocks(lockNamePath string, limit, totalLimit int, totalLockName string) (key []LockSpec, total *LockSpec) {
	return []LockSpec{{LockNamePath: lockNamePath, Limit: limit}}, &LockSpec{LockName: totalLockName, Limit: totalLimit}
}

// totalSemaphore is Semaphore for options with a TotalLimit (validated, with defaults): the
// several-locks machine over the key's lock, then the total lock, always in that order. An
// execution holds its key's slot while it waits for one of the total, so each key has at most
// its Limit executions running or queued for the total, and the total lock's FIFO queue serves
// the keys with waiters in turn: a key with a waiter there waits for at most Limit admissions of
// each other key.
func totalSemaphore(o SemaphoreOptions) (*asl.StateMachine, error) {
	key, total := totalLocks(o.LockNamePath, o.Limit, o.TotalLimit, o.TotalLockName)
	o.Locks, o.LockNamePath = key, ""
	return multiSemaphore(o, total)
}

// withTotalLocks turns the options of a semaphore with a TotalLimit into those of its two
// locks, the key's and the total lock (their order does not matter to a release).
func (o CleanupOptions) withTotalLocks() CleanupOptions {
	if o.TotalLimit == 0 || o.LockNamePath == "" || len(o.Locks) > 0 {
		return o
	}
	name := o.TotalLockName
	if name == "" {
		name = DefaultTotalLockName
	}
	key, total := totalLocks(o.LockNamePath, o.Limit, o.TotalLimit, name)
	o.Locks, o.LockNamePath = append(key, *total), ""
	return o
}
