package lock_test

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/turnstile-sfn/turnstile/lock"
)

// TestPlaceKeepsItsPromises checks Place against its documentation on random waiters: places
// are distinct, ordered by ticket plus the priority's lag then by priority, first in first out
// within a priority, and a waiter is overtaken by no more later arrivals of a higher priority
// than the starvation bound allows.
func TestPlaceKeepsItsPromises(t *testing.T) {
	type w struct {
		ticket   int64
		priority int
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, ageing := range []int64{1, 3, 100} {
		var ws []w
		for ticket := int64(1); ticket <= 2000; ticket++ {
			ws = append(ws, w{ticket, rng.IntN(lock.MaxPriority + 1)})
		}
		seen := map[int64]bool{}
		for _, x := range ws {
			p := lock.Place(x.ticket, x.priority, ageing)
			if seen[p] {
				t.Fatalf("ageing %d: place %d given twice", ageing, p)
			}
			seen[p] = true
		}
		for i, x := range ws {
			overtakenBy := map[int]int64{} // priority: later arrivals placed before x
			for _, y := range ws[i+1:] {
				before := lock.Place(y.ticket, y.priority, ageing) < lock.Place(x.ticket, x.priority, ageing)
				if before && y.priority <= x.priority {
					t.Fatalf("ageing %d: %+v (later, priority not higher) placed before %+v", ageing, y, x)
				}
				if before {
					overtakenBy[y.priority]++
				}
				if !before && y.priority > x.priority && y.ticket-x.ticket < int64(y.priority-x.priority)*ageing {
					t.Fatalf("ageing %d: %+v placed after %+v within the bound", ageing, y, x)
				}
			}
			for q, n := range overtakenBy {
				if bound := int64(q-x.priority) * ageing; n > bound {
					t.Fatalf("ageing %d: %+v overtaken by %d of priority %d, bound %d", ageing, x, n, q, bound)
				}
			}
		}
	}
}

// TestCheckPriority: the ends of both ranges pass, one beyond fails with ErrInvalidRequest.
func TestCheckPriority(t *testing.T) {
	for _, tc := range []struct {
		priority int
		ageing   int64
		ok       bool
	}{
		{lock.MinPriority, 1, true}, {lock.MaxPriority, lock.MaxPriorityAgeing, true},
		{lock.MinPriority - 1, 1, false}, {lock.MaxPriority + 1, 1, false},
		{5, 0, false}, {5, lock.MaxPriorityAgeing + 1, false},
	} {
		err := lock.CheckPriority(tc.priority, tc.ageing)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, lock.ErrInvalidRequest)) {
			t.Errorf("CheckPriority(%d, %d) = %v, want ok %v", tc.priority, tc.ageing, err, tc.ok)
		}
	}
}

// TestPriorityHandOffOrder: limit 1, ageing 2; e0 holds; five waiters of priority 0 queue (tickets
// 2 to 6), e6 of priority 9 (ticket 7) overtakes them all (7 < 2+9·2); after 20 unused
// tickets, e7 of priority 9 (ticket 28) comes after them (their lag of 18 has run out), then
// e8 of priority 5 and e9 of priority 0. Releases hand the slot on in exactly that order.
func TestPriorityHandOffOrder(t *testing.T) {
	c, _ := newClient(t)
	ctx := t.Context()
	const ageing = 2
	parkAt := func(e, priority int) lock.ParkResult {
		t.Helper()
		ticket, err := c.DrawTicket(ctx, lockName)
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Park(ctx, lock.ParkRequest{Lock: lockName, Limit: 1, Execution: execution(e),
			Ticket: lock.Place(ticket, priority, ageing), Token: token(execution(e), 0)})
		if err != nil {
			t.Fatalf("park e%d: %v", e, err)
		}
		return res
	}
	if res := parkAt(0, 0); !res.Admitted {
		t.Fatalf("e0 = %+v, want admitted", res)
	}
	for e := 1; e <= 5; e++ {
		parkAt(e, 0)
	}
	parkAt(6, 9) // ticket 7: 7+0 < 2+18, ahead of all five
	for range 20 {
		if _, err := c.DrawTicket(ctx, lockName); err != nil {
			t.Fatal(err)
		}
	}
	parkAt(7, 9) // ticket 28: behind e1..e5 (their places 20..24 < 28)
	parkAt(8, 5) // ticket 29: 29+8 = 37
	parkAt(9, 0) // ticket 30: 30+18 = 48
	want := []string{execution(6), execution(1), execution(2), execution(3), execution(4), execution(5), execution(7), execution(8), execution(9)}
	if got := waiters(read(t, c, 1)); !slices.Equal(got, want) {
		t.Fatalf("queue = %v, want %v", got, want)
	}
	holder := execution(0)
	for _, next := range want {
		res, err := c.Release(ctx, lockName, holder, 1)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.HandedTo, []string{next}) {
			t.Fatalf("release of %s handed to %v, want %s", holder, res.HandedTo, next)
		}
		holder = next
	}
}
