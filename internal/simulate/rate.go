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

// RateWindows are the window lengths, in seconds, over which a run with a Rate counts permits,
// admissions and entries.
var RateWindows = []float64{1, 10, 60}

// RateFigures is what a run with a Rate measured, from the executions' histories (see the
// comment at the top of asl/machines/rate.go). A permit is the time the GCRA granted
// (ratePermit in the data of Wait For Rate Slot, or the time of Restart Rate for a permit of an
// idle rate in Reject mode). An admission is when the gate let the execution go: the end of Wait
// For Rate Slot, at a whole second or at once (AWS Step Functions waits to the second), or the
// end of Restart Rate in Reject mode. An entry is the execution entering Run Work, one state
// transition after its admission. Windows are half-open, [t, t+W), and counted per lock.
type RateFigures struct {
	// PerSecond, Burst and Mode are the machine's Rate.
	PerSecond float64 `json:"perSecond"`
	Burst     int     `json:"burst"`
	Mode      string  `json:"mode"`
	// Permits counts the executions that entered the work; Rejected those that failed with
	// Turnstile.RateLimited.
	Permits  int `json:"permits"`
	Rejected int `json:"rejected"`
	// RejectedUnreleased counts the rejected executions whose history shows no successful
	// release of their slot before they failed: 0, or a rejection held a slot.
	RejectedUnreleased int `json:"rejectedUnreleased"`
	// AdmissionsPerSecond is the mean admission rate between the first admission and the last,
	// all keys together.
	AdmissionsPerSecond float64 `json:"admissionsPerSecond"`
	// Windows gives, for each window length, the most permits, admissions and entries of one
	// lock seen in any window of that length against their bounds.
	Windows []RateWindow `json:"windows"`
	// PermitBurst is the smallest burst the permits of every lock conform to, replaying the
	// GCRA (same interval) over them in time order, to the millisecond they are recorded in:
	// at most Burst, or the gate's arithmetic is wrong.
	PermitBurst int `json:"permitBurst"`
	// AdmissionBurst is the same for the admissions. Above Burst when the Wait releases more
	// executions at one whole second than Burst: with a backlog, about PerSecond of them. What
	// a downstream that enforces its own GCRA or token bucket on the work's calls must allow.
	AdmissionBurst int `json:"admissionBurst"`
	// MinAdmissionLagSeconds and MaxAdmissionLagSeconds bound the time from a permit to its
	// admission: the wait for the whole second, or the write's reply and a transition for an
	// admission at once. Never negative: no execution is admitted before its permit.
	MinAdmissionLagSeconds float64 `json:"minAdmissionLagSeconds"`
	MaxAdmissionLagSeconds float64 `json:"maxAdmissionLagSeconds"`
	// MinEntryLagSeconds, EntryLagP50Seconds and EntryLagMaxSeconds describe the time from an
	// admission to its entry: one state transition.
	MinEntryLagSeconds float64 `json:"minEntryLagSeconds"`
	EntryLagP50Seconds float64 `json:"entryLagP50Seconds"`
	EntryLagMaxSeconds float64 `json:"entryLagMaxSeconds"`
	// WriteUnitsPerPermit is the gate's writes (each 1 write unit: the rate item is under
	// 1 KB, and a failed condition is billed as a write) per execution that entered the work;
	// WriteUnitsPerRejection the same per rejected execution (its release not included).
	WriteUnitsPerPermit    float64 `json:"writeUnitsPerPermit"`
	WriteUnitsPerRejection float64 `json:"writeUnitsPerRejection,omitempty"`
	// admissions are the admission times, measured from the first start, for the chart.
	admissions []time.Duration
}

// RateWindow is the count of one window length W.
type RateWindow struct {
	// Seconds is W.
	Seconds float64 `json:"seconds"`
	// MaxPermits and MaxAdmissions are the most permits and admissions in any window [t, t+W);
	// Bound is the Rate's promise, floor(W/T) + Burst (T the emission interval), which both
	// keep.
	MaxPermits    int `json:"maxPermits"`
	MaxAdmissions int `json:"maxAdmissions"`
	Bound         int `json:"bound"`
	// ExactBound is the most a GCRA-conformant sequence can put in a window [t, t+W),
	// ⌈W/T⌉ + Burst − 1: one less than Bound when W/T is whole. The permits keep it (PermitBurst
	// checks them exactly); so do the admissions of Delay mode for a whole W, but for the lag of
	// an admission at once after its decision (none with Burst 1; see asl/machines/rate.go).
	ExactBound int `json:"exactBound"`
	// MaxEntries is the most entries in any window [t, t+W), for information: the transition
	// after the admission spreads a whole second's group, so EntryBound is the GCRA's bound of
	// a window one second longer, floor((W+1 s)/T) + Burst.
	MaxEntries int `json:"maxEntries"`
	EntryBound int `json:"entryBound"`
}

// Admissions returns the admission times measured from the first start, for chart.AdmissionRate.
func (f *RateFigures) Admissions() []time.Duration { return f.admissions }

// violations lists what breaks the Rate's promise: a window with more permits or admissions
// than the GCRA bound, permits that do not conform to the GCRA, a rejection that kept its slot,
// an admission before its permit or an entry before its admission.
func (f *RateFigures) violations() []string {
	var out []string
	for _, w := range f.Windows {
		if w.MaxPermits > w.Bound {
			out = append(out, fmt.Sprintf("a %gs window held %d permits, above the rate's bound of %d", w.Seconds, w.MaxPermits, w.Bound))
		}
		if w.MaxAdmissions > w.Bound {
			out = append(out, fmt.Sprintf("a %gs window held %d admissions, above the rate's bound of %d", w.Seconds, w.MaxAdmissions, w.Bound))
		}
	}
	if f.PermitBurst > f.Burst {
		out = append(out, fmt.Sprintf("the permits conform to the GCRA only with a burst of %d, above the rate's %d", f.PermitBurst, f.Burst))
	}
	if f.RejectedUnreleased > 0 {
		out = append(out, fmt.Sprintf("%d rejected executions failed without giving their slot back", f.RejectedUnreleased))
	}
	if f.MinAdmissionLagSeconds < 0 {
		out = append(out, fmt.Sprintf("an execution was admitted %.3f s before its permit", -f.MinAdmissionLagSeconds))
	}
	if f.MinEntryLagSeconds < 0 {
		out = append(out, fmt.Sprintf("an execution entered the work %.3f s before its admission", -f.MinEntryLagSeconds))
	}
	return out
}

// gateTasks are the Rate gate's writes.
var gateTasks = []string{machines.StateTakeRatePermit, machines.StateRestartRate, machines.StateRetakeRatePermit}

// gateTrace is what one execution's history says about the gate.
type gateTrace struct {
	writes    int
	permit    time.Time
	admission time.Time
	entry     time.Time // zero when the work never started
	limited   bool
	released  bool // the release after a failure succeeded
}

// traceGate reads the gate's writes, the permit, the admission, the entry, and a rejection and
// its release from a history.
func traceGate(events []types.HistoryEvent) (gateTrace, error) {
	var g gateTrace
	current, restartAt := "", time.Time{}
	exited := map[string]time.Time{} // the last exit of each gate state
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
				if !g.entry.IsZero() {
					break
				}
				g.entry = at
				switch prev {
				case machines.StateRestartRate:
					// Reject mode: the permit is the Restart's now, its entered time to the
					// millisecond.
					g.permit, g.admission = restartAt.Truncate(time.Millisecond), exited[prev]
				case machines.StateWaitForRateSlot:
					g.admission = exited[prev]
				default:
					return g, fmt.Errorf("simulate: %s entered from %q, around the Rate gate", current, prev)
				}
			}
		case e.StateExitedEventDetails != nil:
			exited[aws.ToString(e.StateExitedEventDetails.Name)] = at
		case e.Type == types.HistoryEventTypeTaskScheduled && slices.Contains(gateTasks, current):
			g.writes++
		case e.Type == types.HistoryEventTypeTaskSucceeded && current == machines.StateReleaseAfterFailure:
			g.released = true
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
	// The rate is per lock: times are counted per key (one key, "", for a fixed lock name).
	permits, admissions, entries := map[string][]time.Time{}, map[string][]time.Time{}, map[string][]time.Time{}
	var all []time.Time
	var entryLags []time.Duration
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
			permitWrites += g.writes
			permits[t.Key] = append(permits[t.Key], g.permit)
			admissions[t.Key] = append(admissions[t.Key], g.admission)
			entries[t.Key] = append(entries[t.Key], g.entry)
			lag := g.admission.Sub(g.permit).Seconds()
			if f.Permits == 0 || lag < f.MinAdmissionLagSeconds {
				f.MinAdmissionLagSeconds = lag
			}
			f.MaxAdmissionLagSeconds = max(f.MaxAdmissionLagSeconds, lag)
			entryLags = append(entryLags, g.entry.Sub(g.admission))
			f.Permits++
			all = append(all, g.admission)
			f.admissions = append(f.admissions, g.admission.Sub(first))
		case g.limited:
			f.Rejected++
			rejectedWrites += g.writes
			if !g.released {
				f.RejectedUnreleased++
			}
		}
	}
	slices.SortFunc(all, time.Time.Compare)
	slices.Sort(f.admissions)
	if n := len(all); n > 1 {
		if span := all[n-1].Sub(all[0]).Seconds(); span > 0 {
			f.AdmissionsPerSecond = float64(n-1) / span
		}
	}
	if n := len(entryLags); n > 0 {
		slices.Sort(entryLags)
		f.MinEntryLagSeconds, f.EntryLagP50Seconds, f.EntryLagMaxSeconds = entryLags[0].Seconds(), entryLags[(n-1)/2].Seconds(), entryLags[n-1].Seconds()
	}
	if f.Permits > 0 {
		f.WriteUnitsPerPermit = float64(permitWrites) / float64(f.Permits)
	}
	if f.Rejected > 0 {
		f.WriteUnitsPerRejection = float64(rejectedWrites) / float64(f.Rejected)
	}
	interval := gcra.Interval(rate.PerSecond)
	// The permits are recorded to the millisecond, rounded up: allow that much.
	f.PermitBurst = conformantBurstAny(permits, interval, time.Millisecond)
	f.AdmissionBurst = conformantBurstAny(admissions, interval, 0)
	for _, w := range RateWindows {
		d := time.Duration(w * float64(time.Second))
		f.Windows = append(f.Windows, RateWindow{Seconds: w,
			MaxPermits: mostWithinAny(permits, d), MaxAdmissions: mostWithinAny(admissions, d),
			Bound: int(d/interval) + rate.Burst, ExactBound: int((d+interval-1)/interval) + rate.Burst - 1,
			MaxEntries: mostWithinAny(entries, d), EntryBound: int((d+time.Second)/interval) + rate.Burst})
	}
	return f, nil
}

// conformantBurstAny returns the largest conformantBurst of the times of one key.
func conformantBurstAny(byKey map[string][]time.Time, interval, slack time.Duration) int {
	most := 0
	for _, times := range byKey {
		slices.SortFunc(times, time.Time.Compare)
		most = max(most, conformantBurst(times, interval, slack))
	}
	return most
}

// conformantBurst returns the smallest burst B with which the sorted times conform to the GCRA
// of the given emission interval T (every one of them a permit), each time allowed to be slack
// late: B = 1 + ⌈τ/T⌉ with τ the least tolerance, the largest (j−i)·T − (t_j − t_i) − slack
// over i < j; 1 for no times. The GCRA grants a permit at t while its TAT, advanced by T, stays
// within t + B·T, so a sequence conforms with B exactly when τ <= (B−1)·T.
func conformantBurst(times []time.Time, interval, slack time.Duration) int {
	if len(times) == 0 {
		return 1
	}
	// (j−i)·T − (t_j − t_i) = d(j) − d(i) with d(k) = k·T − (t_k − t_0).
	d := func(k int) time.Duration { return time.Duration(k)*interval - times[k].Sub(times[0]) }
	var tau time.Duration
	least := d(0)
	for j := 1; j < len(times); j++ {
		tau = max(tau, d(j)-least-slack)
		least = min(least, d(j))
	}
	return 1 + int((tau+interval-1)/interval)
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

// AdmissionRate is the admission rate the chart draws, or nil for a machine without a Rate.
func (r *Result) AdmissionRate() *chart.AdmissionRate {
	if r.Rate == nil {
		return nil
	}
	return &chart.AdmissionRate{PerSecond: r.Rate.PerSecond, Admissions: r.Rate.admissions}
}
