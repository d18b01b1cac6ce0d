package lock_test

import (
	"flag"
	"sync"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/lock"
)

var benchWaiters = flag.Int("waiters", 100_000, "waiters BenchmarkQueue parks on one lock")

// BenchmarkQueue parks -waiters executions on one lock of limit 1 (16 at a time), then releases
// the slot down the whole queue: every release must hand it to the next ticket, so the queue
// holds them all and stays FIFO. It reports the parks and hand-offs per second against
// DynamoDB Local; run it with -benchtime 1x (make bench-scale does).
func BenchmarkQueue(b *testing.B) {
	for b.Loop() {
		benchQueue(b, *benchWaiters)
	}
}

// benchQueue is one run of BenchmarkQueue with n waiters.
func benchQueue(b *testing.B, n int) {
	table := server.CreateLockTable(b)
	f := newFakeSFN()
	c, err := lock.New(table, server.Client, f)
	if err != nil {
		b.Fatal(err)
	}
	ctx := b.Context()
	if ok, err := c.TryAcquire(ctx, lockName, execution(0), 1); err != nil || !ok {
		b.Fatalf("the first acquire: %v, %v", ok, err)
	}
	start := time.Now()
	tickets := make(chan int, n)
	for i := 1; i <= n; i++ {
		tickets <- i
	}
	close(tickets)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Go(func() {
			for i := range tickets {
				ticket, err := c.DrawTicket(ctx, lockName)
				if err == nil {
					_, err = c.Park(ctx, lock.ParkRequest{Lock: lockName, Limit: 1, Execution: execution(i), Ticket: ticket, Token: token(execution(i), 0)})
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	parked := time.Since(start)
	st, err := c.Read(ctx, lockName)
	if err != nil {
		b.Fatal(err)
	}
	if len(st.Waiters) != n {
		b.Fatalf("%d waiters in the queue, want %d", len(st.Waiters), n)
	}
	order := make([]string, 0, n)
	for _, w := range st.Waiters {
		order = append(order, w.Execution)
	}
	start = time.Now()
	holder := execution(0)
	for i, want := range order {
		res, err := c.Release(ctx, lockName, holder, 1)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.HandedTo) != 1 || res.HandedTo[0] != want {
			b.Fatalf("release %d handed to %v, want %s (the next ticket)", i, res.HandedTo, want)
		}
		holder = want
	}
	handed := time.Since(start)
	if _, err := c.Release(ctx, lockName, holder, 1); err != nil {
		b.Fatal(err)
	}
	if st, err := c.Read(ctx, lockName); err != nil || st.Count != 0 || len(st.Holders)+len(st.Waiters) != 0 {
		b.Fatalf("left: %+v, %v", st, err)
	}
	if got := len(f.wokenOrder()); got != n {
		b.Fatalf("%d waiters woken, want %d", got, n)
	}
	b.ReportMetric(float64(n), "waiters")
	b.ReportMetric(float64(n)/parked.Seconds(), "parks/s")
	b.ReportMetric(float64(n)/handed.Seconds(), "hand-offs/s")
}
