package simulate

import (
	"testing"
	"time"
)

// TestMostWithin checks the count of the busiest window [t, t+d): its start in, its end out.
func TestMostWithin(t *testing.T) {
	at := func(ms ...int) []time.Time {
		var out []time.Time
		for _, m := range ms {
			out = append(out, time.Unix(0, 0).Add(time.Duration(m)*time.Millisecond))
		}
		return out
	}
	tests := []struct {
		times []time.Time
		d     time.Duration
		want  int
	}{
		{nil, time.Second, 0},
		{at(0, 500, 1000, 1500), time.Second, 2},
		{at(0, 500, 1000, 1500), 1001 * time.Millisecond, 3},
		{at(0, 10, 20, 5000), 20 * time.Millisecond, 2},
		{at(1000, 1000, 2000, 2000), time.Second, 2},
	}
	for _, tc := range tests {
		if got := mostWithin(tc.times, tc.d); got != tc.want {
			t.Errorf("mostWithin(%v, %v) = %d, want %d", tc.times, tc.d, got, tc.want)
		}
	}
	byKey := map[string][]time.Time{"a": at(1000, 0, 500), "b": at(0, 100, 200, 300)}
	if got := mostWithinAny(byKey, 301*time.Millisecond); got != 4 {
		t.Errorf("mostWithinAny = %d, want 4 (key b)", got)
	}
}

// TestRateViolations checks that a window above its bound is reported and one at it is not,
// and that an entry before its permit is.
func TestRateViolations(t *testing.T) {
	f := &RateFigures{Windows: []RateWindow{{Seconds: 1, MaxPermits: 3, Bound: 3, MaxEntries: 5, EntryBound: 5}}}
	if v := f.violations(); len(v) != 0 {
		t.Errorf("violations at the bounds: %v", v)
	}
	f.Windows = append(f.Windows, RateWindow{Seconds: 10, MaxPermits: 22, Bound: 21, MaxEntries: 24, EntryBound: 23})
	if v := f.violations(); len(v) != 2 {
		t.Errorf("violations = %v, want the 10 s window's permits and entries", v)
	}
	f.Windows, f.MinEntryLagSeconds = nil, -0.001
	if v := f.violations(); len(v) != 1 {
		t.Errorf("violations = %v, want the early entry", v)
	}
}
