package semcheck_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/emulator/dynamo"
	"github.com/turnstile-sfn/turnstile/internal/faultproxy"
	"github.com/turnstile-sfn/turnstile/internal/semcheck"
	"github.com/turnstile-sfn/turnstile/lock"
)

// workload is a seeded run of clients acquiring and releasing one lock through the fault proxy.
type workload struct {
	seed        uint64
	clients     int
	rounds      int // acquire/release pairs each client tries
	attempts    int // acquire attempts a client makes before it gives a round up
	limit       int
	faults      faultproxy.Config
	abandonRate float64 // chance of a crash right after a lost reply
}

// figures are what a run did and what the checks found.
type figures struct {
	operations, unknown     int
	faults                  faultproxy.Stats
	snapshots, busy         int64
	violations              int64
	mostHolders             int64
	leakedHolders           int
	linearizability         error
	firstInvariantViolation error
}

func (f figures) String() string {
	return fmt.Sprintf("operations %d (unknown outcome %d); requests %d, faults: applied-reply-lost %d, lost-before %d, throttled %d; "+
		"snapshots %d (%d given up busy), invariant violations %d, most holders %d, holders left at the end %d; linearizability: %v",
		f.operations, f.unknown, f.faults.Requests, f.faults.AppliedReplyLost, f.faults.LostBefore, f.faults.Throttled,
		f.snapshots, f.busy, f.violations, f.mostHolders, f.leakedHolders, f.linearizability)
}

// snapshots reads the lock past the proxy and checks the invariant at every read.
type snapshots struct {
	direct   *lock.Client
	lockName string
	limit    int

	// busy counts the readings given up during the workload because the lock changed under
	// every try (lock.ErrBusy): a loaded machine slows the readings more than the churn.
	reads, busy, violations, mostHolders atomic.Int64
	mu                                   sync.Mutex
	first                                error
}

// take reads the lock and checks it. During the workload (settled false) a reading the churn
// never let through is counted as busy and skipped, not failed: the invariant is sampled, and
// the broken variants' tests still need their violations sampled. Once settled it must read.
func (s *snapshots) take(ctx context.Context, settled bool) (lock.State, error) {
	snapshot, err := s.direct.Read(ctx, s.lockName)
	if !settled && errors.Is(err, lock.ErrBusy) {
		s.busy.Add(1)
		return lock.State{}, nil
	}
	if err != nil {
		return lock.State{}, err
	}
	s.reads.Add(1)
	for {
		most := s.mostHolders.Load()
		if int64(len(snapshot.Holders)) <= most || s.mostHolders.CompareAndSwap(most, int64(len(snapshot.Holders))) {
			break
		}
	}
	if err := snapshot.Check(s.limit); err != nil {
		s.violations.Add(1)
		s.mu.Lock()
		if s.first == nil {
			s.first = err
		}
		s.mu.Unlock()
	}
	return snapshot, nil
}

// run drives the workload with the protocol variant v against a fresh lock table.
func (w workload) run(t *testing.T, v semcheck.Variant) figures {
	t.Helper()
	server.SkipIfMissing(t)
	table := server.CreateLockTable(t)
	proxy, err := faultproxy.Start(server.Endpoint, w.faults)
	if err != nil {
		t.Fatalf("faultproxy.Start: %v", err)
	}
	defer func() {
		if err := proxy.Close(); err != nil {
			t.Errorf("proxy Close: %v", err)
		}
	}()
	viaProxy, err := dynamo.New(proxy.URL())
	if err != nil {
		t.Fatalf("dynamo.New: %v", err)
	}
	direct, err := lock.New(table, server.Client, nil)
	if err != nil {
		t.Fatalf("lock.New: %v", err)
	}
	const lockName = "reliability"
	recorder := semcheck.NewRecorder()
	observer := &snapshots{direct: direct, lockName: lockName, limit: w.limit}

	errs := make([]error, w.clients)
	var wg sync.WaitGroup
	for i := range w.clients {
		c, err := semcheck.NewLockClient(table, lockName, w.limit)
		if err != nil {
			t.Fatalf("NewLockClient: %v", err)
		}
		c.Variant, c.Dynamo, c.Recorder, c.Client = v, viaProxy, recorder, i
		c.Random, c.CrashRate = rand.New(rand.NewPCG(w.seed, uint64(i))), w.abandonRate
		wg.Go(func() { errs[i] = w.client(t.Context(), c, observer) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("workload: %v", err)
	}

	final, err := observer.take(t.Context(), true)
	if err != nil {
		t.Fatalf("final snapshot: %v", err)
	}
	history := recorder.Operations()
	f := figures{
		operations:              len(history),
		faults:                  proxy.Stats(),
		snapshots:               observer.reads.Load(),
		busy:                    observer.busy.Load(),
		violations:              observer.violations.Load(),
		mostHolders:             observer.mostHolders.Load(),
		leakedHolders:           len(final.Holders),
		linearizability:         semcheck.Check(w.limit, history, 20*time.Second),
		firstInvariantViolation: observer.first,
	}
	for _, op := range history {
		if op.Output == semcheck.Unknown {
			f.unknown++
		}
	}
	return f
}

// client runs one client's rounds: acquire (waiting while full), look at the item while holding
// the slot, release. After a crash the cleanup releases the holder, as the Cleanup machine does.
func (w workload) client(ctx context.Context, c *semcheck.LockClient, observer *snapshots) error {
	for round := range w.rounds {
		holder := fmt.Sprintf("arn:aws:states:us-east-1:123456789012:execution:Reliability:client-%d-round-%d", c.Client, round)
		outcome := semcheck.Full
		for attempt := 0; attempt < w.attempts && outcome == semcheck.Full; attempt++ {
			var err error
			if outcome, err = c.Acquire(ctx, holder); err != nil {
				return err
			}
			if outcome == semcheck.Full {
				c.Pause()
			}
		}
		switch outcome {
		case semcheck.Acquired:
			if _, err := observer.take(ctx, false); err != nil {
				return err
			}
			if _, err := c.ReleaseHeld(ctx, holder); err != nil {
				return err
			}
		case semcheck.Unknown:
			if _, err := c.Release(ctx, holder); err != nil {
				return err
			}
		}
	}
	return nil
}

func TestReliabilityUnderDynamoDBFaults(t *testing.T) {
	w := workload{
		seed: 1, clients: 8, rounds: 20, attempts: 15, limit: 3,
		faults: faultproxy.Config{
			Seed: 1, AppliedReplyLost: 0.10, LostBefore: 0.05, Throttled: 0.05,
			Operations: []string{"TransactWriteItems", "Query"},
		},
	}
	tests := []struct {
		variant     semcheck.Variant
		abandonRate float64
		// wantCaught: the checks must find the variant broken.
		wantCaught bool
		// rounds, when not 0, replaces the workload's rounds: a broken variant needs only the
		// rounds that catch it (the first lost reply), not the 20 that show the correct
		// protocol raises no false alarm. Without the read-back every round after the first
		// leaked slots tries all of its attempts against a full lock.
		rounds int
	}{
		{variant: semcheck.Variant{Name: "semaphore"}, abandonRate: 0.1},
		{variant: semcheck.Variant{Name: "broken: condition without the limit", WithoutLimit: true}, abandonRate: 0.1, wantCaught: true, rounds: 8},
		// Without crashes: every operation left open is one more place porcupine must try, and
		// a lock filled with leaked slots goes on answering "full" for the rest of the run, so
		// the history is long. Crashes would only make the proof of the failure slower.
		{variant: semcheck.Variant{Name: "broken: no read-back after a lost reply", WithoutReadBack: true}, wantCaught: true, rounds: 8},
	}
	for _, tt := range tests {
		t.Run(tt.variant.Name, func(t *testing.T) {
			w := w
			w.abandonRate = tt.abandonRate
			if tt.rounds != 0 {
				w.rounds = tt.rounds
			}
			f := w.run(t, tt.variant)
			t.Logf("seed %d: %v", w.seed, f)
			if f.faults.AppliedReplyLost == 0 || f.faults.LostBefore == 0 || f.faults.Throttled == 0 {
				t.Errorf("faults = %+v, want every kind injected", f.faults)
			}
			if !tt.wantCaught {
				if f.linearizability != nil {
					t.Errorf("Check() = %v, want a linearizable history", f.linearizability)
				}
				if f.violations != 0 {
					t.Errorf("%d snapshots broke the invariant, want 0; first: %v", f.violations, f.firstInvariantViolation)
				}
				if f.snapshots < f.busy {
					t.Errorf("%d snapshots read and %d given up busy: the invariant was hardly sampled", f.snapshots, f.busy)
				}
				if f.leakedHolders != 0 {
					t.Errorf("%d holders left after every client finished, want 0", f.leakedHolders)
				}
				if f.unknown == 0 {
					t.Errorf("no operation with an unknown outcome: the run did not exercise lost replies")
				}
				return
			}
			if !errors.Is(f.linearizability, semcheck.ErrNotLinearizable) {
				t.Errorf("Check() = %v, want %v: the checker missed the broken variant", f.linearizability, semcheck.ErrNotLinearizable)
			}
		})
	}
}
