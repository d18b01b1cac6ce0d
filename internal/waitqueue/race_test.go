package waitqueue_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestRacingExecutionsNeverOverAdmit: 40 executions race for 3 slots the way the Callback
// machine does (the machine's acquire, else park; when woken, work, then release), with parked
// tasks that time out and park again with a new token when no wake-up comes. Every one is
// served, the lock is read between steps and always holds counter == holders <= 3, and at the
// end the lock is free and the queue empty.
func TestRacingExecutionsNeverOverAdmit(t *testing.T) {
	const executions, limit = 40, 3
	q, f, table := newQueue(t)
	ctx := t.Context()
	var mu sync.Mutex
	wakeups := map[string]chan struct{}{}
	f.notify = func(tok string) {
		mu.Lock()
		ch := wakeups[tok]
		mu.Unlock()
		if ch != nil {
			close(ch)
		}
	}
	var inWork, maxInWork atomic.Int32
	var wg sync.WaitGroup
	for i := range executions {
		wg.Go(func() {
			e := execution(i)
			if !acquire(t, table, e, limit) {
				for n := 0; ; n++ {
					tok := token(e, n)
					ch := make(chan struct{})
					mu.Lock()
					wakeups[tok] = ch
					mu.Unlock()
					res, err := q.Park(ctx, lockName, limit, e, tok)
					if err != nil {
						t.Error(err)
						return
					}
					if res.Admitted {
						break
					}
					select {
					case <-ch:
					case <-time.After(300 * time.Millisecond):
						// The task timed out: its token is dead from now on.
						f.mu.Lock()
						_, woken := f.woken[tok]
						f.dead[tok] = true
						f.mu.Unlock()
						if !woken {
							continue
						}
					}
					break
				}
			}
			now := inWork.Add(1)
			for m := maxInWork.Load(); now > m && !maxInWork.CompareAndSwap(m, now); m = maxInWork.Load() {
			}
			checkInvariant(t, readLock(t, table), limit)
			time.Sleep(2 * time.Millisecond)
			inWork.Add(-1)
			if _, err := q.Release(ctx, lockName, e, limit); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if m := maxInWork.Load(); m > limit {
		t.Errorf("%d executions worked at once, limit %d", m, limit)
	}
	if l := readLock(t, table); l.count != 0 || len(l.holders) != 0 || len(l.queue) != 0 || l.tokens != 0 {
		t.Errorf("the lock after every execution: %+v", l)
	}
}

// TestCleanupRacingRelease: the machine's own release and the cleanup's release of the same
// execution run at once, many times over: the slot is handed to the waiter once, the waiter's
// token is completed once, and the lock stays consistent. (The loser cannot tell the winner's
// hand-off from its own whose reply was lost, so both may report it; a second wake-up fails
// harmlessly on the completed token.)
func TestCleanupRacingRelease(t *testing.T) {
	for round := range 20 {
		q, f, table := newQueue(t)
		ctx := t.Context()
		acquire(t, table, execution(0), 1)
		if _, err := q.Park(ctx, lockName, 1, execution(1), token(execution(1), 0)); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		released := make([]bool, 2)
		for i := range 2 {
			wg.Go(func() {
				res, err := q.Release(ctx, lockName, execution(0), 1)
				if err != nil {
					t.Error(err)
				}
				released[i] = res.Released
			})
		}
		wg.Wait()
		if !released[0] && !released[1] {
			t.Fatalf("round %d: neither release reported the hand-off", round)
		}
		l := readLock(t, table)
		checkInvariant(t, l, 1)
		if l.count != 1 || len(l.holders) != 1 || l.holders[0] != execution(1) || len(f.wokenOrder()) != 1 {
			t.Fatalf("round %d: lock %+v, woken %v; want e1 holding, woken once", round, l, f.wokenOrder())
		}
	}
}
