package simulate

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/emulator/stack"
	"github.com/turnstile-sfn/turnstile/internal/chart"
	"github.com/turnstile-sfn/turnstile/lambdas/testrunner/runner"
	"github.com/turnstile-sfn/turnstile/ratelimit/gcra"
)

// RateWindows are the window lengths, in seconds, over which a run with a Rate counts entries.
var RateWindows = []float64{1, 10, 60}

// RateFigures is what a run with a Rate measured, from the executions' histories. A permit is
// the time the GCRA granted (ratePermit in the data of Wait For Rate Slot, or the time of
// Restart Rate for a permit of an idle rate); an entry is the execution entering Run Work. AWS
// Step Functions waits to the whole second, so the gate releases an execution at its permit's
// time rounded up to the second: entries come in groups at second boundaries, one state
// transition later. Windows are half-open, [t, t+W).
type RateFigures struct {
	// PerSecond, Burst and Mode are the machine's Rate.
	PerSecond float64 `json:"perSecond"`
	Burst     int     `json:"burst"`
	Mode      string  `json:"mode"`
	// Permits counts the executions that entered the work; Rejected those that failed with
	// Turnstile.RateLimited.
	Permits  int `json:"permits"`
	Rejected int `json:"rejected"`
	// EntriesPerSecond is the mean entry rate between the first entry and the last, all keys
	// together.
	EntriesPerSecond float64 `json:"entriesPerSecond"`
	// Windows gives, for each window length, the most permits and entries of one lock seen in
	// any window of that length against their bounds.
	Windows []RateWindow `json:"windows"`
	// MinEntryLagSeconds and MaxEntryLagSeconds bound the time from a permit to its entry: the
	// rounding up to the second and the state transition after the Wait, or the write's own
	// latency for a permit of an idle rate. Never negative: no execution enters early.
	MinEntryLagSeconds float64 `json:"minEntryLagSeconds"`
	MaxEntryLagSeconds float64 `json:"maxEntryLagSeconds"`
	// WriteUnitsPerPermit is the gate's writes (each 1 write unit: the rate item is under
	// 1 KB, and a failed condition is billed as a write) per execution that entered the work;
	// WriteUnitsPerRejection the same per rejected execution (its release not included).
	WriteUnitsPerPermit    float64 `json:"writeUnitsPerPermit"`
	WriteUnitsPerRejection float64 `json:"writeUnitsPerRejection,omitempty"`
	// entries are the entry times, measured from the first start, for the chart.
	entries []time.Duration
}

// RateWindow is the count of one window length W.
type RateWindow struct {
	// Seconds is W.
	Seconds float64 `json:"seconds"`
	// MaxPermits is the most permits in any window [t, t+W); Bound is the GCRA's,
	// floor(W/T) + Burst (T the emission interval).
	MaxPermits int `json:"maxPermits"`
	Bound      int `json:"bound"`
	// MaxEntries is the most entries in any window [t, t+W); EntryBound is the GCRA's bound of a
	// window one second longer, floor((W+1 s)/T) + Burst: a second's rounding of the Wait.
	MaxEntries int `json:"maxEntries"`
	EntryBound int `json:"entryBound"`
}

// Entries returns the entry times measured from the first start, for chart.Concurrency.
func (f *RateFigures) Entries() []time.Duration { return f.entries }

// violations lists the windows whose entries or slots exceed the GCRA bound.
func (f *RateFigures) violations() []string {
	var out []string
	for _, w := range f.Windows {
		if w.MaxPermits > w.Bound {
			out = append(out, fmt.Sprintf("a %gs window held %d permits, above the rate's bound of %d", w.Seconds, w.MaxPermits, w.Bound))
		}
		if w.MaxEntries > w.EntryBound {
			out = append(out, fmt.Sprintf("a %gs window held %d entries, above the bound of %d", w.Seconds, w.MaxEntries, w.EntryBound))
		}
	}
	if f.MinEntryLagSeconds < 0 {
		out = append(out, fmt.Sprintf("an execution entered the work %.3f s before its permit", -f.MinEntryLagSeconds))
	}
	return out
}

// gateTasks are the Rate gate's writes.
var gateTasks = []string{machines.StateTakeRatePermit, machines.StateRestartRate, machines.StateRetakeRatePermit}

// gateTrace is what one execution's history says about the gate.
type gateTrace struct {
	writes  int
	entry   time.Time // zero when the work never started
	permit  time.Time
	limited bool
}

// traceGate reads the gate's writes, the permit and the entry from a history.
func traceGate(events []types.HistoryEvent) (gateTrace, error) {
	var g gateTrace
	current, restartAt := "", time.Time{}
	for _, e := range events {
		at := aws.ToTime(e.Timestamp)
		switch {
		case e.StateEnteredEventDetails != nil:
			prev := current
			current = aws.ToString(e.StateEnteredEventDetails.Name)
			switch current {
			case machines.StateRestartRate:
				restartAt = at
			case machines.StateWaitForRateSlot:
				var in map[string]any
				if err := json.Unmarshal([]byte(aws.ToString(e.StateEnteredEventDetails.Input)), &in); err != nil {
					return g, fmt.Errorf("simulate: the input of %s: %w", current, err)
				}
				s, _ := in["ratePermit"].(string)
				t, err := time.Parse(time.RFC3339Nano, s)
				if err != nil {
					return g, fmt.Errorf("simulate: the permit %q of %s: %w", s, current, err)
				}
				g.permit = t
			case machines.StateRunWork:
				if g.entry.IsZero() {
					g.entry = at
					if prev == machines.StateRestartRate {
						g.permit = restartAt
					}
				}
			}
		case e.Type == types.HistoryEventTypeTaskScheduled && slices.Contains(gateTasks, current):
			g.writes++
		case e.Type == types.HistoryEventTypeExecutionFailed && e.ExecutionFailedEventDetails != nil:
			g.limited = aws.ToString(e.ExecutionFailedEventDetails.Error) == machines.ErrorRateLimited
		}
	}
	return g, nil
}

// rateFigures measures the run of a machine with the given Rate from its executions' histories.
func rateFigures(ctx context.Context, st *stack.Stack, rate *machines.RateOptions, report *runner.Report) (*RateFigures, error) {
	f := &RateFigures{PerSecond: rate.PerSecond, Burst: rate.Burst, Mode: string(rate.Mode)}
	client := st.StepFunctionsClient()
	var first time.Time
	for _, t := range report.Executions {
		if first.IsZero() || t.Started.Before(first) {
			first = t.Started
		}
	}
	// The rate is per lock: entries are counted per key (one key, "", for a fixed lock name).
	entries, permits := map[string][]time.Time{}, map[string][]time.Time{}
	var all []time.Time
	permitWrites, rejectedWrites := 0, 0
	for _, t := range report.Executions {
		events, err := runner.History(ctx, client, t.ExecutionArn)
		if err != nil {
			return nil, err
		}
		g, err := traceGate(events)
		if err != nil {
			return nil, err
		}
		switch {
		case !g.entry.IsZero():
			f.Permits++
			permitWrites += g.writes
			entries[t.Key], permits[t.Key] = append(entries[t.Key], g.entry), append(permits[t.Key], g.permit)
			lag := g.entry.Sub(g.permit).Seconds()
			if len(all) == 0 || lag < f.MinEntryLagSeconds {
				f.MinEntryLagSeconds = lag
			}
			f.MaxEntryLagSeconds = max(f.MaxEntryLagSeconds, lag)
			all = append(all, g.entry)
			f.entries = append(f.entries, g.entry.Sub(first))
		case g.limited:
			f.Rejected++
			rejectedWrites += g.writes
		}
	}
	slices.SortFunc(all, time.Time.Compare)
	slices.Sort(f.entries)
	if n := len(all); n > 1 {
		if span := all[n-1].Sub(all[0]).Seconds(); span > 0 {
			f.EntriesPerSecond = float64(n-1) / span
		}
	}
	if f.Permits > 0 {
		f.WriteUnitsPerPermit = float64(permitWrites) / float64(f.Permits)
	}
	if f.Rejected > 0 {
		f.WriteUnitsPerRejection = float64(rejectedWrites) / float64(f.Rejected)
	}
	interval := gcra.Interval(rate.PerSecond)
	for _, w := range RateWindows {
		d := time.Duration(w * float64(time.Second))
		f.Windows = append(f.Windows, RateWindow{Seconds: w,
			MaxPermits: mostWithinAny(permits, d), Bound: int(d/interval) + rate.Burst,
			MaxEntries: mostWithinAny(entries, d), EntryBound: int((d+time.Second)/interval) + rate.Burst})
	}
	return f, nil
}

// mostWithinAny returns the most times of one key that fall in one window [t, t+d).
func mostWithinAny(byKey map[string][]time.Time, d time.Duration) int {
	most := 0
	for _, times := range byKey {
		slices.SortFunc(times, time.Time.Compare)
		most = max(most, mostWithin(times, d))
	}
	return most
}

// mostWithin returns the most of the sorted times that fall in one window [t, t+d).
func mostWithin(times []time.Time, d time.Duration) int {
	most, j := 0, 0
	for i := range times {
		for j < len(times) && times[j].Before(times[i].Add(d)) {
			j++
		}
		most = max(most, j-i)
	}
	return most
}

// EntryRate is the entry rate the chart draws, or nil for a machine without a Rate.
func (r *Result) EntryRate() *chart.EntryRate {
	if r.Rate == nil {
		return nil
	}
	return &chart.EntryRate{PerSecond: r.Rate.PerSecond, Entries: r.Rate.entries}
}
