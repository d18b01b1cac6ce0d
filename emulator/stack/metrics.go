package stack

import (
	"bytes"
	"errors"
	"io"
	"sync"

	"github.com/turnstile-sfn/turnstile/metrics"
)

// MetricSample is a metric data point that a function of the stack wrote to its standard
// output as a CloudWatch embedded metric format line: what CloudWatch Logs would extract.
type MetricSample struct {
	// Function is the logical ID of the function that wrote it.
	Function string
	metrics.Sample
}

// metricLog keeps the samples of every function's EMF lines.
type metricLog struct {
	mu      sync.Mutex
	samples []MetricSample
	invalid int
}

// Metrics returns the metric data points the stack's functions have written so far (in-process
// handlers through HandlerEnv.Log, Runtime API functions on their standard output), in the
// order they were written: each value of each metric once per dimension set, as CloudWatch
// extracts them.
func (s *Stack) Metrics() []MetricSample {
	s.metrics.mu.Lock()
	defer s.metrics.mu.Unlock()
	return append([]MetricSample(nil), s.metrics.samples...)
}

// InvalidMetricLines counts the lines the stack's functions wrote that are embedded metric
// format documents breaking the specification: CloudWatch would extract nothing from them.
func (s *Stack) InvalidMetricLines() int {
	s.metrics.mu.Lock()
	defer s.metrics.mu.Unlock()
	return s.metrics.invalid
}

// record parses one line of function's output and keeps its samples.
func (m *metricLog) record(function string, line []byte) {
	samples, err := metrics.Parse(bytes.TrimSpace(line))
	if errors.Is(err, metrics.ErrNotEMF) {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err != nil {
		m.invalid++
		return
	}
	for _, s := range samples {
		m.samples = append(m.samples, MetricSample{Function: function, Sample: s})
	}
}

// writer returns the standard output of one function: it cuts what is written into lines and
// records the EMF ones. prefix is cut from the start of each line that has it (the Runtime API
// functions' log prefixes their lines with the function's name). It is safe for concurrent
// use.
func (m *metricLog) writer(function, prefix string) io.Writer {
	return &metricWriter{log: m, function: function, prefix: []byte(prefix)}
}

type metricWriter struct {
	log      *metricLog
	function string
	prefix   []byte

	mu  sync.Mutex
	buf []byte
}

// Write records every complete line of p and keeps the rest for later.
func (w *metricWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.log.record(w.function, bytes.TrimPrefix(w.buf[:i], w.prefix))
		w.buf = w.buf[i+1:]
	}
	w.buf = append([]byte(nil), w.buf...)
	return len(p), nil
}
