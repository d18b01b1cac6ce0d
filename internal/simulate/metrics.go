package simulate

import (
	"github.com/turnstile-sfn/turnstile/emulator/stack"
	"github.com/turnstile-sfn/turnstile/metrics"
)

// MetricSummary sums up one of Turnstile's metrics as the run's functions wrote it (EMF lines
// the stack captured), per lock: the data points of the {Semaphore, LockName} dimension set.
type MetricSummary struct {
	// Unit is the metric's unit.
	Unit metrics.Unit `json:"unit"`
	// Samples is the number of data points.
	Samples int `json:"samples"`
	// Sum, Min and Max are CloudWatch's statistics of them.
	Sum float64 `json:"sum"`
	Min float64 `json:"min"`
	Max float64 `json:"max"`
}

// summarizeMetrics sums up the samples of Turnstile's namespace by metric name.
func summarizeMetrics(samples []stack.MetricSample) map[string]MetricSummary {
	out := map[string]MetricSummary{}
	for _, s := range samples {
		if _, perLock := s.Dimensions[metrics.DimensionLockName]; s.Namespace != metrics.Namespace || !perLock {
			continue
		}
		m, seen := out[s.Name]
		if !seen {
			m = MetricSummary{Unit: s.Unit, Min: s.Value, Max: s.Value}
		}
		m.Samples++
		m.Sum += s.Value
		m.Min, m.Max = min(m.Min, s.Value), max(m.Max, s.Value)
		out[s.Name] = m
	}
	return out
}
