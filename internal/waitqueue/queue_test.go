package waitqueue_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/turnstile-sfn/turnstile/internal/waitqueue"
)

// TestHandOffFollowsEnqueueOrder: limit 1; e0 holds; e1, e2, e3 park; every release hands the
// slot to the oldest waiter and wakes it; a newcomer's acquire never overtakes the queue; the
// counter never changes during hand-offs and ends at 0.
func TestHandOffFollowsEnqueueOrder(t *testing.T) {
	q, f, table := newQueue(t)
	ctx := t.Context()
	if !acquire(t, table, execution(0), 1) {
		t.Fatal("the first acquire failed")
	}
	for i := 1; i <= 3; i++ {
		res, err := q.Park(ctx, lockName, 1, execution(i), token(execution(i), 0))
		if err != nil {
			t.Fatal(err)
		}
		if !res.Queued || res.Admitted || res.Ticket != int64(i) {
			t.Fatalf("park e%d = %+v, want queued with ticket %d", i, res, i)
		}
	}
	if l := readLock(t, table); !slices.Equal(l.queue, []string{execution(1), execution(2), execution(3)}) {
		t.Fatalf("queue = %v", l.queue)
	}
	for i := 0; i < 3; i++ {
		if acquire(t, table, execution(100+i), 5) {
			t.Fatalf("a newcomer took a slot past the queue (round %d)", i)
		}
		res, err := q.Release(ctx, lockName, execution(i), 1)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Released || !slices.Equal(res.HandedTo, []string{execution(i + 1)}) {
			t.Fatalf("release e%d = %+v, want handed to e%d", i, res, i+1)
		}
		l := readLock(t, table)
		checkInvariant(t, l, 1)
		if !slices.Equal(l.holders, []string{execution(i + 1)}) {
			t.Fatalf("after release %d the holders are %v", i, l.holders)
		}
	}
	want := []string{token(execution(1), 0), token(execution(2), 0), token(execution(3), 0)}
	if got := f.wokenOrder(); !slices.Equal(got, want) {
		t.Fatalf("woken %v, want %v", got, want)
	}
	for i, tok := range want {
		if w := f.woken[tok]; w.Admission != int64(i+1) || w.GrantedBy != execution(i) {
			t.Errorf("wake %d = %+v, want admission %d granted by e%d", i, w, i+1, i)
		}
	}
	if res, err := q.Release(ctx, lockName, execution(3), 1); err != nil || !res.Released || len(res.HandedTo) != 0 {
		t.Fatalf("the last release = %+v, %v", res, err)
	}
	if l := readLock(t, table); l.count != 0 || len(l.holders) != 0 || len(l.queue) != 0 || l.tokens != 0 {
		t.Fatalf("the lock after the last release: %+v", l)
	}
	if res, err := q.Release(ctx, lockName, execution(3), 1); err != nil || res.Released {
		t.Fatalf("a second release = %+v, %v; want a no-op", res, err)
	}
}

// TestParkAdmitsWhenFree: a park on a lock with a free slot and nobody waiting takes the slot
// and completes the caller's own token; a park by a holder completes it too.
func TestParkAdmitsWhenFree(t *testing.T) {
	q, f, table := newQueue(t)
	ctx := t.Context()
	acquire(t, table, execution(0), 2) // creates the item
	res, err := q.Park(ctx, lockName, 2, execution(1), token(execution(1), 0))
	if err != nil || !res.Admitted || res.Queued {
		t.Fatalf("park with a free slot = %+v, %v", res, err)
	}
	res, err = q.Park(ctx, lockName, 2, execution(1), token(execution(1), 1))
	if err != nil || !res.Admitted {
		t.Fatalf("park by a holder = %+v, %v", res, err)
	}
	l := readLock(t, table)
	checkInvariant(t, l, 2)
	if l.count != 2 || len(l.queue) != 0 {
		t.Fatalf("lock = %+v", l)
	}
	if got := f.wokenOrder(); !slices.Equal(got, []string{token(execution(1), 0), token(execution(1), 1)}) {
		t.Fatalf("woken %v", got)
	}
}

// TestReparkKeepsPlace: a waiter whose task timed out parks again with a new token and keeps
// its place; the hand-off uses the new token.
func TestReparkKeepsPlace(t *testing.T) {
	q, f, table := newQueue(t)
	ctx := t.Context()
	acquire(t, table, execution(0), 1)
	for i := 1; i <= 2; i++ {
		if _, err := q.Park(ctx, lockName, 1, execution(i), token(execution(i), 0)); err != nil {
			t.Fatal(err)
		}
	}
	res, err := q.Park(ctx, lockName, 1, execution(1), token(execution(1), 1))
	if err != nil || !res.Queued || res.Ticket != 0 {
		t.Fatalf("re-park = %+v, %v; want queued without a new ticket", res, err)
	}
	if l := readLock(t, table); !slices.Equal(l.queue, []string{execution(1), execution(2)}) || l.tokens != 2 {
		t.Fatalf("lock after the re-park: %+v", l)
	}
	if _, err := q.Release(ctx, lockName, execution(0), 1); err != nil {
		t.Fatal(err)
	}
	if got := f.wokenOrder(); !slices.Equal(got, []string{token(execution(1), 1)}) {
		t.Fatalf("woken %v, want the new token", got)
	}
}

// TestDeadWaiterIsSkipped: the oldest waiter's execution has ended; its token fails, so the
// slot goes on to the next waiter, and the dead one is neither holder nor queued.
func TestDeadWaiterIsSkipped(t *testing.T) {
	q, f, table := newQueue(t)
	ctx := t.Context()
	acquire(t, table, execution(0), 1)
	for i := 1; i <= 2; i++ {
		if _, err := q.Park(ctx, lockName, 1, execution(i), token(execution(i), 0)); err != nil {
			t.Fatal(err)
		}
	}
	f.dead[token(execution(1), 0)] = true
	f.status[execution(1)] = sfntypes.ExecutionStatusAborted
	res, err := q.Release(ctx, lockName, execution(0), 1)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.HandedTo, []string{execution(1), execution(2)}) || !slices.Equal(res.Skipped, []string{execution(1)}) {
		t.Fatalf("release = %+v", res)
	}
	l := readLock(t, table)
	checkInvariant(t, l, 1)
	if !slices.Equal(l.holders, []string{execution(2)}) || len(l.queue) != 0 {
		t.Fatalf("lock = %+v, want held by e2 alone", l)
	}
}

// TestLiveWaiterWithStaleTokenKeepsSlot: a waiter whose token fails but whose execution runs
// keeps the slot it was handed (it finds it when it parks again).
func TestLiveWaiterWithStaleTokenKeepsSlot(t *testing.T) {
	q, f, table := newQueue(t)
	ctx := t.Context()
	acquire(t, table, execution(0), 1)
	if _, err := q.Park(ctx, lockName, 1, execution(1), token(execution(1), 0)); err != nil {
		t.Fatal(err)
	}
	f.dead[token(execution(1), 0)] = true
	if _, err := q.Release(ctx, lockName, execution(0), 1); err != nil {
		t.Fatal(err)
	}
	if l := readLock(t, table); !slices.Equal(l.holders, []string{execution(1)}) {
		t.Fatalf("lock = %+v, want held by e1", l)
	}
	res, err := q.Park(ctx, lockName, 1, execution(1), token(execution(1), 1))
	if err != nil || !res.Admitted {
		t.Fatalf("the re-park of the holder = %+v, %v", res, err)
	}
}

// TestReleaseOfWaiterDequeues: the cleanup's release of an execution that died while parked
// removes it from the queue and changes no slot.
func TestReleaseOfWaiterDequeues(t *testing.T) {
	q, _, table := newQueue(t)
	ctx := t.Context()
	acquire(t, table, execution(0), 1)
	for i := 1; i <= 3; i++ {
		if _, err := q.Park(ctx, lockName, 1, execution(i), token(execution(i), 0)); err != nil {
			t.Fatal(err)
		}
	}
	res, err := q.Release(ctx, lockName, execution(2), 1)
	if err != nil || !res.Dequeued || res.Released {
		t.Fatalf("release of a waiter = %+v, %v", res, err)
	}
	l := readLock(t, table)
	checkInvariant(t, l, 1)
	if !slices.Equal(l.queue, []string{execution(1), execution(3)}) || !slices.Equal(l.holders, []string{execution(0)}) {
		t.Fatalf("lock = %+v", l)
	}
}

// TestRaisedLimitAdmitsOldest: with a slot free while executions wait (the limit was raised),
// a waiter's re-park admits the oldest waiter first.
func TestRaisedLimitAdmitsOldest(t *testing.T) {
	q, f, table := newQueue(t)
	ctx := t.Context()
	acquire(t, table, execution(0), 1)
	for i := 1; i <= 2; i++ {
		if _, err := q.Park(ctx, lockName, 1, execution(i), token(execution(i), 0)); err != nil {
			t.Fatal(err)
		}
	}
	res, err := q.Park(ctx, lockName, 2, execution(2), token(execution(2), 1))
	if err != nil || !res.Queued {
		t.Fatalf("re-park of the second waiter under a raised limit = %+v, %v", res, err)
	}
	l := readLock(t, table)
	checkInvariant(t, l, 2)
	if !slices.Equal(l.holders, []string{execution(0), execution(1)}) || !slices.Equal(l.queue, []string{execution(2)}) {
		t.Fatalf("lock = %+v, want e1 admitted and e2 still waiting", l)
	}
	if got := f.wokenOrder(); !slices.Equal(got, []string{token(execution(1), 0)}) {
		t.Fatalf("woken %v", got)
	}
}

// TestBadRequests: missing arguments are named errors, and nothing is written.
func TestBadRequests(t *testing.T) {
	q, _, table := newQueue(t)
	ctx := t.Context()
	if _, err := q.Park(ctx, "", 1, execution(1), "t"); !errors.Is(err, waitqueue.ErrInvalidRequest) {
		t.Errorf("park without a lock: %v", err)
	}
	if _, err := q.Park(ctx, lockName, 0, execution(1), "t"); !errors.Is(err, waitqueue.ErrInvalidRequest) {
		t.Errorf("park with limit 0: %v", err)
	}
	if _, err := q.Release(ctx, lockName, "", 1); !errors.Is(err, waitqueue.ErrInvalidRequest) {
		t.Errorf("release without an execution: %v", err)
	}
	if _, err := q.Release(ctx, lockName, execution(1), 0); !errors.Is(err, waitqueue.ErrInvalidRequest) {
		t.Errorf("release with limit 0: %v", err)
	}
	if waitqueue.ErrorName(waitqueue.ErrInvalidRequest) == "" {
		t.Error("ErrInvalidRequest has no error name")
	}
	if l := readLock(t, table); l.count != 0 || len(l.queue) != 0 {
		t.Errorf("a bad request wrote: %+v", l)
	}
	if _, err := waitqueue.New("", server.Client, newFakeSFN()); !errors.Is(err, waitqueue.ErrInvalidRequest) {
		t.Errorf("New without a table: %v", err)
	}
}

// TestLocksQueueIndependently: a full lock with waiters does not hold back another lock of the
// same table (per-key locks, LockNamePath): each lock item has its own queue.
func TestLocksQueueIndependently(t *testing.T) {
	q, _, table := newQueue(t)
	ctx := t.Context()
	acquire(t, table, execution(0), 1)
	if res, err := q.Park(ctx, lockName, 1, execution(1), token(execution(1), 0)); err != nil || !res.Queued {
		t.Fatalf("park on the full lock = %+v, %v", res, err)
	}
	res, err := q.Park(ctx, "other", 1, execution(2), token(execution(2), 0))
	if err != nil || !res.Admitted {
		t.Fatalf("park on another lock = %+v, %v; want admitted at once", res, err)
	}
	if l := readLock(t, table); len(l.queue) != 1 || l.count != 1 {
		t.Fatalf("the first lock changed: %+v", l)
	}
}

// TestQueueFullIsNamed: waiters with long task tokens fill the lock item up to DynamoDB's
// 400 KB; the next park fails with ErrQueueFull (Turnstile.QueueFull) and changes nothing.
func TestQueueFullIsNamed(t *testing.T) {
	q, _, table := newQueue(t)
	ctx := t.Context()
	acquire(t, table, execution(0), 1)
	long := strings.Repeat("t", 1000)
	for i := 1; ; i++ {
		_, err := q.Park(ctx, lockName, 1, execution(i), long+token(execution(i), 0))
		if err == nil {
			continue
		}
		if !errors.Is(err, waitqueue.ErrQueueFull) || waitqueue.ErrorName(err) != "Turnstile.QueueFull" {
			t.Fatalf("park %d: %v, want ErrQueueFull", i, err)
		}
		l := readLock(t, table)
		checkInvariant(t, l, 1)
		if len(l.queue) != i-1 || slices.Contains(l.queue, execution(i)) {
			t.Fatalf("after the failed park the queue has %d waiters, want the %d before it", len(l.queue), i-1)
		}
		t.Logf("%d waiters with 1 KB tokens fit in one lock item", i-1)
		return
	}
}

// TestDuplicateReleaseWakesOnce: a release retried after it handed the slot off (the machine's
// retry, or a duplicated cleanup event) changes nothing and wakes nobody again.
func TestDuplicateReleaseWakesOnce(t *testing.T) {
	q, f, table := newQueue(t)
	ctx := t.Context()
	acquire(t, table, execution(0), 1)
	for i := 1; i <= 2; i++ {
		if _, err := q.Park(ctx, lockName, 1, execution(i), token(execution(i), 0)); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		if _, err := q.Release(ctx, lockName, execution(0), 1); err != nil {
			t.Fatal(err)
		}
	}
	if got := f.wokenOrder(); !slices.Equal(got, []string{token(execution(1), 0)}) {
		t.Fatalf("woken %v, want e1 once", got)
	}
	l := readLock(t, table)
	checkInvariant(t, l, 1)
	if !slices.Equal(l.holders, []string{execution(1)}) || !slices.Equal(l.queue, []string{execution(2)}) {
		t.Fatalf("lock = %+v, want e1 holding and e2 waiting", l)
	}
}

// TestLoweredLimitHandsNothingOn: the limit was lowered from 2 to 1 while e0 and e1 hold and
// e2 waits; e0's release gives its slot back instead of handing it on (the count must come
// down to the new limit first); e1's release then hands its slot to e2.
func TestLoweredLimitHandsNothingOn(t *testing.T) {
	q, f, table := newQueue(t)
	ctx := t.Context()
	acquire(t, table, execution(0), 2)
	acquire(t, table, execution(1), 2)
	if _, err := q.Park(ctx, lockName, 1, execution(2), token(execution(2), 0)); err != nil {
		t.Fatal(err)
	}
	res, err := q.Release(ctx, lockName, execution(0), 1)
	if err != nil || !res.Released || len(res.HandedTo) != 0 {
		t.Fatalf("release over the lowered limit = %+v, %v; want a plain release", res, err)
	}
	l := readLock(t, table)
	checkInvariant(t, l, 2)
	if l.count != 1 || !slices.Equal(l.queue, []string{execution(2)}) {
		t.Fatalf("lock = %+v, want e1 alone holding and e2 waiting", l)
	}
	if acquire(t, table, execution(9), 1) {
		t.Fatal("a newcomer was admitted at the lowered limit")
	}
	if res, err := q.Release(ctx, lockName, execution(1), 1); err != nil || !slices.Equal(res.HandedTo, []string{execution(2)}) {
		t.Fatalf("release within the limit = %+v, %v; want a hand-off to e2", res, err)
	}
	if l := readLock(t, table); l.count != 1 || !slices.Equal(l.holders, []string{execution(2)}) {
		t.Fatalf("lock = %+v, want e2 holding", l)
	}
	if got := f.wokenOrder(); !slices.Equal(got, []string{token(execution(2), 0)}) {
		t.Fatalf("woken %v", got)
	}
}

// TestLoweredLimitWithoutWaiters: two holders under a limit lowered to 1 (no queue, as with
// Poll): no acquire succeeds until both are gone, releases still work, and the counter never
// goes below 0.
func TestLoweredLimitWithoutWaiters(t *testing.T) {
	q, _, table := newQueue(t)
	ctx := t.Context()
	acquire(t, table, execution(0), 2)
	acquire(t, table, execution(1), 2)
	for i := range 2 {
		if acquire(t, table, execution(9), 1) {
			t.Fatalf("step %d: admitted over the lowered limit", i)
		}
		if _, err := q.Release(ctx, lockName, execution(i), 1); err != nil {
			t.Fatal(err)
		}
		checkInvariant(t, readLock(t, table), 2)
	}
	if _, err := q.Release(ctx, lockName, execution(1), 1); err != nil {
		t.Fatal(err)
	}
	if l := readLock(t, table); l.count != 0 {
		t.Fatalf("lock = %+v, want the counter at 0", l)
	}
	if !acquire(t, table, execution(9), 1) {
		t.Fatal("no admission once the count is below the lowered limit")
	}
}
