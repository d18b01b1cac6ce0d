package simulate

import (
	"testing"

	"github.com/turnstile-sfn/turnstile/lock"
)

// TestSubmissionViolations: a submission not started, an execution too many and one granted out
// of order are each reported; a clean run is not.
func TestSubmissionViolations(t *testing.T) {
	ok := SubmissionFigures{Submitted: 3, ByOutcome: map[lock.Outcome]int{lock.OutcomeStarted: 3}, Executions: 3}
	if v := ok.violations(); len(v) != 0 {
		t.Errorf("violations of a clean run: %v", v)
	}
	for name, f := range map[string]SubmissionFigures{
		"expired":   {Submitted: 3, ByOutcome: map[lock.Outcome]int{lock.OutcomeStarted: 2, lock.OutcomeExpired: 1}, Executions: 2},
		"twice":     {Submitted: 3, ByOutcome: map[lock.Outcome]int{lock.OutcomeStarted: 3}, Executions: 4},
		"overtaken": {Submitted: 3, ByOutcome: map[lock.Outcome]int{lock.OutcomeStarted: 3}, Executions: 3, OutOfOrder: 1},
	} {
		if v := f.violations(); len(v) == 0 {
			t.Errorf("%s: no violation reported", name)
		}
	}
}
