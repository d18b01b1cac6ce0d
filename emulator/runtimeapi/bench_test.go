package runtimeapi_test

import (
	"context"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/emulator/lambdafn"
	"github.com/turnstile-sfn/turnstile/emulator/runtimeapi"
)

// reportMedian reports the median of durations in milliseconds as the metric median-ms.
func reportMedian(b *testing.B, durations []time.Duration) {
	slices.Sort(durations)
	b.ReportMetric(float64(durations[len(durations)/2])/float64(time.Millisecond), "median-ms")
}

// BenchmarkWarmInvoke measures a round trip through lambdafn's Registry to a warm process and
// back: Invoke, the Runtime API's next and response, the response document.
func BenchmarkWarmInvoke(b *testing.B) {
	fn, err := runtimeapi.New(runtimeapi.Config{Binary: binary, FunctionName: "fn", Log: io.Discard})
	if err != nil {
		b.Fatal(err)
	}
	defer fn.Close()
	reg, err := lambdafn.NewRegistry()
	if err != nil {
		b.Fatal(err)
	}
	defer reg.Close(context.Background()) //nolint:errcheck // nothing under way
	if err := reg.Register("fn", fn.Handler()); err != nil {
		b.Fatal(err)
	}
	in := &lambdafn.InvokeInput{FunctionName: "fn", Payload: []byte(`{"action":"echo","value":"x"}`)}
	if _, err := reg.Invoke(context.Background(), in); err != nil { // the cold start
		b.Fatal(err)
	}
	durations := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		out, err := reg.Invoke(context.Background(), in)
		if err != nil || out.FunctionError != "" {
			b.Fatalf("%v %s", err, out.Payload)
		}
		durations = append(durations, time.Since(start))
	}
	reportMedian(b, durations)
	if s := fn.Stats(); s.Started != 1 {
		b.Fatalf("%d processes started, want 1", s.Started)
	}
}

// BenchmarkColdStart measures the first invocation of a new Function: starting the process,
// its initialisation up to the Runtime API's next, and the invocation itself.
func BenchmarkColdStart(b *testing.B) {
	payload := []byte(`{"action":"echo","value":"x"}`)
	durations := make([]time.Duration, 0, b.N)
	for b.Loop() {
		fn, err := runtimeapi.New(runtimeapi.Config{Binary: binary, FunctionName: "fn", Log: io.Discard})
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		_, err = fn.Invoke(context.Background(), payload)
		durations = append(durations, time.Since(start))
		fn.Close()
		if err != nil {
			b.Fatal(err)
		}
	}
	reportMedian(b, durations)
}
