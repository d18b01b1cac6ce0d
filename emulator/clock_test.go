package emulator

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"
)

// timers returns how many timers a skipping clock has pending.
func (c *ScaledClock) timers() int {
	c.sched.mu.Lock()
	defer c.sched.mu.Unlock()
	return len(c.sched.timers)
}

// waitUntil polls cond in real time; the clock's goroutines need real time to reach a state.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
	}
}

func TestSkippingClockJumpsOnlyWhenIdle(t *testing.T) {
	c := NewScaledClock(testStart, 0)
	release := c.Hold() // the test is busy
	woke := make(chan time.Time, 1)
	c.Go(func() {
		_ = c.Sleep(context.Background(), time.Hour)
		woke <- c.Now()
	})
	waitUntil(t, "the goroutine sleeps", func() bool { return c.timers() == 1 })
	time.Sleep(20 * time.Millisecond)
	if got := c.Now(); !got.Equal(testStart) {
		t.Fatalf("time moved to %v while a token was held", got)
	}
	release()
	if got := <-woke; !got.Equal(testStart.Add(time.Hour)) {
		t.Errorf("the sleeper woke at %v, want %v", got, testStart.Add(time.Hour))
	}
}

func TestBusyGoroutineHoldsTimeStill(t *testing.T) {
	c := NewScaledClock(testStart, 0)
	unblock := make(chan struct{})
	c.Go(func() { <-unblock }) // busy on something outside the clock
	woke := make(chan time.Time, 1)
	c.Go(func() {
		_ = c.Sleep(context.Background(), time.Minute)
		woke <- c.Now()
	})
	waitUntil(t, "the goroutine sleeps", func() bool { return c.timers() == 1 })
	select {
	case at := <-woke:
		t.Fatalf("the sleeper woke at %v while another goroutine was busy", at)
	case <-time.After(20 * time.Millisecond):
	}
	close(unblock)
	if got := <-woke; !got.Equal(testStart.Add(time.Minute)) {
		t.Errorf("woke at %v, want %v", got, testStart.Add(time.Minute))
	}
}

func TestSkippingClockFiresTimersInOrder(t *testing.T) {
	c := NewScaledClock(testStart, 0)
	release := c.Hold()
	var mu sync.Mutex
	var got []time.Duration
	var wg sync.WaitGroup
	for _, d := range []time.Duration{3 * time.Second, time.Second, 2 * time.Second} {
		wg.Add(1)
		c.Go(func() {
			defer wg.Done()
			_ = c.Sleep(context.Background(), d)
			mu.Lock()
			got = append(got, c.Now().Sub(testStart))
			mu.Unlock()
		})
	}
	waitUntil(t, "three goroutines sleep", func() bool { return c.timers() == 3 })
	release()
	wg.Wait()
	if want := []time.Duration{time.Second, 2 * time.Second, 3 * time.Second}; !slices.Equal(got, want) {
		t.Errorf("woke at %v, want %v", got, want)
	}
}

// tieOrder has n goroutines sleep the same duration (in turn, so that their timers are created
// in a known order) and returns the order in which they wake.
func tieOrder(t *testing.T, seed uint64, n int) []int {
	c := NewSkippingClock(testStart, seed)
	release := c.Hold()
	var mu sync.Mutex
	var order []int
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		c.Go(func() {
			defer wg.Done()
			_ = c.Sleep(context.Background(), time.Second)
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
		})
		waitUntil(t, "the goroutine sleeps", func() bool { return c.timers() == i+1 })
	}
	release()
	wg.Wait()
	return order
}

func TestSkippingClockBreaksTiesInSeededOrder(t *testing.T) {
	const n = 8
	first := tieOrder(t, 7, n)
	if again := tieOrder(t, 7, n); !slices.Equal(first, again) {
		t.Errorf("seed 7 woke the sleepers in the order %v, then %v", first, again)
	}
	differs := false
	for seed := uint64(8); seed < 12 && !differs; seed++ {
		differs = !slices.Equal(first, tieOrder(t, seed, n))
	}
	if !differs {
		t.Errorf("seeds 8 to 11 all woke the sleepers in seed 7's order %v", first)
	}
}

func TestStoppedAlarmDoesNotFire(t *testing.T) {
	c := NewScaledClock(testStart, 0)
	release := c.Hold()
	fired := make(chan string, 2)
	stop := c.alarm(testStart.Add(time.Second), func() { fired <- "stopped" })
	c.alarm(testStart.Add(2*time.Second), func() { fired <- "kept" })
	if !stop() {
		t.Fatal("stop reported the alarm had already fired")
	}
	release()
	if got := <-fired; got != "kept" {
		t.Fatalf("got the %s alarm first", got)
	}
	select {
	case got := <-fired:
		t.Errorf("the %s alarm fired too", got)
	case <-time.After(20 * time.Millisecond):
	}
	if got := c.Now(); !got.Equal(testStart.Add(2 * time.Second)) {
		t.Errorf("time is %v, want %v", got, testStart.Add(2*time.Second))
	}
}

func TestSignalHandsOverTheToken(t *testing.T) {
	c := NewScaledClock(testStart, 0)
	release := c.Hold()
	sig := c.NewSignal()
	woke := make(chan time.Time, 1)
	c.Go(func() {
		_ = sig.Wait(context.Background())
		woke <- c.Now()
	})
	// A timer due later must not fire between the Fire and the waiter's wake-up.
	c.Go(func() { _ = c.Sleep(context.Background(), time.Hour) })
	waitUntil(t, "the sleeper sleeps", func() bool { return c.timers() == 1 })
	c.Go(func() { sig.Fire() })
	release()
	if got := <-woke; !got.Equal(testStart) {
		t.Errorf("the waiter woke at %v, want %v", got, testStart)
	}
}

func TestCancelledSleepWakesAtTheTimeOfTheCancel(t *testing.T) {
	c := NewScaledClock(testStart, 0)
	ctx, cancel := context.WithCancel(context.Background())
	woke := make(chan error, 1)
	// Time stands still until the alarm is set, else the hour could pass before it.
	release := c.Hold()
	c.Go(func() { woke <- c.Sleep(ctx, time.Hour) })
	c.alarm(testStart.Add(time.Minute), func() { cancel() })
	release()
	if err := <-woke; !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if got := c.Now(); !got.Equal(testStart.Add(time.Minute)) {
		t.Errorf("the sleep ended at %v, want the cancel's time %v", got, testStart.Add(time.Minute))
	}
}

func TestWithTimeoutEndsAtTheVirtualDeadline(t *testing.T) {
	c := NewScaledClock(testStart, 0)
	release := c.Hold()
	ctx, cancel := c.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	err := c.Sleep(ctx, time.Hour)
	release()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v, want DeadlineExceeded", err)
	}
	if got := c.Now(); !got.Equal(testStart.Add(3 * time.Second)) {
		t.Errorf("the sleep ended at %v, want %v", got, testStart.Add(3*time.Second))
	}
}

func TestSleepStopsAtTheVirtualDeadline(t *testing.T) {
	for _, scale := range []float64{0, 0.001} {
		c := NewScaledClock(testStart, scale)
		release := c.Hold()
		deadline := c.Now().Add(5 * time.Second)
		ctx := withVirtualDeadline(context.Background(), deadline)
		err := c.Sleep(ctx, time.Hour)
		if !errors.Is(err, ErrVirtualDeadline) || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("scale %v: got %v, want ErrVirtualDeadline", scale, err)
		}
		if scale == 0 && !c.Now().Equal(deadline) {
			t.Errorf("scale 0: the sleep ended at %v, want the deadline %v", c.Now(), deadline)
		}
		if err := c.Sleep(ctx, 0); !errors.Is(err, ErrVirtualDeadline) {
			t.Errorf("scale %v: sleeping at the deadline: got %v, want ErrVirtualDeadline", scale, err)
		}
		release()
	}
}

func TestSleepWithoutVirtualDeadlineLastsItsLength(t *testing.T) {
	c := NewScaledClock(testStart, 0)
	release := c.Hold()
	defer release()
	ctx, cancel := context.WithCancel(withVirtualDeadline(context.Background(), testStart.Add(time.Second)))
	stripped := WithoutVirtualDeadline(ctx)
	if err := c.Sleep(stripped, 3*time.Second); err != nil {
		t.Errorf("got %v, want the full sleep", err)
	}
	if want := testStart.Add(3 * time.Second); !c.Now().Equal(want) {
		t.Errorf("the sleep ended at %v, want %v", c.Now(), want)
	}
	cancel()
	if err := c.Sleep(stripped, time.Second); !errors.Is(err, context.Canceled) {
		t.Errorf("after the cancel: got %v, want context.Canceled", err)
	}
	if plain := context.Background(); WithoutVirtualDeadline(plain) != plain {
		t.Error("a context without a virtual deadline came back changed")
	}
}

func TestSleepEndsWithItsContext(t *testing.T) {
	c := NewScaledClock(testStart, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

func TestRealDuration(t *testing.T) {
	tests := []struct {
		scale float64
		d     time.Duration
		want  time.Duration
	}{
		{0.01, 15 * time.Second, 150 * time.Millisecond},
		{1, time.Second, time.Second},
		{0.5, -time.Second, 0},
	}
	for _, tt := range tests {
		if got := NewScaledClock(testStart, tt.scale).realDuration(tt.d); got != tt.want {
			t.Errorf("scale %v, %v: got %v, want %v", tt.scale, tt.d, got, tt.want)
		}
	}
}

func TestLatencyDependsOnTheCallNotTheOrder(t *testing.T) {
	a, b := NewLatency(3), NewLatency(3)
	x1 := a.Draw(LatencyDynamoDB, "x")
	y1 := a.Draw(LatencyDynamoDB, "y")
	x2 := a.Draw(LatencyDynamoDB, "x")
	// The other model draws in another order: the same calls get the same latencies.
	if got := b.Draw(LatencyDynamoDB, "y"); got != y1 {
		t.Errorf("y drawn first: %v, drawn second: %v", got, y1)
	}
	if got := b.Draw(LatencyDynamoDB, "x"); got != x1 {
		t.Errorf("first x: %v, want %v", got, x1)
	}
	if got := b.Draw(LatencyDynamoDB, "x"); got != x2 {
		t.Errorf("second x: %v, want %v", got, x2)
	}
	if x1 == x2 {
		t.Errorf("two calls with one key drew the same latency %v", x1)
	}
	for range 1000 {
		if d := a.Draw(LatencyEventDelivery, "e"); d <= 0 || d > 2*time.Second {
			t.Fatalf("an event delivery took %v, outside (0, 2s]", d)
		}
	}
	var none *Latency
	if d := none.Draw(LatencyDynamoDB, "x"); d != 0 {
		t.Errorf("a nil model drew %v, want 0", d)
	}
}
