package soak_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/turnstile-sfn/turnstile/internal/semcheck"
	"github.com/turnstile-sfn/turnstile/internal/soak"
)

// smallSoak is the soak `make test` runs: 2 seeds × 150 pairs (3 × 300 with -large), 20 % of
// the requests applied with their reply lost, 10 % lost before, and crashes and dropped events
// often enough that every cleanup path runs, the reconciler's included (10 % of the holders
// crash, 30 % of the events are lost: several reconciler releases in 300 pairs, where 5 % and
// 5 % made 3 in 900). Short segments (30 pairs) keep each linearizability check small enough
// never to time out.
func smallSoak() soak.Config {
	cfg := soak.DefaultConfig()
	cfg.Seeds, cfg.Pairs, cfg.SegmentPairs = sized(2, 3), sized(150, 300), 30
	cfg.ReplyLost, cfg.LostBefore = 0.20, 0.10
	cfg.CrashHolding, cfg.DropEvents = 0.10, 0.30
	return cfg
}

func TestSmallSoakFindsNoFailure(t *testing.T) {
	cfg := smallSoak()
	report, err := soak.Run(t.Context(), endpoint(t), cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	var text strings.Builder
	if err := report.WriteText(&text, cfg.Limit); err != nil {
		t.Fatalf("WriteText: %v", err)
	}
	t.Logf("\n%s", text.String())
	// A check that runs out of time proves nothing either way; on a loaded machine porcupine
	// can need more than its minute for an unlucky segment. Every other figure must be 0, and
	// the checker must have settled nearly every segment.
	if got := report.Failures() - int64(report.InconclusiveChecks); got != 0 {
		t.Errorf("failures other than inconclusive checks = %d, want 0; first: %s", got, report.FirstFailure)
	}
	if report.InconclusiveChecks*10 > report.Segments {
		t.Errorf("%d of %d checks were inconclusive: the checker settled too few segments", report.InconclusiveChecks, report.Segments)
	}
	f := report.Faults
	exercised := []struct {
		name  string
		count int64
	}{
		{"applied, reply lost", f.AppliedReplyLost},
		{"lost before", f.LostBefore},
		{"throttled", f.Throttled},
		{"crashes holding", f.CrashesHolding},
		{"crashes, outcome unknown", f.CrashesUnknown},
		{"events dropped", f.EventsDropped},
		{"events duplicated", f.EventsDuplicated},
		{"reconciler releases", int64(report.ReconcilerReleases)},
		{"operations of unknown outcome", int64(report.UnknownOutcomes)},
	}
	for _, e := range exercised {
		if e.count == 0 {
			t.Errorf("%s = 0: the soak did not exercise it", e.name)
		}
	}
	if got, want := report.Seeds, cfg.Seeds; got != want {
		t.Errorf("Seeds = %d, want %d", got, want)
	}
	if got, want := report.Pairs, cfg.Seeds*cfg.Pairs; got != want {
		t.Errorf("Pairs = %d, want %d", got, want)
	}
}

func TestSoakCatchesBrokenVariants(t *testing.T) {
	tests := []struct {
		variant semcheck.Variant
		// wantOverLimit: the reads must see more holders than the limit.
		wantOverLimit bool
		// crashes: clients crash. Every operation left unknown is one more place porcupine must
		// try before it can say that no order explains a history.
		crashes bool
	}{
		{semcheck.Variant{Name: "condition without the limit", WithoutLimit: true}, true, true},
		// Its holders taken for "full" hold a slot until their acquire times out and the
		// cleanup frees it: a short timeout keeps the test short.
		{semcheck.Variant{Name: "no read-back after a lost reply", WithoutReadBack: true}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.variant.Name, func(t *testing.T) {
			cfg := smallSoak()
			// Two segments of 30 (five of 30 with -large) catch either: 20 % of the replies
			// lost breaks the variant without the read-back within a few pairs, and 8 clients
			// on 3 slots without the limit's condition are over it at once.
			cfg.Seeds, cfg.Pairs, cfg.SegmentPairs, cfg.AcquireAttempts = 1, sized(60, 150), 30, 10
			cfg.Variant = tt.variant
			if !tt.crashes {
				cfg.CrashHolding, cfg.CrashAfterLostReply = 0, 0
			}
			report, err := soak.Run(t.Context(), endpoint(t), cfg)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if report.FailingHistories == 0 {
				t.Errorf("FailingHistories = 0, want the checker to reject the broken variant")
			}
			if tt.wantOverLimit && (report.MostHolders <= int64(cfg.Limit) || report.OverLimitReads == 0) {
				t.Errorf("MostHolders = %d, OverLimitReads = %d, want reads over the limit %d", report.MostHolders, report.OverLimitReads, cfg.Limit)
			}
		})
	}
}

func TestRunRejectsBadConfig(t *testing.T) {
	tests := []struct {
		name   string
		change func(*soak.Config)
	}{
		{"no seeds", func(c *soak.Config) { c.Seeds = 0 }},
		{"no goroutines", func(c *soak.Config) { c.Goroutines = 0 }},
		{"limit zero", func(c *soak.Config) { c.Limit = 0 }},
		{"fraction above one", func(c *soak.Config) { c.DropEvents = 1.5 }},
		{"negative fraction", func(c *soak.Config) { c.ReplyLost = -0.1 }},
		{"request faults above one", func(c *soak.Config) { c.ReplyLost, c.LostBefore, c.Throttled = 0.5, 0.4, 0.2 }},
		{"events dropped and duplicated above one", func(c *soak.Config) { c.DropEvents, c.DupEvents = 0.6, 0.6 }},
		{"failing histories kept by the Poll soak", func(c *soak.Config) { c.KeepFailing = "kept" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := soak.DefaultConfig()
			tt.change(&cfg)
			_, err := soak.Run(t.Context(), "http://127.0.0.1:1", cfg)
			if !errors.Is(err, soak.ErrInvalidConfig) {
				t.Errorf("Run error = %v, want %v", err, soak.ErrInvalidConfig)
			}
		})
	}
}

func TestSoakReportsCapacity(t *testing.T) {
	cfg := soak.DefaultConfig()
	cfg.Seeds, cfg.Pairs, cfg.SegmentPairs = 1, 60, 30
	cfg.ReplyLost, cfg.LostBefore, cfg.Throttled, cfg.CrashHolding, cfg.CrashAfterLostReply = 0, 0, 0, 0, 0
	report, err := soak.Run(t.Context(), endpoint(t), cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	// Every pair writes at least twice (its acquire and its release, 1 unit each at least), and
	// reads back after a failed acquire; the lock item has the counter at least.
	c := report.Capacity
	if c.WriteUnits < float64(2*report.Pairs) || c.LargestItemBytes == 0 || c.FailedConditionalWriteUnits > c.WriteUnits {
		t.Errorf("Capacity = %+v: want at least %d write units, of which the failed conditions' part, and a largest item", c, 2*report.Pairs)
	}
	var text strings.Builder
	if err := report.WriteText(&text, cfg.Limit); err != nil {
		t.Fatalf("WriteText: %v", err)
	}
	per := c.PerExecution(report.Pairs)
	for _, want := range []string{
		fmt.Sprintf("capacity per execution                   %.1f read units, %.1f write units", per.ReadUnitsPerExecution, per.WriteUnitsPerExecution),
		fmt.Sprintf("largest lock item                        %.2f KB", per.LargestLockItemKB),
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("WriteText lacks %q:\n%s", want, text.String())
		}
	}
}

// smallQueueSoak is the queue soak `make test` runs: 1 seed × 200 executions (2 × 300 with
// -large), 10 clients on a lock of limit 3, 20 % of the requests applied with their reply lost
// and 10 % lost before. A waiter that is woken never waits out WaitTimeout, so the bound costs
// time only when a waiter is stranded, a failure; 30 s (the default) keeps the -race tests on a
// loaded machine from taking a slow wake-up for a lost one (5 s stranded 17 of 200 there).
func smallQueueSoak() soak.Config {
	cfg := soak.DefaultQueueConfig()
	cfg.Seeds, cfg.Pairs = sized(1, 2), sized(200, 300)
	cfg.ReplyLost, cfg.LostBefore = 0.20, 0.10
	cfg.LeaveRate = 0.1
	return cfg
}

// TestSmallQueueSoakKeepsItsPromises: under lost replies the queue never admits over the
// limit, never breaks the invariant, leaks nothing, never fails with a lock error, no admission
// is out of ticket order and every waiter is woken. A history the FIFO model rejects is
// logged, not asserted: the full soak at 20 % of replies lost (make soak) passed all of its
// 1,680 segments, but the fixes that made it pass are recent, and CI is no place to find out.
func TestSmallQueueSoakKeepsItsPromises(t *testing.T) {
	cfg := smallQueueSoak()
	report, err := soak.Run(t.Context(), endpoint(t), cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	var text strings.Builder
	if err := report.WriteText(&text, cfg.Limit); err != nil {
		t.Fatalf("WriteText: %v", err)
	}
	t.Logf("\n%s", text.String())
	if report.FailingHistories > 0 {
		t.Logf("known finding: a history segment the FIFO model rejects; first: %s", report.FirstFailure)
	}
	promises := []struct {
		name  string
		count int64
	}{
		{"admissions out of order", int64(report.OutOfOrder)},
		{"waiters not woken in time", report.StrandedWaiters},
		{"reads over the limit", int64(report.OverLimitReads)},
		{"reads breaking the invariant", int64(report.BrokenReads)},
		{"slots leaked", int64(report.LeakedSlots)},
		{"seeds ended by a lock error", int64(report.LockErrors)},
	}
	for _, p := range promises {
		if p.count != 0 {
			t.Errorf("%s = %d, want 0; first failure: %s", p.name, p.count, report.FirstFailure)
		}
	}
	exercised := []struct {
		name  string
		count int64
	}{
		{"applied, reply lost", report.Faults.AppliedReplyLost},
		{"lost before", report.Faults.LostBefore},
		{"leaves", report.Leaves},
		{"write units", int64(report.Capacity.WriteUnits)},
	}
	for _, e := range exercised {
		if e.count == 0 {
			t.Errorf("%s = 0: the soak did not exercise it", e.name)
		}
	}
	// Several waiters queued: 10 clients on 3 slots keep the queue long.
	if mean := float64(report.WaitersSeen) / float64(report.Reads); report.MostWaiters < 5 || mean < 2 {
		t.Errorf("waiters seen: most %d, mean %.2f; want a queue of several waiters", report.MostWaiters, mean)
	}
}

// TestQueueSoakCatchesAReleaseToTheNewestWaiter: with the queue read from its newest end (the
// counter item and the newest waiters: a consistent lock, only the wrong order), both checks
// reject the run: real time proves overtaking (OutOfOrder), and the FIFO model does not accept
// the history (it rejects it, or, on a loaded machine, runs out of time: never accepts). The
// failing histories are kept (Config.KeepFailing), and one read back fails its check again.
func TestQueueSoakCatchesAReleaseToTheNewestWaiter(t *testing.T) {
	cfg := smallQueueSoak()
	cfg.Seeds, cfg.Pairs, cfg.ReplyLost, cfg.LostBefore, cfg.Throttled = 1, sized(cfg.SegmentPairs, 2*cfg.SegmentPairs), 0, 0, 0
	cfg.QueueNewestFirst = true
	cfg.KeepFailing = filepath.Join(t.TempDir(), "failing")
	report, err := soak.Run(t.Context(), endpoint(t), cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	t.Logf("out of order %d, failing histories %d, inconclusive %d of %d checks; first failure: %s",
		report.OutOfOrder, report.FailingHistories, report.InconclusiveChecks, report.Segments, report.FirstFailure)
	if report.OutOfOrder == 0 {
		t.Errorf("OutOfOrder = 0; want real time to prove a queue served newest first overtaking")
	}
	if report.FailingHistories+report.InconclusiveChecks == 0 {
		t.Fatalf("the FIFO model accepted all %d histories of a queue served newest first", report.Segments)
	}
	kept, err := filepath.Glob(filepath.Join(cfg.KeepFailing, "seed-*-executions-*.json"))
	if err != nil || len(kept) == 0 {
		t.Fatalf("no failing history kept in %s (%v); first failure: %s", cfg.KeepFailing, err, report.FirstFailure)
	}
	if _, err := os.Stat(strings.TrimSuffix(kept[0], ".json") + ".html"); err != nil {
		t.Errorf("the drawing of %s: %v", kept[0], err)
	}
	h, err := semcheck.ReadQueueHistoryFile(kept[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Check(cfg.CheckTimeout); err == nil {
		t.Errorf("%s read back passes its check; it failed in the soak", kept[0])
	}
}

// orderedQueueSoak is the outcome of runOrderedQueueSoak: the reports of the three runs.
type orderedQueueSoak struct {
	clean, faulty, broken soak.Report
}

// runOrderedQueueSoak runs the small queue soak with an order of admission beyond FIFO, which
// configure sets (priorities or weights), three ways at once: without faults, with them, and
// with the lock not told the order (Config.QueueParkUnordered). Without faults the checks find
// no failure; with or without, no admission is out of order, no slot is leaked, no read finds
// more than the limit held or a broken lock, no waiter is stranded, and the queue is several
// long; the broken run fails. The caller checks which check caught the broken run.
func runOrderedQueueSoak(t *testing.T, configure func(*soak.Config)) orderedQueueSoak {
	t.Helper()
	configs := make([]soak.Config, 3)
	for i := range configs {
		cfg := smallQueueSoak()
		cfg.Seeds, cfg.Pairs = 1, sized(100, 200)
		configure(&cfg)
		if i != 1 {
			cfg.ReplyLost, cfg.LostBefore, cfg.Throttled = 0, 0, 0
		}
		if i == 2 {
			cfg.Pairs = sized(2*cfg.SegmentPairs, 4*cfg.SegmentPairs)
			cfg.QueueParkUnordered = true
		}
		configs[i] = cfg
	}
	reports := make([]soak.Report, len(configs))
	errs := make([]error, len(configs))
	server := endpoint(t)
	var wg sync.WaitGroup
	for i, cfg := range configs {
		wg.Go(func() { reports[i], errs[i] = soak.Run(t.Context(), server, cfg) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("Run: %v", err)
	}
	r := orderedQueueSoak{clean: reports[0], faulty: reports[1], broken: reports[2]}
	if r.clean.Failures() != 0 {
		t.Errorf("without faults: Failures() = %d, want 0; first: %s", r.clean.Failures(), r.clean.FirstFailure)
	}
	for _, run := range []struct {
		name   string
		report soak.Report
	}{{"without faults", r.clean}, {"with faults", r.faulty}} {
		name, report := run.name, run.report
		if report.OutOfOrder != 0 || report.LeakedSlots != 0 || report.OverLimitReads != 0 || report.BrokenReads != 0 || report.StrandedWaiters != 0 {
			t.Errorf("%s: out of order %d, leaked %d, over the limit %d, broken %d, stranded %d; want 0 (first failure: %s)",
				name, report.OutOfOrder, report.LeakedSlots, report.OverLimitReads, report.BrokenReads, report.StrandedWaiters, report.FirstFailure)
		}
		if report.MostWaiters < 5 {
			t.Errorf("%s: MostWaiters = %d: want a queue of several", name, report.MostWaiters)
		}
	}
	if r.faulty.FailingHistories > 0 {
		t.Logf("with faults: %d histories the model rejects; first: %s", r.faulty.FailingHistories, r.faulty.FirstFailure)
	}
	t.Logf("the lock not told the order: out of order %d, failing histories %d, inconclusive %d of %d checks; first failure: %s",
		r.broken.OutOfOrder, r.broken.FailingHistories, r.broken.InconclusiveChecks, r.broken.Segments, r.broken.FirstFailure)
	if r.broken.Failures() == 0 {
		t.Errorf("the lock not told the order: Failures() = 0; want the checks to catch it")
	}
	return r
}

// With priorities (a small ageing step, so that both priorities and ageing decide admissions),
// with and without faults, the FIFO model accepts every history of places: the queue admits
// in the order lock.Place promises. A lock that serves the bare tickets instead is caught in
// real time: admissions overtake in the order of places.
func TestQueueSoakWithPrioritiesKeepsTheirOrder(t *testing.T) {
	r := runOrderedQueueSoak(t, func(cfg *soak.Config) { cfg.QueuePriorityAgeing = 3 })
	if r.broken.OutOfOrder == 0 {
		t.Errorf("OutOfOrder = 0 with the priorities hidden from the lock; want real time to prove admissions out of the order of places")
	}
}

// With weighted permits (weights 1 to 3 on a lock of 3), with and without faults: the queue
// model with the weights accepts every history without faults, and no read finds more weight
// held than the limit or a counter that is not the holders' weight. A lock that counts one slot
// each instead admits more weight than the limit, which the model with the weights rejects.
func TestQueueSoakWithWeightsKeepsTheLimit(t *testing.T) {
	r := runOrderedQueueSoak(t, func(cfg *soak.Config) { cfg.QueueWeights = 3 })
	if r.broken.FailingHistories+r.broken.InconclusiveChecks == 0 {
		t.Errorf("the weighted model accepted all %d histories of a lock that counts one slot each", r.broken.Segments)
	}
}

// Without faults, the queue soak's recording of the lock's operations and wake-ups is what the
// FIFO model accepts: the checks have no false alarms on the real protocol.
func TestQueueSoakWithoutFaultsFindsNoFailure(t *testing.T) {
	cfg := smallQueueSoak()
	cfg.ReplyLost, cfg.LostBefore, cfg.Throttled = 0, 0, 0
	report, err := soak.Run(t.Context(), endpoint(t), cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if report.Failures() != 0 {
		t.Errorf("Failures() = %d, want 0; first: %s", report.Failures(), report.FirstFailure)
	}
	if report.Leaves == 0 || report.MostWaiters < 5 {
		t.Errorf("Leaves = %d, MostWaiters = %d: want waiters leaving and a queue of several", report.Leaves, report.MostWaiters)
	}
}
