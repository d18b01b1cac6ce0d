package lock_test

import (
	"errors"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/turnstile-sfn/turnstile/lock"
)

// TestHandOffFollowsTicketOrder: limit 1; e0 takes the free slot; e1, e2, e3 queue; every
// release hands the slot to the oldest waiter and wakes it; the counter never moves during
// hand-offs and ends at 0.
func TestHandOffFollowsTicketOrder(t *testing.T) {
	c, f := newClient(t)
	ctx := t.Context()
	if res := park(t, c, 1, 0, 0); !res.Admitted {
		t.Fatalf("the first park = %+v, want admitted", res)
	}
	for i := 1; i <= 3; i++ {
		if res := park(t, c, 1, i, 0); !res.Queued || res.Admitted {
			t.Fatalf("park e%d = %+v, want queued", i, res)
		}
	}
	if st := read(t, c, 1); !slices.Equal(waiters(st), []string{execution(1), execution(2), execution(3)}) {
		t.Fatalf("waiters = %v", waiters(st))
	}
	for i := 0; i < 3; i++ {
		res, err := c.Release(ctx, lockName, execution(i), 1)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Released || !slices.Equal(res.HandedTo, []string{execution(i + 1)}) {
			t.Fatalf("release e%d = %+v, want handed to e%d", i, res, i+1)
		}
		if st := read(t, c, 1); !slices.Equal(holders(st), []string{execution(i + 1)}) || st.Count != 1 {
			t.Fatalf("after release %d: %+v", i, st)
		}
	}
	want := []string{token(execution(0), 0), token(execution(1), 0), token(execution(2), 0), token(execution(3), 0)}
	if got := f.wokenOrder(); !slices.Equal(got, want) {
		t.Fatalf("woken in the wrong order: %d tokens", len(got))
	}
	for i := 1; i <= 3; i++ {
		if w := f.woken[want[i]]; w.GrantedBy != execution(i-1) || w.Ticket != int64(i+1) {
			t.Errorf("wake of e%d = %+v, want granted by e%d with ticket %d", i, w, i-1, i+1)
		}
	}
	if res, err := c.Release(ctx, lockName, execution(3), 1); err != nil || !res.Released || len(res.HandedTo) != 0 {
		t.Fatalf("the last release = %+v, %v", res, err)
	}
	if st := read(t, c, 1); st.Count != 0 || len(st.Holders) != 0 || len(st.Waiters) != 0 {
		t.Fatalf("the lock after the last release: %+v", st)
	}
	if res, err := c.Release(ctx, lockName, execution(3), 1); err != nil || res.Released {
		t.Fatalf("a second release = %+v, %v; want a no-op", res, err)
	}
}

// TestNewcomerDoesNotOvertake: a slot is free (the limit was raised, before anyone admitted
// into it) while e1 waits; a newcomer's park admits e1, the oldest, and queues itself.
func TestNewcomerDoesNotOvertake(t *testing.T) {
	c, f := newClient(t)
	park(t, c, 1, 0, 0)
	park(t, c, 1, 1, 0)
	writeLimit(t, c, 2)
	if res := park(t, c, 1, 2, 0); !res.Queued {
		t.Fatalf("the newcomer's park = %+v, want queued behind the oldest", res)
	}
	st := read(t, c, 2)
	if !slices.Equal(holders(st), []string{execution(0), execution(1)}) || !slices.Equal(waiters(st), []string{execution(2)}) {
		t.Fatalf("lock = %+v", st)
	}
	if _, ok := f.woken[token(execution(1), 0)]; !ok {
		t.Fatal("e1 was admitted but not woken")
	}
}

// TestDeadWaiterIsSkipped: the oldest waiter's execution died; the release hands its slot on
// to the next waiter.
func TestDeadWaiterIsSkipped(t *testing.T) {
	c, f := newClient(t)
	park(t, c, 1, 0, 0)
	park(t, c, 1, 1, 0)
	park(t, c, 1, 2, 0)
	f.dead[token(execution(1), 0)] = true
	f.status[execution(1)] = sfntypes.ExecutionStatusAborted
	res, err := c.Release(t.Context(), lockName, execution(0), 1)
	if err != nil || !slices.Equal(res.HandedTo, []string{execution(1), execution(2)}) {
		t.Fatalf("release = %+v, %v; want handed to e1 (dead) then e2", res, err)
	}
	if st := read(t, c, 1); !slices.Equal(holders(st), []string{execution(2)}) || len(st.Waiters) != 0 {
		t.Fatalf("lock = %+v", st)
	}
}

// TestLoweredLimitHandsNothingOn: three hold under limit 3; with the limit lowered to 1,
// releases give their slots back to the lock until the count is at the limit, then hand on.
func TestLoweredLimitHandsNothingOn(t *testing.T) {
	c, _ := newClient(t)
	for i := range 3 {
		park(t, c, 3, i, 0)
	}
	if res, err := c.SetLimit(t.Context(), lockName, 1); err != nil || len(res.Admitted) != 0 {
		t.Fatalf("lowering the limit = %+v, %v; want nobody admitted", res, err)
	}
	park(t, c, 3, 3, 0)
	for i := range 2 {
		res, err := c.Release(t.Context(), lockName, execution(i), 1)
		if err != nil || !res.Released || len(res.HandedTo) != 0 {
			t.Fatalf("release %d over the limit = %+v, %v; want back to the lock", i, res, err)
		}
	}
	res, err := c.Release(t.Context(), lockName, execution(2), 1)
	if err != nil || !slices.Equal(res.HandedTo, []string{execution(3)}) {
		t.Fatalf("release at the limit = %+v, %v; want handed to e3", res, err)
	}
	read(t, c, 1)
}

// TestParkAgain: a waiter whose task timed out parks again and keeps its place with its new
// token; one that was handed a slot meanwhile (its wake-up lost) is admitted at once.
func TestParkAgain(t *testing.T) {
	c, f := newClient(t)
	ctx := t.Context()
	park(t, c, 1, 0, 0)
	ticket, _ := c.DrawTicket(ctx, lockName)
	req := lock.ParkRequest{Lock: lockName, Limit: 1, Execution: execution(1), Ticket: ticket, Token: token(execution(1), 0)}
	if _, err := c.Park(ctx, req); err != nil {
		t.Fatal(err)
	}
	park(t, c, 1, 2, 0)
	req.Token, req.Again = token(execution(1), 1), true
	if res, err := c.Park(ctx, req); err != nil || !res.Queued {
		t.Fatalf("park again = %+v, %v", res, err)
	}
	if st := read(t, c, 1); !slices.Equal(waiters(st), []string{execution(1), execution(2)}) {
		t.Fatalf("waiters after the re-park = %v, want e1 keeping its place", waiters(st))
	}
	f.dead[token(execution(1), 1)] = true // its wake-up is lost
	if _, err := c.Release(ctx, lockName, execution(0), 1); err != nil {
		t.Fatal(err)
	}
	req.Token = token(execution(1), 2)
	if res, err := c.Park(ctx, req); err != nil || !res.Admitted {
		t.Fatalf("park again after a lost wake-up = %+v, %v; want admitted", res, err)
	}
	if _, ok := f.woken[token(execution(1), 2)]; !ok {
		t.Fatal("the re-parked holder's token was not completed")
	}
}

// TestLeave: a waiter that gives up leaves the queue; one that was handed a slot meanwhile
// hands it on.
func TestLeave(t *testing.T) {
	c, _ := newClient(t)
	ctx := t.Context()
	park(t, c, 1, 0, 0)
	park(t, c, 1, 1, 0)
	park(t, c, 1, 2, 0)
	if _, err := c.Leave(ctx, lockName, execution(2), 3, 1); err != nil {
		t.Fatal(err)
	}
	if st := read(t, c, 1); !slices.Equal(waiters(st), []string{execution(1)}) {
		t.Fatalf("waiters = %v", waiters(st))
	}
	park(t, c, 1, 3, 0)
	if _, err := c.Leave(ctx, lockName, execution(9), 4, 1); !errors.Is(err, lock.ErrInvalidRequest) {
		t.Fatalf("leave with another's ticket: %v, want ErrInvalidRequest", err)
	}
	if _, err := c.Release(ctx, lockName, execution(0), 1); err != nil {
		t.Fatal(err)
	}
	res, err := c.Leave(ctx, lockName, execution(1), 2, 1)
	if err != nil || !res.Released || !slices.Equal(res.HandedTo, []string{execution(3)}) {
		t.Fatalf("leave after a hand-off = %+v, %v; want the slot handed on to e3", res, err)
	}
}

// TestConcurrentParkAndRelease: 40 executions on limit 3, each parking, holding briefly and
// releasing, all at once; every one is admitted exactly once, the invariant holds at the end
// and nothing is left.
func TestConcurrentParkAndRelease(t *testing.T) {
	c, f := newClient(t)
	const n, limit = 40, 3
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			ctx := t.Context()
			ticket, err := c.DrawTicket(ctx, lockName)
			if err != nil {
				errs <- err
				return
			}
			e := execution(i)
			if _, err := c.Park(ctx, lock.ParkRequest{Lock: lockName, Limit: limit, Execution: e, Ticket: ticket, Token: token(e, 0)}); err != nil {
				errs <- err
				return
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	// Release whoever holds until everyone has been admitted and released.
	released := map[string]bool{}
	for len(released) < n {
		st := read(t, c, limit)
		if len(st.Holders) == 0 {
			t.Fatalf("nobody holds, %d released, %d waiting", len(released), len(st.Waiters))
		}
		h := st.Holders[rand.IntN(len(st.Holders))].Execution
		if _, err := c.Release(t.Context(), lockName, h, limit); err != nil {
			t.Fatal(err)
		}
		released[h] = true
	}
	if got := len(f.wokenOrder()); got != n {
		t.Fatalf("%d tokens completed, want %d", got, n)
	}
	if st := read(t, c, limit); st.Count != 0 || len(st.Waiters) != 0 || len(st.Holders) != 0 {
		t.Fatalf("left: %+v", st)
	}
}
