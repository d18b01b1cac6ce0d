package reconcile

import "encoding/json"

// Metric names of the EMF line the reconciler logs after each run.
const (
	// MetricNamespace is the CloudWatch namespace of the reconciler's metrics.
	MetricNamespace = "Turnstile"
	// MetricReleasedSlots counts the slots one run released.
	MetricReleasedSlots = "ReconcilerReleasedSlots"
	// MetricDimensionLockTable is the dimension naming the lock table.
	MetricDimensionLockTable = "LockTable"
)

// report logs the run's counts as a CloudWatch embedded metric format line, which Lambda's
// log delivery turns into the MetricReleasedSlots metric.
func (r *Reconciler) report(res Result) {
	line := map[string]any{
		"_aws": map[string]any{
			"Timestamp": r.now().UnixMilli(),
			"CloudWatchMetrics": []any{map[string]any{
				"Namespace":  MetricNamespace,
				"Dimensions": [][]string{{MetricDimensionLockTable}},
				"Metrics":    []any{map[string]any{"Name": MetricReleasedSlots, "Unit": "Count"}},
			}},
		},
		MetricDimensionLockTable: r.cfg.TableName,
		MetricReleasedSlots:      res.Released,
		"checked":                res.Checked,
		"live":                   res.Live,
		"truncated":              res.Truncated,
	}
	raw, err := json.Marshal(line) // maps marshal with sorted keys: deterministic
	if err != nil {
		r.logf("reconcile: metric line: %v", err)
		return
	}
	r.logf("%s", raw)
}
