package lock_test

import (
	"errors"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/turnstile-sfn/turnstile/lock"
)

// parkWeighted draws e's ticket and parks it with weight w.
func parkWeighted(t *testing.T, c *lock.Client, limit, e, w int) lock.ParkResult {
	t.Helper()
	ticket, err := c.DrawTicket(t.Context(), lockName)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Park(t.Context(), lock.ParkRequest{Lock: lockName, Limit: limit, Execution: execution(e), Ticket: ticket, Token: token(execution(e), 0), Weight: w})
	if err != nil {
		t.Fatalf("park e%d: %v", e, err)
	}
	return res
}

// TestWeightedHeadOfLineBlocks: limit 5. e0 (3) holds; e1 (3) queues; e2 (1) queues behind
// it although it would fit (strict first in, first out); e0's release hands its 3 to e1, and
// then e2 fits (3+1): it is admitted too. e1's release admits e3 (4) only once e2 is gone too,
// with the counter the sum of the holders' weights at every step.
func TestWeightedHeadOfLineBlocks(t *testing.T) {
	c, f := newClient(t)
	ctx := t.Context()
	const limit = 5
	if res := parkWeighted(t, c, limit, 0, 3); !res.Admitted {
		t.Fatalf("e0 = %+v, want admitted", res)
	}
	if res := parkWeighted(t, c, limit, 1, 3); !res.Queued {
		t.Fatalf("e1 = %+v, want queued", res)
	}
	if res := parkWeighted(t, c, limit, 2, 1); !res.Queued {
		t.Fatalf("e2 = %+v, want queued behind e1", res)
	}
	if res := parkWeighted(t, c, limit, 3, 4); !res.Queued {
		t.Fatalf("e3 = %+v, want queued", res)
	}
	st := read(t, c, limit)
	if st.Count != 3 || !slices.Equal(waiters(st), []string{execution(1), execution(2), execution(3)}) {
		t.Fatalf("lock = %+v", st)
	}
	res, err := c.Release(ctx, lockName, execution(0), limit)
	if err != nil || !slices.Equal(res.HandedTo, []string{execution(1)}) {
		t.Fatalf("release e0 = %+v, %v; want handed to e1", res, err)
	}
	st = read(t, c, limit)
	if st.Count != 4 || !slices.Equal(holders(st), []string{execution(1), execution(2)}) || !slices.Equal(waiters(st), []string{execution(3)}) {
		t.Fatalf("after e0: %+v; want e1 and e2 holding 4, e3 waiting", st)
	}
	if _, ok := f.woken[token(execution(2), 0)]; !ok {
		t.Fatal("e2 was admitted but not woken")
	}
	// e1's 3 go to e3 (4): 4 - 3 + 4 = 5, within the limit.
	if res, err := c.Release(ctx, lockName, execution(1), limit); err != nil || !slices.Equal(res.HandedTo, []string{execution(3)}) {
		t.Fatalf("release e1 = %+v, %v; want handed to e3", res, err)
	}
	if st = read(t, c, limit); st.Count != 5 || len(st.Waiters) != 0 {
		t.Fatalf("after e1: %+v; want e2 and e3 holding 5", st)
	}
	for _, e := range []int{2, 3} {
		if _, err := c.Release(ctx, lockName, execution(e), limit); err != nil {
			t.Fatal(err)
		}
	}
	if st = read(t, c, limit); st.Count != 0 || len(st.Holders) != 0 {
		t.Fatalf("at the end: %+v", st)
	}
}

// TestWeightedReleaseWaitsForRoom: limit 4; e0 (1) and e1 (1) hold; e2 (4) waits. e0's
// release gives its slot back (2 - 1 + 4 > 4), e1's hands the whole lock to e2. Then e3 (4)
// and e4 (1) queue: e2's release hands on to e3 only; e3's to e4, with 3 left free for the next
// heavy one, e5 (4), which waits; e6 (1) waits behind it until e5 leaves, and is admitted then.
func TestWeightedReleaseWaitsForRoom(t *testing.T) {
	c, _ := newClient(t)
	ctx := t.Context()
	const limit = 4
	parkWeighted(t, c, limit, 0, 1)
	parkWeighted(t, c, limit, 1, 1)
	if res := parkWeighted(t, c, limit, 2, 4); !res.Queued {
		t.Fatalf("e2 = %+v, want queued", res)
	}
	if res, err := c.Release(ctx, lockName, execution(0), limit); err != nil || !res.Released || len(res.HandedTo) != 0 {
		t.Fatalf("release e0 = %+v, %v; want given back", res, err)
	}
	if st := read(t, c, limit); st.Count != 1 {
		t.Fatalf("after e0: %+v", st)
	}
	if res, err := c.Release(ctx, lockName, execution(1), limit); err != nil || !slices.Equal(res.HandedTo, []string{execution(2)}) {
		t.Fatalf("release e1 = %+v, %v; want handed to e2", res, err)
	}
	if st := read(t, c, limit); st.Count != 4 || !slices.Equal(holders(st), []string{execution(2)}) {
		t.Fatalf("after e1: %+v", st)
	}
	parkWeighted(t, c, limit, 3, 4)
	parkWeighted(t, c, limit, 4, 1)
	if _, err := c.Release(ctx, lockName, execution(2), limit); err != nil {
		t.Fatal(err)
	}
	if st := read(t, c, limit); !slices.Equal(holders(st), []string{execution(3)}) || !slices.Equal(waiters(st), []string{execution(4)}) {
		t.Fatalf("after e2: %+v; want e3 holding, e4 waiting", st)
	}
	parkWeighted(t, c, limit, 5, 4) // behind e4
	if _, err := c.Release(ctx, lockName, execution(3), limit); err != nil {
		t.Fatal(err)
	}
	st := read(t, c, limit)
	if !slices.Equal(holders(st), []string{execution(4)}) || !slices.Equal(waiters(st), []string{execution(5)}) || st.Count != 1 {
		t.Fatalf("after e3: %+v; want e4 holding 1, e5 (4) waiting", st)
	}
	if res := parkWeighted(t, c, limit, 6, 1); !res.Queued {
		t.Fatalf("e6 = %+v, want queued behind e5", res)
	}
	if _, err := c.Leave(ctx, lockName, execution(5), st.Waiters[0].Ticket, limit); err != nil {
		t.Fatal(err)
	}
	if st := read(t, c, limit); len(st.Waiters) != 0 || st.Count != 2 || !slices.Equal(holders(st), []string{execution(4), execution(6)}) {
		t.Fatalf("after e5 left: %+v; want e4 and e6 holding", st)
	}
}

// TestWeightAboveTheLimit: a weight above the lock's limit fails with ErrWeightAboveLimit,
// named Turnstile.WeightAboveLimit; a negative one is an invalid request.
func TestWeightAboveTheLimit(t *testing.T) {
	c, _ := newClient(t)
	ctx := t.Context()
	for _, tc := range []struct {
		weight int
		want   error
	}{{6, lock.ErrWeightAboveLimit}, {-1, lock.ErrInvalidRequest}} {
		ticket, _ := c.DrawTicket(ctx, lockName)
		_, err := c.Park(ctx, lock.ParkRequest{Lock: lockName, Limit: 5, Execution: execution(1), Ticket: ticket, Token: token(execution(1), 0), Weight: tc.weight})
		if !errors.Is(err, tc.want) {
			t.Errorf("weight %d: %v, want %v", tc.weight, err, tc.want)
		}
	}
	if got := lock.ErrorName(lock.ErrWeightAboveLimit); got != lock.ErrorWeightAboveLimit {
		t.Errorf("ErrorName = %q", got)
	}
}

// TestConcurrentWeightedParkAndRelease: 40 executions of weights 1 to 4 park at once on a lock
// of limit 6, then the holders release three at a time, concurrently, until everyone has been
// admitted and released. Every read keeps the invariant (the counter is the sum of the held
// weights, never above the limit), everyone is woken once, nothing is left.
func TestConcurrentWeightedParkAndRelease(t *testing.T) {
	c, f := newClient(t)
	const n, limit = 40, 6
	rng := rand.New(rand.NewPCG(3, 4))
	weights := make([]int, n)
	for i := range weights {
		weights[i] = 1 + rng.IntN(4)
	}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			ctx := t.Context()
			ticket, err := c.DrawTicket(ctx, lockName)
			if err == nil {
				e := execution(i)
				_, err = c.Park(ctx, lock.ParkRequest{Lock: lockName, Limit: limit, Execution: e, Ticket: ticket, Token: token(e, 0), Weight: weights[i]})
			}
			if err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	released := map[string]bool{}
	for len(released) < n {
		st := read(t, c, limit)
		if len(st.Holders) == 0 {
			t.Fatalf("nobody holds, %d released, %d waiting: %+v", len(released), len(st.Waiters), st)
		}
		var round sync.WaitGroup
		failed := make(chan error, 3)
		for _, h := range st.Holders[:min(3, len(st.Holders))] {
			released[h.Execution] = true
			round.Go(func() {
				if _, err := c.Release(t.Context(), lockName, h.Execution, limit); err != nil {
					failed <- err
				}
			})
		}
		round.Wait()
		close(failed)
		for err := range failed {
			t.Fatal(err)
		}
	}
	if got := len(f.wokenOrder()); got != n {
		t.Fatalf("%d tokens completed, want %d", got, n)
	}
	if st := read(t, c, limit); st.Count != 0 || len(st.Waiters) != 0 || len(st.Holders) != 0 {
		t.Fatalf("left: %+v", st)
	}
}

// TestWeightsWithLiveLimits: limit 4; e0 (3) holds, e1 (3) waits. Raising the live limit to 6
// admits e1; lowering it to 2 makes a new park of weight 3 fail with ErrWeightAboveLimit, and
// the holders' release hands nothing on over the lowered limit.
func TestWeightsWithLiveLimits(t *testing.T) {
	c, _ := newClient(t)
	ctx := t.Context()
	parkWeighted(t, c, 4, 0, 3)
	if res := parkWeighted(t, c, 4, 1, 3); !res.Queued {
		t.Fatalf("e1 = %+v, want queued", res)
	}
	if res, err := c.SetLimit(ctx, lockName, 6); err != nil || !slices.Equal(res.Admitted, []string{execution(1)}) {
		t.Fatalf("SetLimit 6 = %+v, %v; want e1 admitted", res, err)
	}
	if st := read(t, c, 6); st.Count != 6 {
		t.Fatalf("after the raise: %+v", st)
	}
	parkWeighted(t, c, 6, 2, 1) // waits
	if _, err := c.SetLimit(ctx, lockName, 2); err != nil {
		t.Fatal(err)
	}
	ticket, _ := c.DrawTicket(ctx, lockName)
	if _, err := c.Park(ctx, lock.ParkRequest{Lock: lockName, Limit: 6, Execution: execution(3), Ticket: ticket, Token: token(execution(3), 0), Weight: 3}); !errors.Is(err, lock.ErrWeightAboveLimit) {
		t.Fatalf("a park of 3 under a live limit of 2 = %v, want ErrWeightAboveLimit", err)
	}
	if res, err := c.Release(ctx, lockName, execution(0), 6); err != nil || len(res.HandedTo) != 0 {
		t.Fatalf("release e0 = %+v, %v; want given back (3 held, limit 2)", res, err)
	}
	if res, err := c.Release(ctx, lockName, execution(1), 6); err != nil || !slices.Equal(res.HandedTo, []string{execution(2)}) {
		t.Fatalf("release e1 = %+v, %v; want handed to e2 (1 within 2)", res, err)
	}
	if st := read(t, c, 2); st.Count != 1 || len(st.Waiters) != 0 {
		t.Fatalf("at the end: %+v", st)
	}
}
