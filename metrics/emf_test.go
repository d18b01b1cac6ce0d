package metrics_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/metrics"
)

var at = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

// TestEncodeFollowsTheSpecification checks the document's structure member by member: one
// JSON object on one line, _aws with Timestamp in milliseconds and one directive, and the
// dimension values and metric values as root members.
func TestEncodeFollowsTheSpecification(t *testing.T) {
	var buf bytes.Buffer
	err := metrics.Encode(&buf, metrics.Event{
		Time: at, Namespace: "NS", DimensionSets: [][]string{{"A"}, {"A", "B"}},
		Dimensions: map[string]string{"A": "a", "B": "b"},
		Values:     []metrics.Value{{Name: "M", Unit: metrics.UnitCount, Value: 2}, {Name: "L", Value: 1.5}},
	})
	if err != nil {
		t.Fatal(err)
	}
	line := buf.String()
	if strings.Count(line, "\n") != 1 || !strings.HasSuffix(line, "\n") {
		t.Fatalf("want one line ending in a newline, got %q", line)
	}
	var got map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"_aws": map[string]any{
			"Timestamp": float64(at.UnixMilli()),
			"CloudWatchMetrics": []any{map[string]any{
				"Namespace":  "NS",
				"Dimensions": []any{[]any{"A"}, []any{"A", "B"}},
				"Metrics":    []any{map[string]any{"Name": "M", "Unit": "Count"}, map[string]any{"Name": "L"}},
			}},
		},
		"A": "a", "B": "b", "M": float64(2), "L": 1.5,
	}
	if g, w := compact(t, got), compact(t, want); g != w {
		t.Errorf("document\n got %s\nwant %s", g, w)
	}
}

// TestParseReadsWhatCloudWatchExtracts checks Parse on the specification's shapes: one sample
// per value per dimension set, arrays of values, a directive without dimensions.
func TestParseReadsWhatCloudWatchExtracts(t *testing.T) {
	line := `{"_aws":{"Timestamp":1700000000000,"CloudWatchMetrics":[` +
		`{"Namespace":"N1","Dimensions":[["S"],["S","L"]],"Metrics":[{"Name":"Wait","Unit":"Milliseconds"}]},` +
		`{"Namespace":"N2","Dimensions":[],"Metrics":[{"Name":"Hits"}]}]},` +
		`"S":"sem","L":"lock","Wait":[10,20],"Hits":3,"requestId":"r"}`
	samples, err := metrics.Parse([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		ns, name, dims string
		v              float64
	}
	var got []key
	for _, s := range samples {
		if !s.Time.Equal(time.UnixMilli(1700000000000)) {
			t.Errorf("time %v", s.Time)
		}
		dims, _ := json.Marshal(s.Dimensions)
		got = append(got, key{s.Namespace, s.Name, string(dims), s.Value})
	}
	want := []key{
		{"N1", "Wait", `{"S":"sem"}`, 10}, {"N1", "Wait", `{"S":"sem"}`, 20},
		{"N1", "Wait", `{"L":"lock","S":"sem"}`, 10}, {"N1", "Wait", `{"L":"lock","S":"sem"}`, 20},
		{"N2", "Hits", `{}`, 3},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d samples %v, want %v", len(got), got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("sample %d = %v, want %v", i, got[i], want[i])
		}
	}
}

// TestRoundTrip checks that Parse reads back what Encode writes.
func TestRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	l := metrics.NewLogger(&buf, "App/Sem", func() time.Time { return at })
	if err := l.Emit("deploys", metrics.Count(metrics.AcquireTimeouts, 1), metrics.Milliseconds(metrics.WaitTime, 1500*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	samples, err := metrics.Parse(bytes.TrimSpace(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) != 4 {
		t.Fatalf("got %d samples, want 2 metrics × 2 dimension sets", len(samples))
	}
	last := samples[3]
	if last.Name != metrics.WaitTime || last.Value != 1500 || last.Unit != metrics.UnitMilliseconds ||
		last.Dimensions[metrics.DimensionLockName] != "deploys" || last.Dimensions[metrics.DimensionSemaphore] != "App/Sem" ||
		!last.Time.Equal(at) || last.Namespace != metrics.Namespace {
		t.Errorf("last sample = %+v", last)
	}
}

// TestBrokenDocumentsAreRefused checks the specification's rules on both sides.
func TestBrokenDocumentsAreRefused(t *testing.T) {
	ok := metrics.Event{Time: at, Namespace: "N", DimensionSets: [][]string{{"D"}}, Dimensions: map[string]string{"D": "d"}, Values: []metrics.Value{{Name: "M", Value: 1}}}
	for name, change := range map[string]func(*metrics.Event){
		"no timestamp":          func(e *metrics.Event) { e.Time = time.Time{} },
		"no namespace":          func(e *metrics.Event) { e.Namespace = "" },
		"long namespace":        func(e *metrics.Event) { e.Namespace = strings.Repeat("n", metrics.MaxNameLength+1) },
		"no metrics":            func(e *metrics.Event) { e.Values = nil },
		"unnamed metric":        func(e *metrics.Event) { e.Values = []metrics.Value{{Value: 1}} },
		"dimension not given":   func(e *metrics.Event) { e.Dimensions = nil },
		"metric twice":          func(e *metrics.Event) { e.Values = append(e.Values, e.Values[0]) },
		"metric is a dimension": func(e *metrics.Event) { e.Values = []metrics.Value{{Name: "D", Value: 1}} },
		"31 dimensions": func(e *metrics.Event) {
			e.DimensionSets = [][]string{make([]string, metrics.MaxDimensionsPerSet+1)}
			for i := range e.DimensionSets[0] {
				e.DimensionSets[0][i] = "D"
			}
		},
	} {
		e := ok
		change(&e)
		var buf bytes.Buffer
		if err := metrics.Encode(&buf, e); !errors.Is(err, metrics.ErrInvalid) || buf.Len() != 0 {
			t.Errorf("%s: Encode = %v and wrote %q, want ErrInvalid and nothing", name, err, buf.String())
		}
	}
	for name, line := range map[string]string{
		"no timestamp":   `{"_aws":{"CloudWatchMetrics":[{"Namespace":"N","Dimensions":[],"Metrics":[{"Name":"M"}]}]},"M":1}`,
		"missing target": `{"_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Namespace":"N","Dimensions":[],"Metrics":[{"Name":"M"}]}]}}`,
		"string target":  `{"_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Namespace":"N","Dimensions":[],"Metrics":[{"Name":"M"}]}]},"M":"1"}`,
		"101 values":     `{"_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Namespace":"N","Dimensions":[],"Metrics":[{"Name":"M"}]}]},"M":[` + strings.Repeat("1,", 100) + `1]}`,
		"number dim":     `{"_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Namespace":"N","Dimensions":[["D"]],"Metrics":[{"Name":"M"}]}]},"M":1,"D":2}`,
	} {
		if _, err := metrics.Parse([]byte(line)); !errors.Is(err, metrics.ErrInvalid) {
			t.Errorf("%s: Parse = %v, want ErrInvalid", name, err)
		}
	}
	for _, line := range []string{"START RequestId: 1", `{"level":"info"}`, `{"_aws":{}}`, `[1]`} {
		if _, err := metrics.Parse([]byte(line)); !errors.Is(err, metrics.ErrNotEMF) {
			t.Errorf("Parse(%q) = %v, want ErrNotEMF", line, err)
		}
	}
}

// TestNilLoggerWritesNothing: a function without a semaphore name runs without metrics.
func TestNilLoggerWritesNothing(t *testing.T) {
	l := metrics.NewLoggerFromEnv(&bytes.Buffer{}, func(string) (string, bool) { return "", false }, time.Now)
	if l != nil {
		t.Fatal("NewLoggerFromEnv without the variable is not nil")
	}
	if err := l.Emit("L", metrics.Count(metrics.SlotsHeld, 1)); err != nil {
		t.Error(err)
	}
}

func compact(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
