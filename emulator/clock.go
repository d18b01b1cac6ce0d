package emulator

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Clock is the emulator's notion of time. Timestamps in histories and in the context object,
// Wait states, retry intervals and timeouts all use it, and registered Lambda handlers should
// sleep on it (with the context they were invoked with) so that their work takes virtual time.
type Clock interface {
	// Now returns the current virtual time.
	Now() time.Time
	// Sleep waits for d of virtual time. It returns early with ctx's error when ctx ends, and
	// with an error wrapping context.DeadlineExceeded when d would pass the virtual deadline of
	// the task ctx belongs to (the sleep then lasts until that deadline).
	Sleep(ctx context.Context, d time.Duration) error
	// After returns a channel that receives the virtual time once d of virtual time has passed.
	After(ctx context.Context, d time.Duration) <-chan time.Time
}

// ErrVirtualDeadline is wrapped by the error Clock.Sleep returns when a sleep would pass the
// virtual deadline of the task (or execution) its context belongs to. It also wraps
// context.DeadlineExceeded.
var ErrVirtualDeadline = errors.New("emulator: virtual deadline exceeded")

// deadlineError is what Sleep returns at a virtual deadline: errors.Is matches both
// ErrVirtualDeadline and context.DeadlineExceeded.
type deadlineError struct{}

// Error describes the deadline.
func (deadlineError) Error() string { return ErrVirtualDeadline.Error() }

// Is matches ErrVirtualDeadline and context.DeadlineExceeded.
func (deadlineError) Is(target error) bool {
	return target == ErrVirtualDeadline || target == context.DeadlineExceeded
}

// ScaledClock runs virtual time at 1/scale of real time: with scale 0.01, a virtual second lasts
// ten real milliseconds. With scale 0 sleeps take no real time at all: each execution then has
// its own virtual time, which starts at the clock's time when the execution starts and advances
// by exactly what the execution sleeps (Wait states, retry intervals, handlers sleeping on the
// clock), so that its timestamps are reproducible and a Wait of an hour is an hour in its history
// but costs nothing.
//
// At scale 0 a timeout waiting for something outside the execution (a task token, a heartbeat, a
// child execution, a handler doing real work) expires after that much real time.
type ScaledClock struct {
	scale     float64
	origin    time.Time
	realStart time.Time
}

// NewScaledClock returns a clock whose virtual time starts at start (the current real time when
// start is zero) and runs at 1/scale of real time; scale must be >= 0.
func NewScaledClock(start time.Time, scale float64) *ScaledClock {
	now := time.Now()
	if start.IsZero() {
		start = now
	}
	if scale < 0 {
		scale = 0
	}
	return &ScaledClock{scale: scale, origin: start.UTC(), realStart: now}
}

// Scale returns the real duration of one virtual second, in seconds.
func (c *ScaledClock) Scale() float64 { return c.scale }

// Now returns the current virtual time outside any execution; at scale 0 it advances at the real
// rate.
func (c *ScaledClock) Now() time.Time { return c.at(time.Now()) }

// at converts a real instant into virtual time.
func (c *ScaledClock) at(real time.Time) time.Time {
	elapsed := real.Sub(c.realStart)
	if c.scale > 0 {
		elapsed = time.Duration(float64(elapsed) / c.scale)
	}
	return c.origin.Add(elapsed)
}

// realDuration converts a virtual duration into the real duration a timer must wait for it. At
// scale 0 that is the virtual duration itself: only sleeps are free.
func (c *ScaledClock) realDuration(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	if c.scale > 0 {
		return time.Duration(float64(d) * c.scale)
	}
	return d
}

// Sleep waits for d of virtual time on the timeline ctx belongs to; see Clock.Sleep.
func (c *ScaledClock) Sleep(ctx context.Context, d time.Duration) error {
	return c.timelineOf(ctx).sleep(ctx, d)
}

// After returns a channel that receives the virtual time once d has passed on ctx's timeline.
func (c *ScaledClock) After(ctx context.Context, d time.Duration) <-chan time.Time {
	tl := c.timelineOf(ctx)
	ch := make(chan time.Time, 1)
	if c.scale == 0 {
		tl.advance(d)
		ch <- tl.now()
		return ch
	}
	time.AfterFunc(c.realDuration(d), func() { ch <- tl.now() })
	return ch
}

// timelineOf returns the timeline carried by ctx, or a fresh one starting now.
func (c *ScaledClock) timelineOf(ctx context.Context) *timeline {
	if tl, ok := ctx.Value(timelineKey{}).(*timeline); ok && tl.clock == c {
		return tl
	}
	return c.newTimeline()
}

// timeline is the virtual time of one sequential flow of an execution: the main path, a Parallel
// branch or a Map iteration. At scale > 0 it is the clock itself. At scale 0 it is the time the
// flow began plus the durations it slept.
type timeline struct {
	clock *ScaledClock

	mu       sync.Mutex
	base     time.Time // virtual time when the timeline began
	advanced time.Duration
}

type timelineKey struct{}

type virtualDeadlineKey struct{}

func (c *ScaledClock) newTimeline() *timeline {
	return &timeline{clock: c, base: c.Now()}
}

// fork starts a timeline for a branch at this timeline's current time.
func (tl *timeline) fork() *timeline {
	if tl.clock.scale > 0 {
		return tl
	}
	return &timeline{clock: tl.clock, base: tl.now()}
}

// join moves this timeline forward to t when t is later, as after the branches of a Parallel or
// Map state.
func (tl *timeline) join(t time.Time) {
	if tl.clock.scale > 0 {
		return
	}
	if d := t.Sub(tl.now()); d > 0 {
		tl.advance(d)
	}
}

func (tl *timeline) now() time.Time {
	if tl.clock.scale > 0 {
		return tl.clock.Now()
	}
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return tl.base.Add(tl.advanced)
}

func (tl *timeline) advance(d time.Duration) {
	if d <= 0 {
		return
	}
	tl.mu.Lock()
	tl.advanced += d
	tl.mu.Unlock()
}

// with returns ctx carrying this timeline.
func (tl *timeline) with(ctx context.Context) context.Context {
	return context.WithValue(ctx, timelineKey{}, tl)
}

// withVirtualDeadline returns ctx carrying the virtual deadline t, unless it already carries an
// earlier one.
func withVirtualDeadline(ctx context.Context, t time.Time) context.Context {
	if old, ok := virtualDeadline(ctx); ok && !t.Before(old) {
		return ctx
	}
	return context.WithValue(ctx, virtualDeadlineKey{}, t)
}

func virtualDeadline(ctx context.Context) (time.Time, bool) {
	t, ok := ctx.Value(virtualDeadlineKey{}).(time.Time)
	return t, ok
}

// sleep waits for d of virtual time, stopping at ctx's virtual deadline or when ctx ends.
func (tl *timeline) sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	hitDeadline := false
	if dl, ok := virtualDeadline(ctx); ok {
		if left := dl.Sub(tl.now()); left <= d {
			d, hitDeadline = left, true
		}
	}
	if tl.clock.scale == 0 {
		tl.advance(d)
	} else if d > 0 {
		t := time.NewTimer(tl.clock.realDuration(d))
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	if hitDeadline {
		return deadlineError{}
	}
	return ctx.Err()
}

// alarm calls f once the timeline reaches the virtual time t; the returned function cancels it.
func (tl *timeline) alarm(t time.Time, f func()) (stop func() bool) {
	timer := time.AfterFunc(tl.clock.realDuration(t.Sub(tl.now())), f)
	return timer.Stop
}
