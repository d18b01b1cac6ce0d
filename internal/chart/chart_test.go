package chart

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

func TestSteps(t *testing.T) {
	s := time.Second
	got := Steps([]Interval{{Start: 0, End: 2 * s}, {Start: 1 * s, End: 3 * s}, {Start: 2 * s, End: 4 * s}})
	want := []Step{{0, 1}, {1 * s, 2}, {2 * s, 2}, {3 * s, 1}, {4 * s, 0}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Steps = %v\nwant %v", got, want)
	}
}

// TestPerSecondBuckets checks that admissions are counted in the whole second they fall in.
func TestPerSecondBuckets(t *testing.T) {
	ms := time.Millisecond
	r := AdmissionRate{PerSecond: 2, Admissions: []time.Duration{0, 400 * ms, 999 * ms, 1000 * ms, 3500 * ms}}
	if got, want := r.PerSecondBuckets(), []int{3, 1, 0, 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("PerSecondBuckets = %v, want %v", got, want)
	}
}

func TestWriteFormats(t *testing.T) {
	dir := t.TempDir()
	c := Concurrency{Limit: 2, Work: []Interval{{Start: 0, End: time.Second}, {Start: 0, End: 2 * time.Second, Failed: true}},
		Rate: &AdmissionRate{PerSecond: 1, Admissions: []time.Duration{0, time.Second}}}
	for ext, magic := range map[string][]byte{".svg": []byte("<svg"), ".png": []byte("\x89PNG"), ".pdf": []byte("%PDF")} {
		path := filepath.Join(dir, "chart"+ext)
		if err := Write(path, c); err != nil {
			t.Fatalf("Write(%s): %v", ext, err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data[:min(len(data), 512)], magic) {
			t.Errorf("%s does not start like a %s file", path, ext)
		}
	}
	if err := Write(filepath.Join(dir, "chart.gif"), c); !errors.Is(err, ErrUnsupportedFormat) {
		t.Errorf("Write(.gif) = %v, want ErrUnsupportedFormat", err)
	}
}
