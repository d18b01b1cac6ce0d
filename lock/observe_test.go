package lock_test

import (
	"sync"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/lock"
)

// TestWithAdmittedReportsEachWokenWaiter: a hand-off and a free slot given to the oldest
// waiter are each reported once, with the lock, who granted the slot and the waiter's time in
// the queue on the client's clock; an execution that takes a free slot without waiting is not.
func TestWithAdmittedReportsEachWokenWaiter(t *testing.T) {
	table := server.CreateLockTable(t)
	clock := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	var got []lock.Admission
	c, err := lock.New(table, server.Client, newFakeSFN(),
		lock.WithNow(func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }),
		lock.WithAdmitted(func(a lock.Admission) { mu.Lock(); defer mu.Unlock(); got = append(got, a) }))
	if err != nil {
		t.Fatal(err)
	}
	advance := func(d time.Duration) { mu.Lock(); defer mu.Unlock(); clock = clock.Add(d) }
	park(t, c, 1, 0, 0) // takes the free slot: no waiting, no report
	park(t, c, 1, 1, 0)
	advance(3 * time.Second)
	park(t, c, 1, 2, 0)
	advance(2 * time.Second)
	if _, err := c.Release(t.Context(), lockName, execution(0), 1); err != nil {
		t.Fatal(err)
	}
	advance(time.Second)
	if _, err := c.Release(t.Context(), lockName, execution(1), 1); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		execution, grantedBy string
		waited               time.Duration
	}{
		{execution(1), execution(0), 5 * time.Second},
		{execution(2), execution(1), 3 * time.Second},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d admissions %+v, want %d", len(got), got, len(want))
	}
	for i, w := range want {
		a := got[i]
		if a.Lock != lockName || a.Execution != w.execution || a.GrantedBy != w.grantedBy || a.At.Sub(a.Since) != w.waited {
			t.Errorf("admission %d = %+v (waited %v), want %s granted by %s after %v", i, a, a.At.Sub(a.Since), w.execution, w.grantedBy, w.waited)
		}
	}
}
