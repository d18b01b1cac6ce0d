package emulator

import (
	"container/heap"
	"context"
	"math/rand/v2"
	"sync"
	"time"
)

// scheduler is the engine of a skipping clock: a count of busy tokens and a heap of timers.
// Virtual time moves only when no token is held; it then jumps to the earliest timer and fires
// that one timer alone (its goroutine gets a token), so that whatever it wakes runs before the
// next timer fires, even one due at the same instant.
type scheduler struct {
	mu     sync.Mutex
	now    time.Time
	busy   int
	timers timerHeap
	rng    *rand.Rand // draws the order of timers due at the same instant
	seq    uint64
	// blocked are the waiters (sleeping or waiting on a Signal) whose context can end.
	blocked map[*waiter]struct{}
	// interrupted says a context was cancelled since the blocked waiters were last checked.
	interrupted bool
}

// waiter is a goroutine blocked on the clock (a sleep or a Signal) or an alarm's callback.
type waiter struct {
	when  time.Time
	tie   uint64
	seq   uint64
	index int // in the timer heap; -1 when not in it
	ch    chan struct{}
	fn    func()          // an alarm's callback; nil for a goroutine
	ctx   context.Context // ends the wait early; nil when it cannot end

	waiting bool // a Signal's waiter is blocked in Wait
	fired   bool // a Signal was fired
	granted bool // a token was given to the waiter (or the alarm was stopped)
}

func newScheduler(start time.Time, seed uint64) *scheduler {
	return &scheduler{now: start, rng: rand.New(rand.NewPCG(seed, 0x636c6f636b)), blocked: map[*waiter]struct{}{}}
}

func (s *scheduler) current() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.now
}

func (s *scheduler) hold() {
	s.mu.Lock()
	s.busy++
	s.mu.Unlock()
}

func (s *scheduler) release() {
	s.mu.Lock()
	s.busy--
	s.advanceLocked()
	s.mu.Unlock()
}

func (s *scheduler) interrupt() {
	s.mu.Lock()
	s.interrupted = true
	s.mu.Unlock()
}

// pushLocked adds a timer due at w.when.
func (s *scheduler) pushLocked(w *waiter) {
	s.seq++
	w.seq, w.tie = s.seq, s.rng.Uint64()
	heap.Push(&s.timers, w)
}

// blockLocked gives the caller's token back while w waits, then lets time move if all is idle.
func (s *scheduler) blockLocked(ctx context.Context, w *waiter) {
	if ctx.Done() != nil {
		w.ctx = ctx
		s.blocked[w] = struct{}{}
	}
	s.busy--
	s.advanceLocked()
}

// grantLocked gives w a token and wakes it: its goroutine resumes, or its callback runs.
func (s *scheduler) grantLocked(w *waiter) {
	w.granted = true
	if w.index >= 0 {
		heap.Remove(&s.timers, w.index)
	}
	delete(s.blocked, w)
	s.busy++
	if w.fn != nil {
		go func() {
			w.fn()
			s.mu.Lock()
			s.interrupted = true // alarms cancel contexts: timeouts, heartbeats
			s.busy--
			s.advanceLocked()
			s.mu.Unlock()
		}()
		return
	}
	close(w.ch)
}

// advanceLocked moves time when no token is held: it first wakes the waiters whose context was
// cancelled, else fires the earliest timer.
func (s *scheduler) advanceLocked() {
	if s.busy < 0 {
		panic("emulator: skipping clock: a busy token was released twice (a Sleep or Signal.Wait outside a goroutine holding one)")
	}
	if s.busy > 0 {
		return
	}
	if s.interrupted {
		s.interrupted = false
		woke := false
		for w := range s.blocked {
			if w.ctx.Err() != nil {
				s.grantLocked(w)
				woke = true
			}
		}
		if woke {
			return
		}
	}
	if len(s.timers) == 0 {
		return
	}
	w := s.timers[0]
	if w.when.After(s.now) {
		s.now = w.when
	}
	s.grantLocked(w)
}

// sleep blocks the calling goroutine, which holds a token, for d of virtual time.
func (s *scheduler) sleep(ctx context.Context, d time.Duration) error {
	w := &waiter{index: -1, ch: make(chan struct{})}
	s.mu.Lock()
	w.when = s.now.Add(d)
	s.pushLocked(w)
	s.blockLocked(ctx, w)
	s.mu.Unlock()
	select {
	case <-w.ch:
	case <-ctx.Done():
		s.reclaim(w)
	}
	return ctx.Err()
}

// reclaim takes a token back for a waiter whose context ended before it was woken.
func (s *scheduler) reclaim(w *waiter) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if w.granted {
		return
	}
	w.granted = true
	if w.index >= 0 {
		heap.Remove(&s.timers, w.index)
	}
	delete(s.blocked, w)
	s.busy++
}

// alarm schedules f at t; see ScaledClock.alarm.
func (s *scheduler) alarm(t time.Time, f func()) func() bool {
	w := &waiter{when: t, fn: f, index: -1}
	s.mu.Lock()
	s.pushLocked(w)
	s.mu.Unlock()
	return func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		if w.granted {
			return false
		}
		w.granted = true
		heap.Remove(&s.timers, w.index)
		return true
	}
}

// fire fires a Signal: its waiter, if blocked, gets a token now.
func (s *scheduler) fire(w *waiter) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if w.fired {
		return
	}
	w.fired = true
	if w.waiting && !w.granted {
		s.grantLocked(w)
	}
}

// wait blocks the calling goroutine, which holds a token, until the Signal fires or ctx ends.
func (s *scheduler) wait(ctx context.Context, w *waiter) error {
	s.mu.Lock()
	if w.fired {
		s.mu.Unlock()
		return nil
	}
	w.waiting = true
	s.blockLocked(ctx, w)
	s.mu.Unlock()
	select {
	case <-w.ch:
	case <-ctx.Done():
		s.reclaim(w)
	}
	s.mu.Lock()
	fired := w.fired
	s.mu.Unlock()
	if fired {
		return nil
	}
	return ctx.Err()
}

// timerHeap orders timers by due time, then by the seeded tie-breaker.
type timerHeap []*waiter

func (h timerHeap) Len() int { return len(h) }

func (h timerHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	if !a.when.Equal(b.when) {
		return a.when.Before(b.when)
	}
	if a.tie != b.tie {
		return a.tie < b.tie
	}
	return a.seq < b.seq
}

func (h timerHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}

func (h *timerHeap) Push(x any) {
	w := x.(*waiter)
	w.index = len(*h)
	*h = append(*h, w)
}

func (h *timerHeap) Pop() any {
	old := *h
	w := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	w.index = -1
	return w
}
