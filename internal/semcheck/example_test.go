package semcheck_test

import (
	"fmt"

	"github.com/turnstile-sfn/turnstile/internal/semcheck"
)

// A client's acquire reply was lost: the recorder leaves it open, and the checker accepts the
// history whether or not that acquire took effect.
func ExampleCheck() {
	const limit = 1
	recorder := semcheck.NewRecorder()
	recorder.Begin(0, semcheck.Acquire("run-a")) // reply lost; the client crashed
	recorder.Begin(1, semcheck.Acquire("run-b")).End(semcheck.Full)
	recorder.Begin(2, semcheck.Release("run-a")).End(semcheck.Released) // the cleanup
	recorder.Begin(1, semcheck.Acquire("run-b")).End(semcheck.Acquired)
	fmt.Println(semcheck.Check(limit, recorder.Operations(), 0))

	overAdmitted := semcheck.NewRecorder()
	overAdmitted.Begin(0, semcheck.Acquire("run-a")).End(semcheck.Acquired)
	overAdmitted.Begin(1, semcheck.Acquire("run-b")).End(semcheck.Acquired)
	fmt.Println(semcheck.Check(limit, overAdmitted.Operations(), 0))
	// Output:
	// <nil>
	// semcheck: history is not linearizable: 2 operations, limit 1
}
