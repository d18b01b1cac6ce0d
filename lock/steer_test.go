package lock_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/turnstile-sfn/turnstile/lock"
)

// semaphore is the state machine of the test executions (execution(i)).
const semaphore = "arn:aws:states:us-east-1:123456789012:stateMachine:Sem"

// TestLiveLimitLoweredThenRaised: five hold under the default 5 and five wait; lowered to 2,
// releases give slots back until two hold, then hand on; raised to 8, the waiters are admitted
// at once, oldest first.
func TestLiveLimitLoweredThenRaised(t *testing.T) {
	c, f := newClient(t)
	ctx := t.Context()
	for i := range 10 {
		park(t, c, 5, i, 0)
	}
	if st := read(t, c, 5); st.Limit != 5 || st.Semaphore != semaphore || len(st.Waiters) != 5 {
		t.Fatalf("after ten parks under the default 5: %+v", st)
	}
	if res, err := c.SetLimit(ctx, lockName, 2); err != nil || len(res.Admitted) != 0 {
		t.Fatalf("lowering to 2 = %+v, %v; want nobody admitted", res, err)
	}
	for i := range 3 {
		if res, err := c.Release(ctx, lockName, execution(i), 5); err != nil || len(res.HandedTo) != 0 {
			t.Fatalf("release of e%d above the limit = %+v, %v; want the slot back to the lock", i, res, err)
		}
	}
	if res, err := c.Release(ctx, lockName, execution(3), 5); err != nil || !slices.Equal(res.HandedTo, []string{execution(5)}) {
		t.Fatalf("release at the limit = %+v, %v; want handed to e5", res, err)
	}
	if st := read(t, c, 2); st.Count != 2 || !st.LimitOverride {
		t.Fatalf("at limit 2: %+v", st)
	}
	res, err := c.SetLimit(ctx, lockName, 8)
	if want := []string{execution(6), execution(7), execution(8), execution(9)}; err != nil || !slices.Equal(res.Admitted, want) {
		t.Fatalf("raising to 8 admitted %v, %v; want %v", res.Admitted, err, want)
	}
	if st := read(t, c, 8); st.Count != 6 || len(st.Waiters) != 0 {
		t.Fatalf("at limit 8: %+v", st)
	}
	if got := f.wokenOrder(); len(got) != 10 || got[len(got)-1] != token(execution(9), 0) {
		t.Fatalf("woken %d tokens, the last %q; want 10, e9's last", len(got), got[len(got)-1])
	}
	for _, bad := range []int{0, -1, lock.MaxLimit + 1} {
		if _, err := c.SetLimit(ctx, lockName, bad); !errors.Is(err, lock.ErrInvalidRequest) {
			t.Errorf("SetLimit(%d) = %v, want ErrInvalidRequest", bad, err)
		}
	}
	if st := read(t, c, 8); st.Limit != 8 {
		t.Errorf("a refused limit changed the lock: %+v", st)
	}
}

// TestPauseKeepsTheQueue: a paused lock with a free slot queues newcomers in order, a release
// gives its slot back instead of handing it on, the Poll acquire fails; resume admits the
// queue in order.
func TestPauseKeepsTheQueue(t *testing.T) {
	c, f := newClient(t)
	ctx := t.Context()
	park(t, c, 2, 0, 0)
	if err := c.Pause(ctx, lockName); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		if res := park(t, c, 2, i, 0); !res.Queued {
			t.Fatalf("park of e%d while paused = %+v, want queued", i, res)
		}
	}
	if ok, err := c.TryAcquire(ctx, lockName, execution(9), 2); err != nil || ok {
		t.Fatalf("TryAcquire while paused = %v, %v; want refused", ok, err)
	}
	if res, err := c.Release(ctx, lockName, execution(0), 2); err != nil || len(res.HandedTo) != 0 {
		t.Fatalf("release while paused = %+v, %v; want the slot back to the lock", res, err)
	}
	if st := read(t, c, 2); !st.Paused || st.Count != 0 || !slices.Equal(waiters(st), []string{execution(1), execution(2), execution(3)}) {
		t.Fatalf("paused: %+v", st)
	}
	res, err := c.Resume(ctx, lockName)
	if err != nil || !slices.Equal(res.Admitted, []string{execution(1), execution(2)}) {
		t.Fatalf("resume admitted %v, %v; want e1 and e2", res.Admitted, err)
	}
	if st := read(t, c, 2); st.Paused || !slices.Equal(waiters(st), []string{execution(3)}) {
		t.Fatalf("resumed: %+v", st)
	}
	if got := f.wokenOrder(); !slices.Equal(got, []string{token(execution(0), 0), token(execution(1), 0), token(execution(2), 0)}) {
		t.Fatalf("woken %d tokens, want e0, e1, e2's", len(got))
	}
}

// TestDefaultLimit: a key's first park takes its semaphore's default (the configured limit
// until one is set); a new default reaches the keys without a limit of their own and keys used for the
// first time after it; clearing a key's limit puts it back on the default.
func TestDefaultLimit(t *testing.T) {
	c, _ := newClient(t)
	ctx := t.Context()
	parkOn := func(name string, e int) {
		t.Helper()
		ticket, err := c.DrawTicket(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Park(ctx, lock.ParkRequest{Lock: name, Limit: 3, Execution: execution(e), Ticket: ticket, Token: token(execution(e), 0)}); err != nil {
			t.Fatal(err)
		}
	}
	limitOf := func(name string) int {
		t.Helper()
		st, err := c.Read(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		return st.Limit
	}
	parkOn("A", 0)
	parkOn("B", 1)
	if _, err := c.SetLimit(ctx, "A", 2); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ClearLimit(ctx, "A"); err != nil || limitOf("A") != 0 {
		t.Fatalf("ClearLimit without a default left A's limit at %d (%v), want none", limitOf("A"), err)
	}
	parkOn("A", 3)
	if limitOf("A") != 3 {
		t.Fatalf("A's next park copied in %d, want the configured 3", limitOf("A"))
	}
	if _, err := c.DefaultLimit(ctx, semaphore); !errors.Is(err, lock.ErrNoDefault) || limitOf("A") != 3 {
		t.Fatalf("default: %v, A's limit %d; want none in the table and the configured 3", err, limitOf("A"))
	}
	if _, err := c.SetLimit(ctx, "B", 7); err != nil {
		t.Fatal(err)
	}
	res, err := c.SetDefaultLimit(ctx, semaphore, 1)
	if err != nil || !slices.Equal(res.Locks, []string{"A"}) {
		t.Fatalf("SetDefaultLimit = %+v, %v; want A set and B (its own limit) left alone", res, err)
	}
	if d, err := c.DefaultLimit(ctx, semaphore); err != nil || d != 1 || limitOf("A") != 1 || limitOf("B") != 7 {
		t.Fatalf("limits A %d, B %d; want 1 and 7", limitOf("A"), limitOf("B"))
	}
	parkOn("C", 2)
	if limitOf("C") != 1 {
		t.Fatalf("a key first used after the change has limit %d, want the default 1", limitOf("C"))
	}
	if _, err := c.ClearLimit(ctx, "B"); err != nil || limitOf("B") != 1 {
		t.Fatalf("after ClearLimit B's limit is %d (%v), want the default 1", limitOf("B"), err)
	}
	if _, err := c.SetDefaultLimit(ctx, "Sem", 2); !errors.Is(err, lock.ErrInvalidRequest) {
		t.Errorf("a default without a state machine ARN = %v, want ErrInvalidRequest", err)
	}
}

// TestDrain: drain fails every waiter's task with ErrorDrained and the cause, empties the queue
// and leaves the holder; a second drain does nothing; the holder's release hands nothing on.
func TestDrain(t *testing.T) {
	c, f := newClient(t)
	ctx := t.Context()
	for i := range 3 {
		park(t, c, 1, i, 0)
	}
	res, err := c.Drain(ctx, lockName, "maintenance")
	if err != nil || !slices.Equal(res.Drained, []string{execution(1), execution(2)}) || len(res.Unreached) != 0 {
		t.Fatalf("drain = %+v, %v; want e1 and e2 drained", res, err)
	}
	for i := 1; i <= 2; i++ {
		if got := f.failed[token(execution(i), 0)]; got != lock.ErrorDrained+": maintenance" {
			t.Errorf("e%d's task failed with %q, want %s and the cause", i, got, lock.ErrorDrained)
		}
	}
	if st := read(t, c, 1); !slices.Equal(holders(st), []string{execution(0)}) || len(st.Waiters) != 0 {
		t.Fatalf("drained: %+v", st)
	}
	if res, err := c.Drain(ctx, lockName, "again"); err != nil || len(res.Drained) != 0 {
		t.Fatalf("a second drain = %+v, %v; want nothing", res, err)
	}
	if res, err := c.Release(ctx, lockName, execution(0), 1); err != nil || len(res.HandedTo) != 0 {
		t.Fatalf("release after drain = %+v, %v", res, err)
	}
	if st := read(t, c, 1); st.Count != 0 {
		t.Fatalf("leaked: %+v", st)
	}
}
