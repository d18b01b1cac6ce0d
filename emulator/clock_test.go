package emulator

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestScaledClockAtScaleZero(t *testing.T) {
	c := NewScaledClock(testStart, 0)
	tl := c.newTimeline()
	ctx := tl.with(context.Background())
	start := tl.now()
	if err := c.Sleep(ctx, time.Hour); err != nil {
		t.Fatal(err)
	}
	if got := tl.now().Sub(start); got != time.Hour {
		t.Errorf("after sleeping an hour: %v passed, want 1h", got)
	}
	at := <-c.After(ctx, time.Minute)
	if want := start.Add(time.Hour + time.Minute); !at.Equal(want) || !tl.now().Equal(want) {
		t.Errorf("After: got %v (timeline at %v), want %v", at, tl.now(), want)
	}
	branch := tl.fork()
	if err := branch.sleep(context.Background(), 10*time.Minute); err != nil {
		t.Fatal(err)
	}
	tl.join(branch.now())
	if got := tl.now().Sub(start); got != time.Hour+11*time.Minute {
		t.Errorf("after joining a branch that slept 10 min: %v passed, want 1h11m", got)
	}
}

func TestSleepStopsAtTheVirtualDeadline(t *testing.T) {
	for _, scale := range []float64{0, 0.001} {
		c := NewScaledClock(testStart, scale)
		tl := c.newTimeline()
		deadline := tl.now().Add(5 * time.Second)
		ctx := withVirtualDeadline(tl.with(context.Background()), deadline)
		err := c.Sleep(ctx, time.Hour)
		if !errors.Is(err, ErrVirtualDeadline) || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("scale %v: got %v, want ErrVirtualDeadline", scale, err)
		}
		if scale == 0 && !tl.now().Equal(deadline) {
			t.Errorf("scale 0: the sleep ended at %v, want the deadline %v", tl.now(), deadline)
		}
		if err := c.Sleep(ctx, 0); !errors.Is(err, ErrVirtualDeadline) {
			t.Errorf("scale %v: sleeping at the deadline: got %v, want ErrVirtualDeadline", scale, err)
		}
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
		{0, time.Second, time.Second},
		{0.5, -time.Second, 0},
	}
	for _, tt := range tests {
		if got := NewScaledClock(testStart, tt.scale).realDuration(tt.d); got != tt.want {
			t.Errorf("scale %v, %v: got %v, want %v", tt.scale, tt.d, got, tt.want)
		}
	}
}
