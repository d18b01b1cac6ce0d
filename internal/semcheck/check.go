package semcheck

import (
	"errors"
	"fmt"
	"time"

	"github.com/anishathalye/porcupine"
)

// ErrNotLinearizable reports a history that no order of its operations explains with a counting
// semaphore of the limit: the semaphore over-admitted, lost a holder or invented one.
var ErrNotLinearizable = errors.New("semcheck: history is not linearizable")

// ErrInconclusive reports a check that ran out of time before it decided.
var ErrInconclusive = errors.New("semcheck: linearizability check timed out")

// Check checks that history, as a Recorder records it, is linearizable with respect to a
// counting semaphore of limit slots. A timeout of 0 lets the check run until it decides.
func Check(limit int, history []porcupine.Operation, timeout time.Duration) error {
	return CheckFrom(limit, nil, history, timeout)
}

// CheckFrom is Check for a history that starts with the holders initial (see ModelFrom).
func CheckFrom(limit int, initial []string, history []porcupine.Operation, timeout time.Duration) error {
	switch result := porcupine.CheckOperationsTimeout(ModelFrom(limit, initial), history, timeout); result {
	case porcupine.Ok:
		return nil
	case porcupine.Illegal:
		return fmt.Errorf("%w: %d operations, limit %d", ErrNotLinearizable, len(history), limit)
	default:
		return fmt.Errorf("%w after %v: %d operations, limit %d", ErrInconclusive, timeout, len(history), limit)
	}
}
