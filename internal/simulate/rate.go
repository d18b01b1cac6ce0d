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

// RateFigures is what a run with a Rate measured. An entry is an execution entering Run Work
// (from its history); its slot is the time its permit allowed it in: the timestamp Wait For Rate
// Slot waited until or, for a permit of an idle rate, the time of Restart Rate.
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
	// Windows gives, for each window length, the most entries and slots of one lock seen in any
	// window of that length and the GCRA bound floor(W/T) + Burst (T the emission interval).
	Windows []RateWindow `json:"windows"`
	// MaxEntryLagSeconds is the longest time between a permit's slot and its entry: the state
	// transition after the Wait, or the write's own latency for a permit of an idle rate.
	MaxEntryLagSeconds float64 `json:"maxEntryLagSeconds"`
	// WriteUnitsPerPermit is the gate's writes (each 1 write unit: the rate item is under
	// 1 KB, and a failed condition is billed as a write) per execution that entered the work;
	// WriteUnitsPerRejection the same per rejected execution (its release not included).
	WriteUnitsPerPermit    float64 `json:"writeUnitsPerPermit"`
	WriteUnitsPerRejection float64 `json:"writeUnitsPerRejection,omitempty"`
	// entries are the entry times, measured from the first start, for the chart.
	entries []time.Duration
}

// RateWindow is the count of one window length.
type RateWindow struct {
	Seconds    float64 `json:"seconds"`
	MaxEntries int     `json:"maxEntries"`
	MaxSlots   int     `json:"maxSlots"`
	Bound      int     `json:"bound"`
}

// Entries returns the entry times measured from the first start, for chart.Concurrency.
func (f *RateFigures) Entries() []time.Duration { return f.entries }

// violations lists the windows whose entries or slots exceed the GCRA bound.
func (f *RateFigures) violations() []string {
	var out []string
	for _, w := range f.Windows {
		if w.MaxEntries > w.Bound || w.MaxSlots > w.Bound {
			out = append(out, fmt.Sprintf("a %gs window held %d entries and %d slots, above the rate's bound of %d", w.Seconds, w.MaxEntries, w.MaxSlots, w.Bound))
		}
	}
	return out
}

// gateTasks are the Rate gate's writes.
var gateTasks = []string{machines.StateTakeRatePermit, machines.StateRestartRate, machines.StateRetakeRatePermit}

// gateTrace is what one execution's history says about the gate.
type gateTrace struct {
	writes  int
	entry   time.Time // zero when the work never started
	slot    time.Time
	limited bool
}

// traceGate reads the gate's writes, the permit's slot and the entry from a history.
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
				s, _ := in["rateSlot"].(string)
				t, err := time.Parse(time.RFC3339Nano, s)
				if err != nil {
					return g, fmt.Errorf("simulate: the slot %q of %s: %w", s, current, err)
				}
				g.slot = t
			case machines.StateRunWork:
				if g.entry.IsZero() {
					g.entry = at
					if prev == machines.StateRestartRate {
						g.slot = restartAt
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
	entries, slots := map[string][]time.Time{}, map[string][]time.Time{}
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
			entries[t.Key], slots[t.Key] = append(entries[t.Key], g.entry), append(slots[t.Key], g.slot)
			all = append(all, g.entry)
			f.MaxEntryLagSeconds = max(f.MaxEntryLagSeconds, g.entry.Sub(g.slot).Seconds())
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
		f.Windows = append(f.Windows, RateWindow{Seconds: w, MaxEntries: mostWithinAny(entries, d), MaxSlots: mostWithinAny(slots, d),
			Bound: int(d/interval) + rate.Burst})
	}
	return f, nil
}

// mostWithinAny returns the most times of one key that fall in one closed window of length d.
func mostWithinAny(byKey map[string][]time.Time, d time.Duration) int {
	most := 0
	for _, times := range byKey {
		slices.SortFunc(times, time.Time.Compare)
		most = max(most, mostWithin(times, d))
	}
	return most
}

// mostWithin returns the most of the sorted times that fall in one closed window of length d.
func mostWithin(times []time.Time, d time.Duration) int {
	most, j := 0, 0
	for i := range times {
		for j < len(times) && !times[j].After(times[i].Add(d)) {
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
