package metrics

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// Unit is a CloudWatch unit of a metric (the specification's MetricDefinition Unit).
type Unit string

// The units Turnstile's metrics use; any CloudWatch unit name is valid in Encode and Parse.
const (
	// UnitCount counts events or items.
	UnitCount Unit = "Count"
	// UnitMilliseconds measures durations.
	UnitMilliseconds Unit = "Milliseconds"
	// UnitNone has no unit; a metric without a unit reads as it.
	UnitNone Unit = "None"
)

// Limits of the embedded metric format specification.
const (
	// MaxDimensionsPerSet is the most dimensions one dimension set may reference.
	MaxDimensionsPerSet = 30
	// MaxMetricsPerDirective is the most metrics one directive may define.
	MaxMetricsPerDirective = 100
	// MaxValuesPerMetric is the most values one target member may hold (an array).
	MaxValuesPerMetric = 100
	// MaxNameLength is the longest namespace, metric name or dimension name.
	MaxNameLength = 1024
)

// ErrNotEMF is returned by Parse for a line that is not an embedded metric format document
// (no "_aws" member with CloudWatchMetrics): an ordinary log line.
var ErrNotEMF = errors.New("metrics: not an embedded metric format document")

// ErrInvalid is wrapped by the errors of Encode and Parse for a document that breaks the
// specification; the message names the member and what is wrong.
var ErrInvalid = errors.New("metrics: invalid embedded metric format document")

// Value is one metric's data point in an Event.
type Value struct {
	// Name is the metric's name. Required.
	Name string
	// Unit is its unit. Default: none (CloudWatch reads it as UnitNone).
	Unit Unit
	// Value is the data point.
	Value float64
}

// Event is one embedded metric format log event with a single metric directive: its metrics
// share a namespace, dimension sets, dimension values and a timestamp.
type Event struct {
	// Time is the metrics' timestamp (milliseconds since the epoch in the document). Required.
	Time time.Time
	// Namespace is the CloudWatch namespace. Required.
	Namespace string
	// DimensionSets lists the dimension sets: each data point is published once per set, under
	// the dimensions it names. Default: none, the metrics have no dimensions.
	DimensionSets [][]string
	// Dimensions are the dimension values, by name; every name a set references needs one.
	Dimensions map[string]string
	// Values are the data points. At least one is required.
	Values []Value
}

// Sample is one data point as CloudWatch extracts it from a document: one value of one metric
// under one dimension set.
type Sample struct {
	// Time is the document's timestamp.
	Time time.Time
	// Namespace is the directive's namespace.
	Namespace string
	// Name is the metric's name.
	Name string
	// Unit is the metric's unit ("" when the document gives none).
	Unit Unit
	// Value is the data point.
	Value float64
	// Dimensions are the dimensions of this sample's set, with their values.
	Dimensions map[string]string
}

// metadata is the JSON shape of the specification's metadata object (the "_aws" member).
type metadata struct {
	Timestamp         *int64      `json:"Timestamp"`
	CloudWatchMetrics []directive `json:"CloudWatchMetrics"`
}

// directive is a MetricDirective object.
type directive struct {
	Namespace  string             `json:"Namespace"`
	Dimensions [][]string         `json:"Dimensions"`
	Metrics    []metricDefinition `json:"Metrics"`
}

// metricDefinition is a MetricDefinition object.
type metricDefinition struct {
	Name string `json:"Name"`
	Unit Unit   `json:"Unit,omitempty"`
}

// Encode writes e as one line (a JSON object and a newline) in a single Write. It checks e
// against the specification first and writes nothing when it breaks it.
func Encode(w io.Writer, e Event) error {
	if err := e.check(); err != nil {
		return err
	}
	ts := e.Time.UnixMilli()
	d := directive{Namespace: e.Namespace, Dimensions: e.DimensionSets, Metrics: make([]metricDefinition, len(e.Values))}
	if d.Dimensions == nil {
		d.Dimensions = [][]string{}
	}
	root := make(map[string]any, len(e.Dimensions)+len(e.Values)+1)
	for k, v := range e.Dimensions {
		root[k] = v
	}
	for i, v := range e.Values {
		d.Metrics[i] = metricDefinition{Name: v.Name, Unit: v.Unit}
		root[v.Name] = v.Value
	}
	root["_aws"] = metadata{Timestamp: &ts, CloudWatchMetrics: []directive{d}}
	line, err := json.Marshal(root) // map keys marshal sorted: the line is deterministic
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	_, err = w.Write(append(line, '\n'))
	return err
}

// check validates e against the specification.
func (e Event) check() error {
	switch {
	case e.Time.IsZero():
		return fmt.Errorf("%w: Timestamp is required", ErrInvalid)
	case len(e.Values) == 0:
		return fmt.Errorf("%w: a directive needs at least one metric", ErrInvalid)
	}
	metricNames := make(map[string]bool, len(e.Values))
	for _, v := range e.Values {
		if _, isDimension := e.Dimensions[v.Name]; isDimension || metricNames[v.Name] {
			return fmt.Errorf("%w: the member %q is used twice", ErrInvalid, v.Name)
		}
		metricNames[v.Name] = true
	}
	metrics := make([]metricDefinition, len(e.Values))
	for i, v := range e.Values {
		metrics[i] = metricDefinition{Name: v.Name, Unit: v.Unit}
	}
	return checkDirective(directive{Namespace: e.Namespace, Dimensions: e.DimensionSets, Metrics: metrics}, func(name string) bool {
		_, ok := e.Dimensions[name]
		return ok
	})
}

// checkDirective validates one directive; hasDimension reports whether the root node has a
// string member of that name.
func checkDirective(d directive, hasDimension func(string) bool) error {
	if err := checkName("Namespace", d.Namespace); err != nil {
		return err
	}
	if len(d.Metrics) == 0 {
		return fmt.Errorf("%w: the directive of %q has no metrics", ErrInvalid, d.Namespace)
	}
	if len(d.Metrics) > MaxMetricsPerDirective {
		return fmt.Errorf("%w: %d metrics in one directive, at most %d", ErrInvalid, len(d.Metrics), MaxMetricsPerDirective)
	}
	for _, m := range d.Metrics {
		if err := checkName("metric Name", m.Name); err != nil {
			return err
		}
	}
	for _, set := range d.Dimensions {
		if len(set) > MaxDimensionsPerSet {
			return fmt.Errorf("%w: a dimension set of %d dimensions, at most %d", ErrInvalid, len(set), MaxDimensionsPerSet)
		}
		for _, name := range set {
			if err := checkName("dimension", name); err != nil {
				return err
			}
			if !hasDimension(name) {
				return fmt.Errorf("%w: the dimension %q has no string value in the document", ErrInvalid, name)
			}
		}
	}
	return nil
}

// checkName checks a namespace or name: 1 to MaxNameLength characters.
func checkName(what, name string) error {
	if n := len([]rune(name)); n == 0 || n > MaxNameLength {
		return fmt.Errorf("%w: %s %q must have 1 to %d characters", ErrInvalid, what, name, MaxNameLength)
	}
	return nil
}

// Parse reads one log line. A line that is not an embedded metric format document gives
// ErrNotEMF; one that is but breaks the specification an ErrInvalid error (CloudWatch
// extracts nothing from it). Otherwise it returns the document's samples: every value of every
// metric under every dimension set of every directive, in the document's order.
func Parse(line []byte) ([]Sample, error) {
	var root map[string]json.RawMessage
	if err := json.Unmarshal(line, &root); err != nil {
		return nil, ErrNotEMF
	}
	raw, ok := root["_aws"]
	if !ok {
		return nil, ErrNotEMF
	}
	var meta metadata
	if err := json.Unmarshal(raw, &meta); err != nil || meta.CloudWatchMetrics == nil {
		return nil, ErrNotEMF
	}
	if meta.Timestamp == nil {
		return nil, fmt.Errorf("%w: _aws.Timestamp is required", ErrInvalid)
	}
	at := time.UnixMilli(*meta.Timestamp)
	dimension := func(name string) (string, bool) {
		var s string
		return s, json.Unmarshal(root[name], &s) == nil && root[name] != nil
	}
	var out []Sample
	for _, d := range meta.CloudWatchMetrics {
		if err := checkDirective(d, func(name string) bool { _, ok := dimension(name); return ok }); err != nil {
			return nil, err
		}
		sets := d.Dimensions
		if len(sets) == 0 {
			sets = [][]string{nil}
		}
		for _, m := range d.Metrics {
			values, err := targetValues(root, m.Name)
			if err != nil {
				return nil, err
			}
			for _, set := range sets {
				dims := make(map[string]string, len(set))
				for _, name := range set {
					dims[name], _ = dimension(name)
				}
				for _, v := range values {
					out = append(out, Sample{Time: at, Namespace: d.Namespace, Name: m.Name, Unit: m.Unit, Value: v, Dimensions: dims})
				}
			}
		}
	}
	return out, nil
}

// targetValues reads a metric's target member: a number, or an array of at most
// MaxValuesPerMetric numbers.
func targetValues(root map[string]json.RawMessage, name string) ([]float64, error) {
	raw, ok := root[name]
	if !ok {
		return nil, fmt.Errorf("%w: the metric %q has no target member", ErrInvalid, name)
	}
	var one float64
	if json.Unmarshal(raw, &one) == nil {
		return []float64{one}, nil
	}
	var many []float64
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, fmt.Errorf("%w: the metric %q is not a number or an array of numbers", ErrInvalid, name)
	}
	if len(many) > MaxValuesPerMetric {
		return nil, fmt.Errorf("%w: the metric %q has %d values, at most %d", ErrInvalid, name, len(many), MaxValuesPerMetric)
	}
	return many, nil
}
