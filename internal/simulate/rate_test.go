package simulate

import (
	"testing"
	"time"
)

// TestMostWithin checks the count of the busiest closed window, ends included.
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
		{at(0, 500, 1000, 1500), time.Second, 3},
		{at(0, 500, 1000, 1500), 999 * time.Millisecond, 2},
		{at(0, 10, 20, 5000), 20 * time.Millisecond, 3},
	}
	for _, tc := range tests {
		if got := mostWithin(tc.times, tc.d); got != tc.want {
			t.Errorf("mostWithin(%v, %v) = %d, want %d", tc.times, tc.d, got, tc.want)
		}
	}
	byKey := map[string][]time.Time{"a": at(1000, 0, 500), "b": at(0, 100, 200, 300)}
	if got := mostWithinAny(byKey, 300*time.Millisecond); got != 4 {
		t.Errorf("mostWithinAny = %d, want 4 (key b)", got)
	}
}

// TestRateViolations checks that a window above its bound is reported and one at it is not.
func TestRateViolations(t *testing.T) {
	f := &RateFigures{Windows: []RateWindow{{Seconds: 1, MaxEntries: 3, MaxSlots: 3, Bound: 3}}}
	if v := f.violations(); len(v) != 0 {
		t.Errorf("violations at the bound: %v", v)
	}
	f.Windows = append(f.Windows, RateWindow{Seconds: 10, MaxEntries: 22, MaxSlots: 21, Bound: 21})
	if v := f.violations(); len(v) != 1 {
		t.Errorf("violations = %v, want one for the 10 s window", v)
	}
}
