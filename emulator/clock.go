package emulator

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Clock is the emulator's notion of time, the one time source of the interpreter, the Lambda
// registry, the event bus and the handlers. Timestamps in histories and in the context object,
// Wait states, retry intervals, timeouts and the latency model all use it, and registered Lambda
// handlers sleep on it (with the context they were invoked with) so that their work takes
// virtual time.
//
// A skipping clock (NewScaledClock with scale 0) moves time only when nothing is in flight, so
// every goroutine that works for the emulator holds a busy token: the goroutines started with
// Go hold one until they return, a goroutine gives its token back while it sleeps or waits on a
// Signal and gets one back when it wakes. Whoever hands work over to another goroutine must give
// it a token (Go, Hold, Signal.Fire) before it can go idle itself. A goroutine blocked on
// something outside the clock (a request to the DynamoDB server) keeps its token: it is in
// flight. With a scaled clock (scale > 0) tokens cost nothing and change nothing.
type Clock interface {
	// Now returns the current virtual time.
	Now() time.Time
	// Sleep waits for d of virtual time. It returns early with ctx's error when ctx ends, and
	// with an error wrapping context.DeadlineExceeded when d would pass the virtual deadline of
	// the task ctx belongs to (the sleep then lasts until that deadline). The caller must hold a
	// busy token (see Clock).
	Sleep(ctx context.Context, d time.Duration) error
	// WithTimeout returns a copy of ctx that carries the virtual deadline Now()+d and is
	// cancelled with context.DeadlineExceeded when virtual time reaches it.
	WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc)
	// Go runs f on a new goroutine that holds a busy token until f returns.
	Go(f func())
	// Hold takes a busy token for work in flight outside a goroutine started with Go (an HTTP
	// request into the emulator, a queued notification); release gives it back. Virtual time
	// stands still until it is released.
	Hold() (release func())
	// NewSignal returns a one-shot wake-up that hands a busy token from the goroutine that fires
	// it to the goroutine that waits on it.
	NewSignal() *Signal
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

// ScaledClock is the emulator's Clock. With a scale > 0 virtual time runs at 1/scale of real
// time: with scale 0.01, a virtual second lasts ten real milliseconds; a loaded machine then
// turns real stalls into virtual delays. With scale 0 it skips time, as Temporal's test server
// does: virtual time stands still while any busy token is held (see Clock) and, once everything
// waits, jumps to the earliest due timer. Timers due at the same instant fire one at a time in
// an order drawn from the seed, so a run replays; a run's timings then depend on the latency
// model (Latency) and the work's sleeps only, not on the machine.
type ScaledClock struct {
	scale     float64
	origin    time.Time
	realStart time.Time
	sched     *scheduler // scale 0 only
}

// NewScaledClock returns a clock whose virtual time starts at start (the current real time when
// start is zero) and runs at 1/scale of real time, or skips (scale 0); scale must be >= 0.
// The skipping clock breaks ties between timers with a fixed seed; see NewSkippingClock.
func NewScaledClock(start time.Time, scale float64) *ScaledClock {
	return newClock(start, scale, 0)
}

// NewSkippingClock returns a skipping clock (scale 0) starting at start whose ties between
// timers due at the same instant are broken in an order drawn from seed.
func NewSkippingClock(start time.Time, seed uint64) *ScaledClock {
	return newClock(start, 0, seed)
}

func newClock(start time.Time, scale float64, seed uint64) *ScaledClock {
	now := time.Now()
	if start.IsZero() {
		start = now
	}
	if scale < 0 {
		scale = 0
	}
	c := &ScaledClock{scale: scale, origin: start.UTC(), realStart: now}
	if scale == 0 {
		c.sched = newScheduler(c.origin, seed)
	}
	return c
}

// Scale returns the real duration of one virtual second, in seconds; 0 for a skipping clock.
func (c *ScaledClock) Scale() float64 { return c.scale }

// Now returns the current virtual time.
func (c *ScaledClock) Now() time.Time {
	if c.sched != nil {
		return c.sched.current()
	}
	return c.origin.Add(time.Duration(float64(time.Since(c.realStart)) / c.scale))
}

// realDuration converts a virtual duration into the real duration a timer of a scaled clock
// must wait for it.
func (c *ScaledClock) realDuration(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return time.Duration(float64(d) * c.scale)
}

// Sleep waits for d of virtual time; see Clock.Sleep.
func (c *ScaledClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	hitDeadline := false
	if dl, ok := virtualDeadline(ctx); ok {
		if left := dl.Sub(c.Now()); left <= d {
			d, hitDeadline = left, true
		}
	}
	if d > 0 {
		if c.sched != nil {
			if err := c.sched.sleep(ctx, d); err != nil {
				return err
			}
		} else {
			t := time.NewTimer(c.realDuration(d))
			defer t.Stop()
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-t.C:
			}
		}
	}
	if hitDeadline {
		return deadlineError{}
	}
	return ctx.Err()
}

// WithTimeout returns ctx with the virtual deadline Now()+d; see Clock.WithTimeout. With a
// scaled clock the context also has the real deadline that corresponds (ctx.Deadline), as a
// Lambda handler's context has.
func (c *ScaledClock) WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	dl := c.Now().Add(d)
	if c.sched == nil {
		return context.WithTimeout(withVirtualDeadline(ctx, dl), c.realDuration(d))
	}
	ctx, cancel := context.WithCancelCause(withVirtualDeadline(ctx, dl))
	stop := c.alarm(dl, func() { cancel(context.DeadlineExceeded) })
	return ctx, func() {
		stop()
		cancel(context.Canceled)
	}
}

// Go runs f on a new goroutine holding a busy token until f returns.
func (c *ScaledClock) Go(f func()) {
	release := c.Hold()
	go func() {
		defer release()
		f()
	}()
}

// Hold takes a busy token; see Clock.Hold. Releasing twice is harmless.
func (c *ScaledClock) Hold() (release func()) {
	if c.sched == nil {
		return func() {}
	}
	c.sched.hold()
	var once sync.Once
	return func() { once.Do(c.sched.release) }
}

// NewSignal returns a one-shot wake-up; see Signal.
func (c *ScaledClock) NewSignal() *Signal {
	return &Signal{sched: c.sched, w: &waiter{index: -1, ch: make(chan struct{})}}
}

// interrupt tells a skipping clock that a context some goroutine may be sleeping or waiting on
// was just cancelled: before time moves again, those goroutines are woken and given tokens, so
// that they see the cancellation at the virtual time it happened. The canceller must call it
// while still holding its token.
func (c *ScaledClock) interrupt() {
	if c.sched != nil {
		c.sched.interrupt()
	}
}

// alarm calls f (holding a busy token) once virtual time reaches t; the returned function
// cancels it and reports whether it did so before f was called.
func (c *ScaledClock) alarm(t time.Time, f func()) (stop func() bool) {
	if c.sched != nil {
		return c.sched.alarm(t, f)
	}
	timer := time.AfterFunc(c.realDuration(t.Sub(c.Now())), f)
	return timer.Stop
}

// Signal is a one-shot wake-up between goroutines of the emulator that hands a busy token over:
// Fire, called by a goroutine holding a token, gives one to the goroutine blocked in Wait before
// the firer can go idle, so that a skipping clock cannot jump in between. Fire before Wait makes
// Wait return at once.
type Signal struct {
	sched *scheduler // nil with a scaled clock
	mu    sync.Mutex // guards fired with a scaled clock
	w     *waiter
}

// Fire wakes the waiter (now or when it waits). Later calls do nothing.
func (s *Signal) Fire() {
	if s.sched == nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		if !s.w.fired {
			s.w.fired = true
			close(s.w.ch)
		}
		return
	}
	s.sched.fire(s.w)
}

// Wait blocks until Fire or until ctx ends (then it returns ctx's error). The caller must hold a
// busy token; it gives it back while blocked and holds one again when Wait returns. Wait may be
// called once.
func (s *Signal) Wait(ctx context.Context) error {
	if s.sched == nil {
		select {
		case <-s.w.ch:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return s.sched.wait(ctx, s.w)
}

type virtualDeadlineKey struct{}

// withVirtualDeadline returns ctx carrying the virtual deadline t, unless it already carries an
// earlier one.
func withVirtualDeadline(ctx context.Context, t time.Time) context.Context {
	if old, ok := virtualDeadline(ctx); ok && !t.Before(old) {
		return ctx
	}
	return context.WithValue(ctx, virtualDeadlineKey{}, t)
}

// WithoutVirtualDeadline returns ctx without the virtual deadline it may carry (see
// Clock.WithTimeout), still cancelled when ctx is: a sleep on it lasts its full length unless ctx
// ends first. A server that serves a client's request in process sleeps on it, as it would on
// the context of the client's connection.
func WithoutVirtualDeadline(ctx context.Context) context.Context {
	if _, ok := virtualDeadline(ctx); !ok {
		return ctx
	}
	return context.WithValue(ctx, virtualDeadlineKey{}, nil)
}

func virtualDeadline(ctx context.Context) (time.Time, bool) {
	t, ok := ctx.Value(virtualDeadlineKey{}).(time.Time)
	return t, ok
}
