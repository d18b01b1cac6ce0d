package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/internal/capacity"
	"github.com/turnstile-sfn/turnstile/internal/simulate"
	"github.com/turnstile-sfn/turnstile/lambdas/testrunner/runner"
	"github.com/turnstile-sfn/turnstile/lock"
	"github.com/turnstile-sfn/turnstile/metrics"
)

// printResult renders a simulation as a table a person reads.
func printResult(w io.Writer, res *simulate.Result, f simulateFlags) {
	r := res.Report
	clock := fmt.Sprintf("time scale %g", f.timeScale)
	if f.timeScale == 0 {
		clock = "time skipped"
	}
	if res.Locks != nil {
		fmt.Fprintf(w, "\n%d executions through a semaphore of %d locks (seed %d, %s; times are virtual)\n\n", r.Started, len(res.Locks), f.seed, clock)
	} else {
		fmt.Fprintf(w, "\n%d executions through a semaphore of limit %d (seed %d, %s; times are virtual)\n\n", r.Started, res.Limit, f.seed, clock)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	printReport(tw, r, res.Locks != nil)
	verdict := func(n int) string {
		if n > res.Limit {
			return "OVER THE LIMIT"
		}
		return "ok"
	}
	ideal := "total work / limit"
	if res.Locks != nil {
		ideal = printLockFigures(tw, res.Locks)
	} else if byKey := r.MaxConcurrentWorkByKey; byKey != nil {
		keys := slices.Sorted(maps.Keys(byKey))
		most, parts := 0, make([]string, len(keys))
		for i, k := range keys {
			most, parts[i] = max(most, byKey[k]), fmt.Sprintf("%s %d", k, byKey[k])
		}
		fmt.Fprintf(tw, "Most inside the work at once\t%d of %d per key (%s); %d in all\t%s\n", most, res.Limit, strings.Join(parts, ", "), r.MaxConcurrentWork, verdict(most))
		ideal = fmt.Sprintf("total work / (limit × %d keys)", len(keys))
	} else {
		fmt.Fprintf(tw, "Most inside the work at once\t%d of %d\t%s\n", r.MaxConcurrentWork, res.Limit, verdict(r.MaxConcurrentWork))
	}
	if rf := res.Rate; rf != nil {
		printRate(tw, rf)
	}
	if r.MaxConcurrentWeight > 0 && res.LockNamePath != "" {
		// The weight is measured over all keys together, each of which has the limit.
		fmt.Fprintf(tw, "Most weight inside the work at once\t%d in all (%d per key; per key not measured)\t\n", r.MaxConcurrentWeight, res.Limit)
	} else if r.MaxConcurrentWeight > 0 {
		fmt.Fprintf(tw, "Most weight inside the work at once\t%d of %d\t%s\n", r.MaxConcurrentWeight, res.Limit, verdict(r.MaxConcurrentWeight))
		ideal = "total weight × work time / limit"
		if res.MakespanOverIdeal > 0 {
			fmt.Fprintf(tw, "Slots used (weighted work / (limit × makespan))\t%.1f %%: %.1f %% of the throughput lost (head-of-line blocking and the run's tail)\t\n",
				100/res.MakespanOverIdeal, 100-100/res.MakespanOverIdeal)
		}
	}
	if sf := res.Submissions; sf != nil {
		printSubmissions(tw, sf)
	}
	fmt.Fprintf(tw, "Makespan over ideal\t%.2f× (ideal: %s = %.1f s)\t\n", res.MakespanOverIdeal, ideal, res.IdealMakespanSeconds)
	fmt.Fprintf(tw, "Cost per execution, all included\t%.1f billed state transitions, %.1f DynamoDB requests\t(cleanup, hand-off and reconciler too)\n", res.TransitionsPerExecution, res.DynamoDBRequestsPerExecution)
	printCapacity(tw, res.PerExecution)
	fmt.Fprintf(tw, "Undelivered events\t%d\t\n", res.DeadLetters)
	printMetrics(tw, res.Metrics)
	if len(res.UnexpectedFailures) > 0 {
		fmt.Fprintf(tw, "Unexpected failures\t%s\tNOT A GOOD RUN\n", failures(res.UnexpectedFailures))
	}
	if fc := res.Faults; fc.DynamoDB.Faults()+fc.EventsDropped+fc.EventsDuplicated+fc.StartRepliesLost > 0 {
		fmt.Fprintf(tw, "Faults injected\t%d DynamoDB replies lost, %d requests lost, %d throttled (of %d); %d events dropped, %d duplicated; %d StartExecution replies lost\t\n",
			fc.DynamoDB.AppliedReplyLost, fc.DynamoDB.LostBefore, fc.DynamoDB.Throttled, fc.DynamoDB.Requests, fc.EventsDropped, fc.EventsDuplicated, fc.StartRepliesLost)
	}
	fmt.Fprintf(tw, "Wall time\t%.1f s\t\n", res.WallSeconds)
	if f.chart != "" {
		fmt.Fprintf(tw, "Chart\t%s\t\n", f.chart)
	}
	tw.Flush()
}

// printLockFigures renders the most inside the work at once of each lock of a semaphore with several
// locks or a total cap, and returns what the ideal makespan is.
func printLockFigures(tw *tabwriter.Writer, locks map[string]simulate.LockFigures) string {
	verdict := "ok"
	names := slices.Sorted(maps.Keys(locks))
	parts := make([]string, len(names))
	for i, n := range names {
		l := locks[n]
		parts[i] = fmt.Sprintf("%s %d of %d", n, l.MaxConcurrentWork, l.Limit)
		if l.MaxConcurrentWork > l.Limit {
			verdict = "OVER THE LIMIT"
		}
	}
	fmt.Fprintf(tw, "Most inside the work at once, per lock\t%s\t%s\n", strings.Join(parts, ", "), verdict)
	return "the busiest lock's work / its limit"
}

// printReport renders the figures every load test has, simulated or not. With several locks
// the order of admission is not judged: an execution queues on each of its locks in turn.
func printReport(tw *tabwriter.Writer, r *runner.Report, severalLocks bool) {
	fmt.Fprintf(tw, "Executions\t%d started, %d succeeded, %d failed%s\t\n", r.Started, r.Succeeded, r.Failed, failures(r.FailedByError))
	leak := "ok"
	if r.Locks == nil {
		leak = "not checked"
	} else if r.LeakedSlots > 0 {
		leak = "LEAKED"
	}
	fmt.Fprintf(tw, "Slots held after the run\t%d\t%s\n", r.LeakedSlots, leak)
	fmt.Fprintf(tw, "Makespan\t%.1f s\t\n", r.MakespanSeconds)
	fmt.Fprintf(tw, "Wait for a slot\tmean %.1f s, p99 %.1f s\t\n", r.WaitForSlot.Mean, r.WaitForSlot.P99)
	fmt.Fprintf(tw, "Hand-off, release to next start\tp50 %.2f s, p99 %.2f s (%d hand-offs)\t\n", r.HandOff.P50, r.HandOff.P99, r.HandOff.Count)
	fmt.Fprintf(tw, "Per execution, from its history\t%.1f billed state transitions, %.1f DynamoDB requests of its own tasks\t\n", r.TransitionsPerExecution, r.DynamoDBRequestsPerExecution)
	if r.Queued > 0 {
		order := "ok"
		if r.AdmissionOrderInversions > 0 {
			order = "OUT OF ORDER"
		}
		if severalLocks {
			left := "ok"
			if r.WaitersLeft > 0 {
				left = "LEFT QUEUED"
			}
			fmt.Fprintf(tw, "Wait queue\t%d queued, %d admitted from the queue, out of enqueue order n/a (several locks), %d left\t%s\n", r.Queued, r.AdmittedFromQueue, r.WaitersLeft, left)
		} else {
			fmt.Fprintf(tw, "Wait queue\t%d queued, %d admitted from the queue, %d out of enqueue order, %d left\t%s\n", r.Queued, r.AdmittedFromQueue, r.AdmissionOrderInversions, r.WaitersLeft, order)
		}
	}
	if p := r.Priorities; p != nil {
		promise := "ok"
		if p.AgainstPromise > 0 {
			promise = "BROKEN"
		}
		levels := slices.Sorted(maps.Keys(p.Waiters))
		var by []string
		for _, l := range levels {
			by = append(by, fmt.Sprintf("priority %d: %d", l, p.Waiters[l]))
		}
		fmt.Fprintf(tw, "Priorities, waiters admitted\t%s\t\n", strings.Join(by, ", "))
		fmt.Fprintf(tw, "Priorities, pairs (lower queued first)\t%d: %d higher admitted first, %d lower first as ageing bounds it, %d simultaneous, %d against the promise\t%s\n",
			p.Pairs, p.HigherFirst, p.AgedFirst, p.Simultaneous, p.AgainstPromise, promise)
	}
}

// printSubmissions renders what a run in submission mode measured.
func printSubmissions(tw *tabwriter.Writer, f *simulate.SubmissionFigures) {
	verdict := "ok"
	if len(f.ByOutcome) != 1 || f.ByOutcome[lock.OutcomeStarted] != f.Submitted || f.Executions != f.Submitted {
		verdict = "NOT EVERY ONE STARTED ONCE"
	}
	outcomes := slices.Sorted(maps.Keys(f.ByOutcome))
	parts := make([]string, len(outcomes))
	for i, o := range outcomes {
		parts[i] = fmt.Sprintf("%s %d", o, f.ByOutcome[o])
	}
	fmt.Fprintf(tw, "Submissions\t%d submitted: %s; %d executions started\t%s\n", f.Submitted, strings.Join(parts, ", "), f.Executions, verdict)
	order := "ok"
	if f.OutOfOrder > 0 {
		order = "OUT OF ORDER"
	}
	fmt.Fprintf(tw, "Submissions granted out of order\t%d\t%s\n", f.OutOfOrder, order)
	fmt.Fprintf(tw, "Freed slot to next start\tp50 %.2f s, p99 %.2f s (%d starts)\t\n", f.FreedSlotToStart.P50, f.FreedSlotToStart.P99, f.FreedSlotToStart.Count)
	for _, p := range slices.Sorted(maps.Keys(f.WaitByPriority)) {
		w := f.WaitByPriority[p]
		fmt.Fprintf(tw, "Submission wait, priority %d\tmean %.1f s, p99 %.1f s (%d granted)\t\n", p, w.Mean, w.P99, w.Count)
	}
}

// printCapacity renders the capacity figures, in the words every report uses.
func printCapacity(tw *tabwriter.Writer, p capacity.PerExecution) {
	for _, f := range p.Figures() {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", f.Label, f.Value, f.Note)
	}
}

// failures renders " (WorkFailed: 9, …)", errors sorted by name.
func failures(byError map[string]int) string {
	if len(byError) == 0 {
		return ""
	}
	names := make([]string, 0, len(byError))
	for n := range byError {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s: %d", n, byError[n])
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// printRate renders what a run with a Rate measured: permits and admissions per window against
// the GCRA bound, the GCRA replayed over them, and the entries, for information.
func printRate(tw *tabwriter.Writer, f *simulate.RateFigures) {
	fmt.Fprintf(tw, "Rate\t%g a second, burst %d, %s: %d entered, %d rejected\t\n", f.PerSecond, f.Burst, f.Mode, f.Permits, f.Rejected)
	if f.Rejected > 0 {
		verdict := "ok"
		if f.RejectedUnreleased > 0 {
			verdict = "HELD A SLOT"
		}
		fmt.Fprintf(tw, "Rejected\t%d failed with %s, %d of them without giving their slot back\t%s\n", f.Rejected, machines.ErrorRateLimited, f.RejectedUnreleased, verdict)
	}
	fmt.Fprintf(tw, "Admissions per second\t%.3f (first admission to last)\t\n", f.AdmissionsPerSecond)
	for _, w := range f.Windows {
		verdict := "ok"
		if w.MaxPermits > w.Bound || w.MaxAdmissions > w.Bound {
			verdict = "OVER THE RATE"
		}
		fmt.Fprintf(tw, "Most in %g s\t%d permits, %d admissions, of at most %d (exact GCRA bound %d)\t%s\n", w.Seconds, w.MaxPermits, w.MaxAdmissions, w.Bound, w.ExactBound, verdict)
	}
	verdict := "ok"
	if f.PermitBurst > f.Burst {
		verdict = "OVER THE RATE"
	}
	fmt.Fprintf(tw, "GCRA replayed\tpermits conform with burst %d; admissions with burst %d (whole-second groups)\t%s\n", f.PermitBurst, f.AdmissionBurst, verdict)
	verdict = "ok"
	if f.MinAdmissionLagSeconds < 0 {
		verdict = "EARLY"
	}
	fmt.Fprintf(tw, "Admission after its permit\t%.3f to %.3f s\t%s\n", f.MinAdmissionLagSeconds, f.MaxAdmissionLagSeconds, verdict)
	var most, bounds []string
	for _, w := range f.Windows {
		most, bounds = append(most, strconv.Itoa(w.MaxEntries)), append(bounds, strconv.Itoa(w.EntryBound))
	}
	fmt.Fprintf(tw, "Entry after its admission\tp50 %.3f s, max %.3f s\t\n", f.EntryLagP50Seconds, f.EntryLagMaxSeconds)
	fmt.Fprintf(tw, "Most entries in %s s\t%s (bound of a window 1 s longer: %s)\t\n", windowSeconds(f.Windows), strings.Join(most, " / "), strings.Join(bounds, " / "))
	perRejection := ""
	if f.Rejected > 0 {
		perRejection = fmt.Sprintf(", %.2f per rejection", f.WriteUnitsPerRejection)
	}
	fmt.Fprintf(tw, "Rate gate cost\t%.2f write units per permit%s\t\n", f.WriteUnitsPerPermit, perRejection)
}

// windowSeconds renders the windows' lengths as "1 / 10 / 60".
func windowSeconds(windows []simulate.RateWindow) string {
	var out []string
	for _, w := range windows {
		out = append(out, strconv.FormatFloat(w.Seconds, 'g', -1, 64))
	}
	return strings.Join(out, " / ")
}

// printMetrics renders the summary of the metrics the functions wrote, a row each.
func printMetrics(tw *tabwriter.Writer, ms map[string]simulate.MetricSummary) {
	if len(ms) == 0 {
		return
	}
	parts := make([]string, 0, len(ms))
	for _, name := range slices.Sorted(maps.Keys(ms)) {
		m := ms[name]
		switch {
		case m.Unit == metrics.UnitMilliseconds:
			parts = append(parts, fmt.Sprintf("%s %d, max %.0f ms", name, m.Samples, m.Max))
		case name == metrics.SlotsHeld || name == metrics.ExecutionsWaiting: // gauges
			parts = append(parts, fmt.Sprintf("%s max %.0f", name, m.Max))
		default:
			parts = append(parts, fmt.Sprintf("%s %.0f", name, m.Sum))
		}
	}
	for i, part := range parts {
		label := "Metrics written (EMF)"
		if i > 0 {
			label = ""
		}
		fmt.Fprintf(tw, "%s\t%s\t\n", label, part)
	}
}

// writeJSON writes v to w as one indented JSON object, as every command's --json prints it.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
