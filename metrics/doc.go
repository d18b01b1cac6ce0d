// Package metrics names Turnstile's CloudWatch metrics and writes them as CloudWatch embedded
// metric format (EMF) log lines: a Lambda function writes them to its standard output, and
// CloudWatch Logs turns each line into metric data points, with no PutMetricData call.
//
// The hand-off function, the cleanup (through the hand-off function) and the reconciler emit
// them in the namespace Namespace, under two dimension sets: {Semaphore} (every lock of one
// semaphore) and {Semaphore, LockName} (one lock). The Semaphore construct's Metric* methods
// return the same metrics as CloudWatch metrics, and the local emulator reads the lines back
// with Parse, so that a test can see what CloudWatch would.
//
// Usage, in a function:
//
//	m := metrics.NewLogger(os.Stdout, "MyStack/Semaphore", time.Now)
//	m.Emit("deploys", metrics.Value{Name: metrics.AcquireTimeouts, Unit: metrics.UnitCount, Value: 1})
//
// Encode and Parse implement the format itself (the specification's Timestamp,
// CloudWatchMetrics, Namespace, Dimensions, Metrics and target members) for any namespace.
package metrics
