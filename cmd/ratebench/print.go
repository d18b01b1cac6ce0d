package main

import (
	"fmt"
	"io"
	"math"
	"time"
)

// band is the accuracy each mode must keep, as a fraction of the target.
var band = map[string]float64{modeExact: 0.02, modeLeased: 0.05, modeAdaptive: 0.15}

// count is the number of grants within [from, to).
func count(grants []time.Time, from, to time.Time) int {
	n := 0
	for _, g := range grants {
		if !g.Before(from) && g.Before(to) {
			n++
		}
	}
	return n
}

// mostWithin is the largest number of grants in any window of length w.
func mostWithin(grants []time.Time, w time.Duration) int {
	most, j := 0, 0
	for i := range grants {
		for grants[i].Sub(grants[j]) >= w {
			j++
		}
		most = max(most, i-j+1)
	}
	return most
}

// deviation is the relative deviation of n grants over d from the target.
func deviation(n int, d time.Duration, target float64) float64 {
	return float64(n)/d.Seconds()/target - 1
}

// settled returns the number of buckets of length step from from until the rate stays within
// the band for the rest of [from, to), and the largest deviation of the buckets from then on;
// -1 when it never settles.
func settled(grants []time.Time, from, to time.Time, step time.Duration, target, within float64) (int, float64) {
	var devs []float64
	for t := from; !t.Add(step).After(to); t = t.Add(step) {
		devs = append(devs, deviation(count(grants, t, t.Add(step)), step, target))
	}
	k := len(devs)
	for k > 0 && math.Abs(devs[k-1]) <= within {
		k--
	}
	if k == len(devs) {
		return -1, 0
	}
	worst := 0.0
	for _, d := range devs[k:] {
		worst = max(worst, math.Abs(d))
	}
	return k, worst
}

// printResult prints one mode's figures.
func printResult(w io.Writer, o options, r result) {
	total := len(r.grants)
	fmt.Fprintf(w, "\n== %s (band ±%g%%) ==\n", r.mode, 100*band[r.mode])
	fmt.Fprintf(w, "permits %d in %v: %.1f/s; wait errors %d; replies lost %d\n",
		total, r.end.Sub(r.start).Round(time.Millisecond), float64(total)/r.end.Sub(r.start).Seconds(), r.errors, r.lost)
	fmt.Fprint(w, "per second:")
	for t := r.start; t.Before(r.end); t = t.Add(time.Second) {
		fmt.Fprintf(w, " %d", count(r.grants, t, t.Add(time.Second)))
	}
	fmt.Fprintln(w)
	worst := 0.0
	for t := r.start; !t.Add(o.window).After(r.end); t = t.Add(o.window) {
		n := count(r.grants, t, t.Add(o.window))
		d := deviation(n, o.window, o.target)
		fmt.Fprintf(w, "  window %5.0fs-%-5.0fs %5d permits %7.1f/s %+6.2f%%\n",
			t.Sub(r.start).Seconds(), t.Add(o.window).Sub(r.start).Seconds(), n, float64(n)/o.window.Seconds(), 100*d)
		worst = max(worst, math.Abs(d))
	}
	if r.mode != modeAdaptive {
		fmt.Fprintf(w, "worst window deviation: %.2f%% (band ±%g%%)\n", 100*worst, 100*band[r.mode])
	} else {
		printAdaptive(w, o, r)
	}
	for _, win := range []time.Duration{time.Second, o.window} {
		bound := o.target*win.Seconds() + float64(o.burst)
		most := mostWithin(r.grants, win)
		fmt.Fprintf(w, "most permits in any %v: %d due (%d by wake-up); target·%v + burst = %.0f; excess %+.0f (%+.0f)\n",
			win, most, mostWithin(r.woke, win), win, bound, float64(most)-bound, float64(mostWithin(r.woke, win))-bound)
	}
	if total > 0 {
		c := r.counts
		fmt.Fprintf(w, "cost: %.3f write units and %.3f read units per permit (%d writes, %d strong reads, %d eventual reads)\n",
			c.WriteUnits()/float64(total), c.ReadUnits()/float64(total), c.Writes, c.StrongReads, c.EventualReads)
	}
}

// printAdaptive prints the adaptive mode's convergence: per phase (all clients; after the churn
// left; after the churn joined), how many sync intervals the rate took to stay within the band,
// and its worst deviation per sync interval since.
func printAdaptive(w io.Writer, o options, r result) {
	type phase struct {
		name     string
		from, to time.Time
	}
	phases := []phase{{fmt.Sprintf("start, %d clients", o.clients), r.start, r.end}}
	if !r.leave.IsZero() {
		phases = []phase{
			{fmt.Sprintf("start, %d clients", o.clients), r.start, r.leave},
			{fmt.Sprintf("%d left", o.churn), r.leave, r.join},
			{fmt.Sprintf("%d joined", o.churn), r.join, r.end},
		}
	}
	for i, p := range phases {
		k, worst := settled(r.grants, p.from, p.to, o.sync, o.target, band[modeAdaptive])
		if i == 0 && k >= 0 {
			defer printConverged(w, o, r, p.from.Add(time.Duration(k)*o.sync))
		}
		if k < 0 {
			fmt.Fprintf(w, "%-22s not within ±%g%% by the end of the phase (%v)\n", p.name+":", 100*band[modeAdaptive], p.to.Sub(p.from).Round(time.Second))
			continue
		}
		fmt.Fprintf(w, "%-22s within ±%g%% after %d sync intervals (%v each), worst %v-bucket deviation since %.1f%%\n",
			p.name+":", 100*band[modeAdaptive], k, o.sync, o.sync, 100*worst)
	}
}

// printConverged prints the most permits in any 1-s and any window-long window from the
// adaptive mode's first convergence on, against target·window + burst.
func printConverged(w io.Writer, o options, r result, from time.Time) {
	var after []time.Time
	for _, g := range r.grants {
		if !g.Before(from) {
			after = append(after, g)
		}
	}
	for _, win := range []time.Duration{time.Second, o.window} {
		bound := o.target*win.Seconds() + float64(o.burst)
		most := mostWithin(after, win)
		fmt.Fprintf(w, "once converged (from %.0fs): most permits in any %v: %d; target·%v + burst = %.0f; excess %+.0f\n",
			from.Sub(r.start).Seconds(), win, most, win, bound, float64(most)-bound)
	}
}
