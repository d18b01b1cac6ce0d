package soak

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/anishathalye/porcupine"

	"github.com/turnstile-sfn/turnstile/emulator/dynamo"
	"github.com/turnstile-sfn/turnstile/emulator/eventbus"
	"github.com/turnstile-sfn/turnstile/internal/faultproxy"
	"github.com/turnstile-sfn/turnstile/internal/semcheck"
	"github.com/turnstile-sfn/turnstile/lambdas/reconciler/reconcile"
	"github.com/turnstile-sfn/turnstile/lock"
)

// lockName is the one lock every seed contends for, each in a table of its own.
const lockName = "soak"

// Client IDs of the operations that are not a goroutine's: the reconciler, the cleanup and the
// probes that close a segment.
const (
	reconcilerClient = -1
	cleanupClient    = -2
	probeClient      = -3
)

// seedRun is one seed of the soak: the goroutines, the fault proxy, the event bus with the
// cleanup rule, the reconciler and the checks, all against one fresh lock table.
type seedRun struct {
	cfg      Config
	seed     uint64
	table    string
	viaProxy *dynamo.Integration
	observer *observer

	executions *crashedExecutions
	ids        *eventbus.IDSource
	bus        *eventbus.Bus
	events     *eventbus.RandomFaults
	reconciler *reconcile.Reconciler
	recorder   atomic.Pointer[semcheck.Recorder] // the current segment's history

	cleanups                                            atomic.Uint64         // seeds the cleanup clients' randoms
	cleanupErr                                          atomic.Pointer[error] // the last error of a cleanup
	crashesHolding, crashesUnknown, published, timeouts atomic.Int64
}

// crash records that the execution of holder crashed, holding a slot or not knowing, and fails
// it.
func (s *seedRun) crash(ctx context.Context, holder string, holding bool) error {
	if holding {
		s.crashesHolding.Add(1)
	} else {
		s.crashesUnknown.Add(1)
	}
	return s.fail(ctx, holder)
}

// fail ends the execution of holder as FAILED and publishes its status-change event.
func (s *seedRun) fail(ctx context.Context, holder string) error {
	s.executions.crash(holder)
	event, err := failedEvent(s.ids, holder)
	if err != nil {
		return err
	}
	s.published.Add(1)
	return s.bus.Publish(ctx, event)
}

// cleanup is the cleanup machine: it confirms that the execution is not running (a stale event
// never frees a live holder), then releases its holder with the semaphore's conditional
// release, through the fault proxy. A duplicate finds nothing to release.
func (s *seedRun) cleanup(ctx context.Context, executionArn string) error {
	if s.executions.running(executionArn) {
		return nil
	}
	c, err := s.newLockClient(cleanupClient, rand.New(rand.NewPCG(s.seed, s.cleanups.Add(1)<<32)))
	if err != nil {
		s.cleanupErr.Store(&err)
		return nil
	}
	c.Recorder = s.recorder.Load()
	// Given up (Unknown): the reconciler frees it. An error is the soak's, not the event's: the
	// bus must not retry it for a day, so it is kept for run to return.
	if _, err := c.Release(ctx, executionArn); err != nil {
		s.cleanupErr.Store(&err)
	}
	return nil
}

// pair runs one acquire/release pair of holder as an execution of the semaphore machine would,
// with crashes: right after a lost reply (inside the client) and right after acquiring.
func (s *seedRun) pair(ctx context.Context, c *semcheck.LockClient, holder string) error {
	outcome := semcheck.Full
	for attempt := 0; attempt < s.cfg.AcquireAttempts && outcome == semcheck.Full; attempt++ {
		var err error
		if outcome, err = c.Acquire(ctx, holder); err != nil {
			return err
		}
		if outcome == semcheck.Full {
			c.Pause()
		}
	}
	switch outcome {
	case semcheck.Full:
		s.timeouts.Add(1) // the execution fails with the acquire timeout
		return s.fail(ctx, holder)
	case semcheck.Unknown:
		return s.crash(ctx, holder, false)
	}
	if _, err := s.observer.read(ctx); err != nil {
		return err
	}
	if c.Random.Float64() < s.cfg.CrashHolding {
		return s.crash(ctx, holder, true)
	}
	released, err := c.ReleaseHeld(ctx, holder)
	if err != nil || released != semcheck.Unknown {
		return err
	}
	return s.crash(ctx, holder, false)
}

// segment runs pairs [from, to) on the goroutines' clients, then waits for quiescence: every
// client idle and the event bus drained.
func (s *seedRun) segment(ctx context.Context, clients []*semcheck.LockClient, from, to int) error {
	var next atomic.Int64
	next.Store(int64(from))
	errs := make([]error, len(clients))
	var wg sync.WaitGroup
	for i, c := range clients {
		c.Recorder = s.recorder.Load()
		wg.Go(func() {
			for p := int(next.Add(1) - 1); p < to; p = int(next.Add(1) - 1) {
				holder := fmt.Sprintf("%sseed-%d-pair-%d", executionPrefix, s.seed, p)
				if err := s.pair(ctx, c, holder); err != nil {
					errs[i] = err
					return
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if err := s.bus.Drain(ctx); err != nil {
		return err
	}
	if err := s.cleanupErr.Load(); err != nil {
		return fmt.Errorf("cleanup: %w", *err)
	}
	return nil
}

// run runs the seed's pairs segment by segment and returns its report.
func (s *seedRun) run(ctx context.Context) (Report, error) {
	report := Report{Seeds: 1, Pairs: s.cfg.Pairs}
	clients := make([]*semcheck.LockClient, s.cfg.Goroutines)
	for i := range clients {
		c, err := s.newLockClient(i, rand.New(rand.NewPCG(s.seed, uint64(i))))
		if err != nil {
			return report, err
		}
		c.CrashRate = s.cfg.CrashAfterLostReply
		clients[i] = c
	}
	var initial []string // the holders at the start of the segment
	failing := false
	for from := 0; from < s.cfg.Pairs; from += s.cfg.SegmentPairs {
		s.recorder.Store(semcheck.NewRecorder())
		if err := s.segment(ctx, clients, from, min(from+s.cfg.SegmentPairs, s.cfg.Pairs)); err != nil {
			return report, err
		}
		swept, err := s.reconciler.Run(ctx)
		if err != nil {
			return report, err
		}
		report.ReconcilerReleases += swept.Released
		final, err := s.observer.read(ctx)
		if err != nil {
			return report, err
		}
		history := s.recorder.Load().Operations()
		report.Operations += len(history)
		for _, op := range history {
			if op.Output == semcheck.Unknown {
				report.UnknownOutcomes++
			}
		}
		report.Segments++
		err = semcheck.CheckFrom(s.cfg.Limit, initial, withProbes(history, initial, holderNames(final)), s.cfg.CheckTimeout)
		switch {
		case errors.Is(err, semcheck.ErrInconclusive):
			report.InconclusiveChecks++
		case err != nil:
			failing = true
		}
		if err != nil && report.FirstFailure == "" {
			report.FirstFailure = fmt.Sprintf("seed %d, pairs %d-%d: %v", s.seed, from, min(from+s.cfg.SegmentPairs, s.cfg.Pairs)-1, err)
		}
		initial = holderNames(final)
	}
	if failing {
		report.FailingHistories = 1
	}
	report.LeakedSlots = len(initial)
	report.AcquireTimeouts = s.timeouts.Load()
	report.Faults = Faults{
		CrashesHolding:   s.crashesHolding.Load(),
		CrashesUnknown:   s.crashesUnknown.Load(),
		CleanupEvents:    s.published.Load(),
		EventsDropped:    s.events.Dropped(),
		EventsDuplicated: s.events.Duplicated(),
	}
	s.observer.addTo(&report)
	return report, nil
}

// withProbes closes a segment's history at its quiescent point: every holder the segment
// touched that the final snapshot does not hold is released with the outcome NotHeld, one
// after the other, after every operation. At quiescence nothing is in flight and the snapshot
// is the truth, so the probes are what a release would answer; they pin down the outcome of
// every operation left unknown, and tie the segment's end to the next segment's start (the
// snapshot's holders).
func withProbes(history []porcupine.Operation, initial, final []string) []porcupine.Operation {
	touched := slices.Clone(initial)
	var last int64
	for _, op := range history {
		touched = append(touched, op.Input.(semcheck.Input).Holder)
		last = max(last, op.Call, op.Return)
	}
	slices.Sort(touched)
	touched = slices.Compact(touched)
	out := slices.Clone(history)
	for _, holder := range touched {
		if slices.Contains(final, holder) {
			continue
		}
		out = append(out, porcupine.Operation{
			ClientId: probeClient, Input: semcheck.Release(holder), Output: semcheck.NotHeld,
			Call: last + 1, Return: last + 2,
		})
		last += 2
	}
	return out
}

// newLockClient returns a client of the seed's lock through the fault proxy, running the
// configured variant of the Poll machine's protocol.
func (s *seedRun) newLockClient(client int, random *rand.Rand) (*semcheck.LockClient, error) {
	c, err := semcheck.NewLockClient(s.table, lockName, s.cfg.Limit)
	if err != nil {
		return nil, err
	}
	c.Variant, c.Dynamo, c.Client, c.Random = s.cfg.Variant, s.viaProxy, client, random
	return c, nil
}

// holderNames lists the holding executions of a lock's state.
func holderNames(st lock.State) []string {
	names := make([]string, len(st.Holders))
	for i, h := range st.Holders {
		names[i] = h.Execution
	}
	return names
}

// newSeedRun wires the seed's parts around a fresh lock table.
func newSeedRun(cfg Config, seed uint64, table string, viaProxy *dynamo.Integration, ddb recordingDynamoDB) (*seedRun, error) {
	direct, err := lock.New(table, ddb.Client, nil)
	if err != nil {
		return nil, err
	}
	s := &seedRun{
		cfg: cfg, seed: seed, table: table, viaProxy: viaProxy,
		observer:   &observer{direct: direct, lockName: lockName, limit: cfg.Limit},
		executions: newCrashedExecutions(),
		ids:        eventbus.NewIDSource(seed),
		events:     eventbus.NewRandomFaults(seed, cfg.DropEvents, cfg.DupEvents, maxEventDelay),
	}
	s.recorder.Store(semcheck.NewRecorder())
	ddb.recorder = &s.recorder
	reconciler, err := newReconciler(table, cfg.Limit, s.executions, ddb)
	if err != nil {
		return nil, err
	}
	s.reconciler = reconciler
	s.bus = eventbus.New(eventbus.Options{Policy: s.events, Seed: seed})
	rule, err := cleanupRule(s.cleanup)
	if err != nil {
		return nil, err
	}
	if err := s.bus.PutRule(rule); err != nil {
		return nil, err
	}
	return s, nil
}

// proxyConfig is the fault proxy's config for a seed.
func proxyConfig(cfg Config, seed uint64) faultproxy.Config {
	return faultproxy.Config{
		Seed: seed, AppliedReplyLost: cfg.ReplyLost, LostBefore: cfg.LostBefore, Throttled: cfg.Throttled,
		Operations: []string{"TransactWriteItems", "Query"},
	}
}
