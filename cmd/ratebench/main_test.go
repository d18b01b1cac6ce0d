package main

import (
	"io"
	"slices"
	"testing"
	"time"
)

func TestParseOptions(t *testing.T) {
	o, err := parseOptions([]string{"--mode", "leased", "--target", "50"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(o.modes, []string{modeLeased}) || o.burst != 5 || o.lease != 5 || o.clients != 50 {
		t.Errorf("got modes %v, burst %d, lease %d, clients %d; want [leased], 5 (target/10), 5 (the burst), 50",
			o.modes, o.burst, o.lease, o.clients)
	}
	for _, args := range [][]string{
		{"--mode", "fast"},
		{"--lease", "30"}, // over the default burst of 20
		{"--churn", "50"},
		{"--reply-lost", "1.5"},
		{"--sync", "0s"},
	} {
		if _, err := parseOptions(args, io.Discard); err == nil {
			t.Errorf("parseOptions(%v): no error", args)
		}
	}
}

func TestMostWithin(t *testing.T) {
	start := time.Unix(1000, 0)
	at := func(ms ...int) []time.Time {
		var ts []time.Time
		for _, m := range ms {
			ts = append(ts, start.Add(time.Duration(m)*time.Millisecond))
		}
		return ts
	}
	for _, tc := range []struct {
		grants []time.Time
		want   int
	}{
		{nil, 0},
		{at(0, 500, 999), 3},
		{at(0, 500, 1000), 2},
		{at(0, 1000, 1100, 1200, 2500), 3},
	} {
		if got := mostWithin(tc.grants, time.Second); got != tc.want {
			t.Errorf("mostWithin(%v) = %d, want %d", tc.grants, got, tc.want)
		}
	}
}

func TestSettled(t *testing.T) {
	start := time.Unix(1000, 0)
	// 10 permits a second for three seconds, then 5 a second for three: against a target of
	// 5/s within ±15 %, the rate settles after 3 one-second buckets.
	var grants []time.Time
	for s := range 6 {
		per := 10
		if s >= 3 {
			per = 5
		}
		for i := range per {
			grants = append(grants, start.Add(time.Duration(s)*time.Second+time.Duration(i)*time.Second/time.Duration(per)))
		}
	}
	k, worst := settled(grants, start, start.Add(6*time.Second), time.Second, 5, 0.15)
	if k != 3 || worst != 0 {
		t.Errorf("settled = %d, %v; want 3, 0", k, worst)
	}
	if k, _ := settled(grants, start, start.Add(3*time.Second), time.Second, 5, 0.15); k != -1 {
		t.Errorf("settled over the first 3 s = %d, want -1 (never)", k)
	}
}
