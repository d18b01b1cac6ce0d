// Package machines holds the definitions of Turnstile's state machines as pure Go functions of
// their options, built with the asl model. It imports only asl: no CDK, no AWS SDK. The
// constructs render these definitions into their templates, the golden files in testdata/ pin
// them, and the emulator runs them.
//
// Semaphore is the acquire → run → release machine (docs/architecture.md, "The lock: data model
// and semantics"):
//
//   - Acquire: one conditional UpdateItem adds the execution's holder attribute (named by its
//     ARN, valued with the time) and counts it, below the limit only. If the condition fails, a
//     strongly consistent read of the execution's own holder attribute tells a lost reply (we
//     hold a slot: go on) from a full lock (wait a random 1–5 s and try again, until the
//     acquire timeout fails the execution with Turnstile.AcquireTimeout). Throttling and 5xx
//     errors are retried with jitter; errors no retry can fix fail with Turnstile.LockTableError.
//   - Run: the work runs in a Parallel state on the execution input. A failure is caught, the
//     slot released, and the execution fails with the work's own error and cause.
//   - Release: a conditional UpdateItem removes the holder and decrements the counter; a
//     failed condition means "released already" and is not an error.
//   - Rate (optional, SemaphoreOptions.Rate): between the acquire and the run, a GCRA permit
//     taken with one conditional UpdateItem on the lock's rate item while the rate is busy; the
//     execution then waits until its permit (Delay) or gives its slot back and fails with
//     Turnstile.RateLimited (Reject). See rate.go.
//   - Several locks (optional, SemaphoreOptions.Locks): a JSONata Pass lists the execution's
//     locks sorted by name, a Map of concurrency 1 takes them in that order with the
//     single-lock states, and Maps release them all (multi.go). TotalLimit builds on it: the
//     key's lock, the key's turn, then the total lock, so that keys take turns (total.go).
//
// Deploy-time values (the table name, the work's ARN) are DefinitionSubstitutions placeholders,
// so the definition never depends on a synth:
//
//	m, err := machines.Semaphore(machines.SemaphoreOptions{
//		LockNamePath: "$.environment", // one lock per environment
//		Limit:        2,
//		Work:         machines.LambdaWork(machines.Placeholder(machines.SubstitutionWorkFunctionArn)),
//	})
//	if err != nil {
//		return err // an *OptionError, e.g. "SemaphoreOptions.Limit must be > 0, got 0"
//	}
//	doc, err := m.RenderIndent() // "TableName": "${LockTableName}", "FunctionName": "${WorkFunctionArn}"
//
// Regenerate the golden files after a reviewed change with
//
//	go test ./asl/machines -update
package machines
