package runner

import (
	"math"
	"sort"
	"time"
)

// Stats summarises a set of durations, in seconds.
type Stats struct {
	// Count is the number of samples.
	Count int `json:"count"`
	// Mean is the arithmetic mean.
	Mean float64 `json:"mean"`
	// P50 and P99 are nearest-rank percentiles.
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
	// Max is the largest sample.
	Max float64 `json:"max"`
}

// StatsOf summarises samples; the zero Stats when there are none.
func StatsOf(samples []time.Duration) Stats {
	if len(samples) == 0 {
		return Stats{}
	}
	s := make([]float64, len(samples))
	var sum float64
	for i, d := range samples {
		s[i] = d.Seconds()
		sum += s[i]
	}
	sort.Float64s(s)
	return Stats{
		Count: len(s),
		Mean:  sum / float64(len(s)),
		P50:   percentile(s, 0.50),
		P99:   percentile(s, 0.99),
		Max:   s[len(s)-1],
	}
}

// percentile returns the nearest-rank percentile p (0 < p ≤ 1) of sorted samples.
func percentile(sorted []float64, p float64) float64 {
	rank := int(math.Ceil(p*float64(len(sorted)))) - 1
	if rank < 0 {
		rank = 0
	}
	return sorted[rank]
}

// MaxOverlap returns the largest number of traces inside the work step at the same instant. An
// interval that ends exactly when another starts does not overlap it.
func MaxOverlap(traces []*Trace) int { return maxOverlapOf(traces, func(*Trace) int { return 1 }) }

// maxWeightOverlap is MaxOverlap counting each execution by its weight (weighted permits).
func maxWeightOverlap(traces []*Trace) int {
	return maxOverlapOf(traces, func(t *Trace) int { return max(t.Weight, 1) })
}

// maxOverlapOf is the largest sum of weight over the executions inside the work at once.
func maxOverlapOf(traces []*Trace, weight func(*Trace) int) int {
	type edge struct {
		at    time.Time
		delta int
	}
	var edges []edge
	for _, t := range traces {
		if t.Worked() {
			w := weight(t)
			edges = append(edges, edge{t.WorkStarted, +w}, edge{t.WorkEnded, -w})
		}
	}
	sort.Slice(edges, func(i, j int) bool {
		if !edges[i].at.Equal(edges[j].at) {
			return edges[i].at.Before(edges[j].at)
		}
		return edges[i].delta < edges[j].delta // ends before starts at the same instant
	})
	cur, best := 0, 0
	for _, e := range edges {
		cur += e.delta
		best = max(best, cur)
	}
	return best
}

// handOffs returns, for every release that left a waiter behind, the time until the next
// execution entered the work step. A waiter is an execution that had started, and had not yet
// entered its work, when the slot was released.
func handOffs(traces []*Trace) []time.Duration {
	var releases, entries []time.Time
	for _, t := range traces {
		if !t.Released.IsZero() {
			releases = append(releases, t.Released)
		}
		if t.Worked() {
			entries = append(entries, t.WorkStarted)
		}
	}
	sort.Slice(releases, func(i, j int) bool { return releases[i].Before(releases[j]) })
	sort.Slice(entries, func(i, j int) bool { return entries[i].Before(entries[j]) })
	var out []time.Duration
	next := 0
	for _, r := range releases {
		if !someoneWaiting(traces, r) {
			continue
		}
		for next < len(entries) && entries[next].Before(r) {
			next++
		}
		if next == len(entries) {
			break
		}
		out = append(out, entries[next].Sub(r))
		next++
	}
	return out
}

// someoneWaiting reports whether an execution had started but not yet entered its work at t.
func someoneWaiting(traces []*Trace, at time.Time) bool {
	for _, t := range traces {
		if t.Started.Before(at) && (!t.Worked() || t.WorkStarted.After(at)) && (t.Ended.IsZero() || t.Ended.After(at)) {
			return true
		}
	}
	return false
}
