package ratelimit

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

// newLimiter is New with the test's defaults, failing the test on error.
func newLimiter(t *testing.T, cfg Config) *Limiter {
	t.Helper()
	if cfg.Name == "" {
		cfg.Name = "api"
	}
	l, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestNewRefusesBadConfig(t *testing.T) {
	table := Table{Client: server.Client, Name: "t"}
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"no table", Config{Name: "a", Limit: 1}},
		{"no name", Config{Table: table, Limit: 1}},
		{"zero limit", Config{Table: table, Name: "a"}},
		{"infinite limit", Config{Table: table, Name: "a", Limit: rate.Inf}},
		{"lease over burst", Config{Table: table, Name: "a", Limit: 1, Burst: 2, Lease: 3}},
		{"negative lookahead", Config{Table: table, Name: "a", Limit: 1, Lookahead: -time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := New(tc.cfg); !errors.Is(err, ErrInvalidConfig) {
				t.Errorf("New: got %v, want ErrInvalidConfig", err)
			}
		})
	}
}

func TestAllowGrantsTheBurstThenOnePerInterval(t *testing.T) {
	clock := newFakeClock()
	l := newLimiter(t, Config{Table: newTable(t), Limit: 10, Burst: 5, Clock: clock})
	ctx := t.Context()
	var got []bool
	for range 7 {
		ok, err := l.Allow(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ok)
	}
	clock.Advance(100 * time.Millisecond)
	for range 2 {
		ok, err := l.Allow(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ok)
	}
	want := []bool{true, true, true, true, true, false, false, true, false}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	if _, err := l.AllowN(ctx, 6); !errors.Is(err, ErrExceedsBurst) {
		t.Errorf("AllowN(6) with burst 5: got %v, want ErrExceedsBurst", err)
	}
}

func TestAllowNWeighsPermits(t *testing.T) {
	clock := newFakeClock()
	l := newLimiter(t, Config{Table: newTable(t), Limit: 10, Burst: 5, Clock: clock})
	for i, tc := range []struct {
		n    int
		want bool
	}{{3, true}, {3, false}, {2, true}, {1, false}} {
		got, err := l.AllowN(t.Context(), tc.n)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("step %d: AllowN(%d) = %v, want %v", i, tc.n, got, tc.want)
		}
	}
}

// grantsWithin reports the largest number of grants in any window of length w.
func grantsWithin(times []time.Time, w time.Duration) int {
	most, j := 0, 0
	for i := range times {
		for times[i].Sub(times[j]) >= w {
			j++
		}
		most = max(most, i-j+1)
	}
	return most
}

func TestWaitKeepsTheRate(t *testing.T) {
	clock := newFakeClock()
	const limit, burst, permits = 50, 10, 300
	l := newLimiter(t, Config{Table: newTable(t), Limit: limit, Burst: burst, Lookahead: 100 * time.Millisecond, Clock: clock})
	start := clock.Now()
	var grants []time.Time
	for range permits {
		if err := l.Wait(t.Context()); err != nil {
			t.Fatal(err)
		}
		grants = append(grants, clock.Now())
	}
	// The GCRA bound: at most limit·w + burst permits in any window w.
	for _, w := range []time.Duration{100 * time.Millisecond, time.Second, 3 * time.Second} {
		bound := int(limit*w.Seconds()) + burst
		if got := grantsWithin(grants, w); got > bound {
			t.Errorf("%d permits within %v, want <= %d", got, w, bound)
		}
	}
	// And no under-use: the last permit comes when the rate allows it, not later.
	want := time.Duration(float64(permits-burst) / limit * float64(time.Second))
	if got := grants[len(grants)-1].Sub(start); got > want+20*time.Millisecond {
		t.Errorf("last permit after %v, want about %v", got, want)
	}
	c := l.Counts()
	if c.Permits != permits || c.Writes > permits+permits/2 {
		t.Errorf("counts %+v: want %d permits and at most %d writes", c, permits, permits+permits/2)
	}
}

func TestWaitRespectsTheDeadline(t *testing.T) {
	clock := newFakeClock()
	l := newLimiter(t, Config{Table: newTable(t), Limit: 0.01, Burst: 1, Clock: clock})
	if err := l.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	// The next slot is 100 s ahead: Wait fails at once, without sleeping towards it.
	start := clock.Now()
	ctx, cancel := context.WithDeadline(t.Context(), start.Add(10*time.Second))
	defer cancel()
	if err := l.Wait(ctx); !errors.Is(err, ErrWouldExceedDeadline) {
		t.Errorf("Wait: got %v, want ErrWouldExceedDeadline", err)
	}
	if slept := clock.Now().Sub(start); slept != 0 {
		t.Errorf("Wait slept %v before giving up, want 0", slept)
	}
}

func TestReserveBooksConsecutiveSlots(t *testing.T) {
	clock := newFakeClock()
	l := newLimiter(t, Config{Table: newTable(t), Limit: 10, Burst: 2, Clock: clock})
	var delays []time.Duration
	for range 5 {
		r, err := l.Reserve(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		delays = append(delays, r.Delay())
	}
	want := []time.Duration{0, 0, 100 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond}
	for i := range want {
		if delays[i] != want[i] {
			t.Fatalf("delays %v, want %v", delays, want)
		}
	}
}

// allowAll makes clients × goroutines calls of AllowN(1) each, concurrently, and returns how many
// were granted.
func allowAll(t *testing.T, limiters []*Limiter, goroutines, calls int) int64 {
	t.Helper()
	var granted atomic.Int64
	var wg sync.WaitGroup
	for _, l := range limiters {
		for range goroutines {
			wg.Go(func() {
				for range calls {
					ok, err := l.Allow(t.Context())
					if err != nil {
						t.Error(err)
						return
					}
					if ok {
						granted.Add(1)
					}
				}
			})
		}
	}
	wg.Wait()
	return granted.Load()
}

func TestConcurrentClientsShareTheBurst(t *testing.T) {
	clock := newFakeClock()
	table := newTable(t)
	const burst = 20
	var limiters []*Limiter
	for range 5 {
		limiters = append(limiters, newLimiter(t, Config{Table: table, Limit: 100, Burst: burst, Clock: clock}))
	}
	if got := allowAll(t, limiters, 4, 3); got != burst {
		t.Errorf("granted %d at one instant, want the burst %d", got, burst)
	}
	clock.Advance(100 * time.Millisecond) // 10 more permits
	if got := allowAll(t, limiters, 4, 3); got != 10 {
		t.Errorf("granted %d after 100 ms at 100/s, want 10", got)
	}
}

func TestLostRepliesNeverOverGrant(t *testing.T) {
	client, proxy := faultyClient(t, 0.2)
	clock := newFakeClock()
	table := newTable(t)
	table.Client = client
	const burst = 20
	var limiters []*Limiter
	for range 5 {
		limiters = append(limiters, newLimiter(t, Config{Table: table, Limit: 100, Burst: burst, Clock: clock}))
	}
	first := allowAll(t, limiters, 4, 3)
	clock.Advance(time.Second) // 100 more permits
	second := allowAll(t, limiters, 4, 10)
	if proxy.Stats().AppliedReplyLost == 0 {
		t.Fatal("no reply was lost: the test proves nothing")
	}
	if first > burst || first+second > burst+100 {
		t.Errorf("granted %d then %d with lost replies, want at most %d and %d in all", first, second, burst, burst+100)
	}
	// A lost reply wastes the permits its retry takes again, never more.
	if first+second < burst+100-2*proxy.Stats().AppliedReplyLost {
		t.Errorf("granted %d in all, under-use beyond the %d lost replies", first+second, proxy.Stats().AppliedReplyLost)
	}
}

func TestLeasedOvershootBound(t *testing.T) {
	clock := newFakeClock()
	table := newTable(t)
	const clients, lease, burst, limit = 5, 4, 20, 100
	var limiters []*Limiter
	for range clients {
		limiters = append(limiters, newLimiter(t, Config{Table: table, Limit: limit, Burst: burst, Lease: lease, Clock: clock}))
	}
	// At one instant the clients together get no more than the burst: leases are booked in
	// the shared TAT.
	if got := allowAll(t, limiters, 2, 10); got > burst {
		t.Errorf("granted %d at one instant, want at most %d", got, burst)
	}
	// Each client keeps a lease with lease-1 permits, then the rate goes idle.
	clock.Advance(time.Hour)
	for _, l := range limiters {
		l.mu.Lock()
		l.pool = 0
		l.mu.Unlock()
		if ok, err := l.Allow(t.Context()); err != nil || !ok {
			t.Fatalf("Allow after idle: %v %v", ok, err)
		}
	}
	clock.Advance(time.Hour)
	// In the next instant: the burst again, plus the leased permits held over.
	got := allowAll(t, limiters, 2, 20)
	if bound := int64(burst + clients*lease); got > bound {
		t.Errorf("granted %d at one instant after holding leases, want at most burst+clients·lease = %d", got, bound)
	}
	if got <= burst {
		t.Errorf("granted %d: the held-over leases should be usable beyond the burst", got)
	}
}
