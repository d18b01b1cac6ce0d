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

// TestRateViolations checks that a window with more permits or admissions than the bound is
// reported and one at it is not, nor one with more entries (information only); and that
// non-conforming permits, an admission before its permit, an entry before its admission and a
// rejection that kept its slot are.
func TestRateViolations(t *testing.T) {
	f := &RateFigures{Burst: 1, PermitBurst: 1, AdmissionBurst: 2, Windows: []RateWindow{{Seconds: 1, MaxPermits: 3, MaxAdmissions: 3, Bound: 3, MaxEntries: 6, EntryBound: 5}}}
	if v := f.violations(); len(v) != 0 {
		t.Errorf("violations at the bounds: %v", v)
	}
	f.Windows = append(f.Windows, RateWindow{Seconds: 10, MaxPermits: 22, MaxAdmissions: 21, Bound: 21}, RateWindow{Seconds: 60, MaxPermits: 121, MaxAdmissions: 122, Bound: 121})
	if v := f.violations(); len(v) != 2 {
		t.Errorf("violations = %v, want the 10 s window's permits and the 60 s window's admissions", v)
	}
	f.Windows, f.PermitBurst = nil, 2
	if v := f.violations(); len(v) != 1 {
		t.Errorf("violations = %v, want the permits' burst", v)
	}
	f.PermitBurst, f.MinAdmissionLagSeconds, f.MinEntryLagSeconds = 1, -0.001, -0.002
	if v := f.violations(); len(v) != 2 {
		t.Errorf("violations = %v, want the early admission and the early entry", v)
	}
	f.MinAdmissionLagSeconds, f.MinEntryLagSeconds, f.RejectedUnreleased = 0, 0, 1
	if v := f.violations(); len(v) != 1 {
		t.Errorf("violations = %v, want the rejection that kept its slot", v)
	}
}

// TestConformantBurst checks the smallest burst of a GCRA replay: evenly spaced times need 1,
// whole-second groups of two at 2 a second need 2, and slack forgives late times.
func TestConformantBurst(t *testing.T) {
	at := func(ms ...int) []time.Time {
		var out []time.Time
		for _, m := range ms {
			out = append(out, time.Unix(100, 0).Add(time.Duration(m)*time.Millisecond))
		}
		return out
	}
	half := 500 * time.Millisecond
	tests := []struct {
		name     string
		times    []time.Time
		interval time.Duration
		slack    time.Duration
		want     int
	}{
		{"none", nil, half, 0, 1},
		{"evenly spaced", at(0, 500, 1000, 1500), half, 0, 1},
		{"spaced wider", at(0, 700, 5000), half, 0, 1},
		{"one early by a millisecond", at(0, 499, 1000), half, 0, 2},
		{"the same, within the slack", at(0, 499, 1000), half, time.Millisecond, 1},
		{"groups at whole seconds", at(1000, 1000, 2000, 2000, 3000, 3000), half, 0, 2},
		{"a burst of three then the rate", at(0, 0, 0, 500, 1000), half, 0, 3},
		{"a burst after an idle time", at(0, 500, 10000, 10000, 10000), half, 0, 3},
	}
	for _, tc := range tests {
		if got := conformantBurst(tc.times, tc.interval, tc.slack); got != tc.want {
			t.Errorf("%s: conformantBurst = %d, want %d", tc.name, got, tc.want)
		}
	}
}
