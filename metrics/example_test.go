package metrics_test

import (
	"os"
	"time"

	"github.com/turnstile-sfn/turnstile/metrics"
)

// A function's metric line: one acquire time-out of the lock "deploys".
func ExampleLogger_Emit() {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	m := metrics.NewLogger(os.Stdout, "App/Semaphore", func() time.Time { return at })
	m.Emit("deploys", metrics.Count(metrics.AcquireTimeouts, 1)) //nolint:errcheck // stdout
	// Output:
	// {"AcquireTimeouts":1,"LockName":"deploys","Semaphore":"App/Semaphore","_aws":{"Timestamp":1767323045000,"CloudWatchMetrics":[{"Namespace":"Turnstile","Dimensions":[["Semaphore"],["Semaphore","LockName"]],"Metrics":[{"Name":"AcquireTimeouts","Unit":"Count"}]}]}}
}
