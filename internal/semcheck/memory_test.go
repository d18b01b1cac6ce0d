package semcheck_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/internal/semcheck"
)

// memorySemaphore is an in-memory counting semaphore; with checkLimit false it is deliberately
// broken: it admits every acquire.
type memorySemaphore struct {
	limit      int
	checkLimit bool
	holders    map[string]bool
}

func (s *memorySemaphore) acquire(holder string) semcheck.Outcome {
	if !s.holders[holder] && s.checkLimit && len(s.holders) >= s.limit {
		return semcheck.Full
	}
	s.holders[holder] = true
	return semcheck.Acquired
}

func (s *memorySemaphore) release(holder string) semcheck.Outcome {
	if !s.holders[holder] {
		return semcheck.NotHeld
	}
	delete(s.holders, holder)
	return semcheck.Released
}

// simulate runs clients that acquire and release in a seeded random interleaving, each call
// returning before the next begins, and returns the recorded history.
func simulate(s *memorySemaphore, seed uint64, clients, steps int) *semcheck.Recorder {
	random := rand.New(rand.NewPCG(seed, seed))
	recorder := semcheck.NewRecorder()
	held := make([]bool, clients)
	for range steps {
		c := random.IntN(clients)
		holder := fmt.Sprintf("client-%d", c)
		if held[c] {
			call := recorder.Begin(c, semcheck.Release(holder))
			call.End(s.release(holder))
			held[c] = false
			continue
		}
		call := recorder.Begin(c, semcheck.Acquire(holder))
		out := s.acquire(holder)
		call.End(out)
		held[c] = out == semcheck.Acquired
	}
	return recorder
}

func TestModelCheckOfInMemorySemaphores(t *testing.T) {
	tests := []struct {
		name       string
		checkLimit bool
		want       error
	}{
		{"correct", true, nil},
		{"broken: no limit", false, semcheck.ErrNotLinearizable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const limit = 2
			s := &memorySemaphore{limit: limit, checkLimit: tt.checkLimit, holders: map[string]bool{}}
			history := simulate(s, 1, 6, 300).Operations()
			got := semcheck.Check(limit, history, 10*time.Second)
			if !errors.Is(got, tt.want) || (tt.want == nil && got != nil) {
				t.Errorf("Check() = %v, want %v", got, tt.want)
			}
		})
	}
}
