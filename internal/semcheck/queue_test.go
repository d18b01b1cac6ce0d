package semcheck_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/turnstile-sfn/turnstile/internal/semcheck"
)

// qop is one operation of a hand-written queue history.
func qop(client int, in semcheck.QueueInput, call int64, out any, ret int64) porcupine.Operation {
	return porcupine.Operation{ClientId: client, Input: in, Call: call, Output: out, Return: ret}
}

var (
	admitted = semcheck.QueueOutput{Outcome: semcheck.Admitted}
	queued   = semcheck.QueueOutput{Outcome: semcheck.Queued}
	back     = semcheck.QueueOutput{Outcome: semcheck.GaveUp}
	nothing  = semcheck.QueueOutput{Outcome: semcheck.NothingHeld}
	done     = semcheck.QueueOutput{Outcome: semcheck.Done}
)

func handedTo(ws ...string) semcheck.QueueOutput {
	return semcheck.QueueOutput{Outcome: semcheck.GaveUp, HandedTo: ws}
}

func TestCheckQueue(t *testing.T) {
	tests := []struct {
		name    string
		history []porcupine.Operation
		want    error
	}{
		{
			name: "a release hands the slot to the oldest waiter",
			history: []porcupine.Operation{
				qop(0, semcheck.Park("a", 1), 1, admitted, 2),
				qop(1, semcheck.Park("b", 2), 3, queued, 4),
				qop(2, semcheck.Park("c", 3), 5, queued, 6),
				qop(0, semcheck.ReleaseSlot("a"), 7, handedTo("b"), 8),
				qop(1, semcheck.ReleaseSlot("b"), 9, handedTo("c"), 10),
				qop(2, semcheck.ReleaseSlot("c"), 11, back, 12),
				qop(3, semcheck.Settled(nil, nil), 13, done, 14),
			},
		},
		{
			name: "a release hands the slot to the newest waiter",
			history: []porcupine.Operation{
				qop(0, semcheck.Park("a", 1), 1, admitted, 2),
				qop(1, semcheck.Park("b", 2), 3, queued, 4),
				qop(2, semcheck.Park("c", 3), 5, queued, 6),
				qop(0, semcheck.ReleaseSlot("a"), 7, handedTo("c"), 8),
			},
			want: semcheck.ErrQueueNotLinearizable,
		},
		{
			name: "a newcomer takes the slot freed while a waiter waits",
			history: []porcupine.Operation{
				qop(0, semcheck.Park("a", 1), 1, admitted, 2),
				qop(1, semcheck.Park("b", 2), 3, queued, 4),
				qop(0, semcheck.ReleaseSlot("a"), 5, back, 6),
				qop(2, semcheck.Park("c", 3), 7, admitted, 8),
			},
			want: semcheck.ErrQueueNotLinearizable,
		},
		{
			name: "a slot freed with nobody waiting, then a waiter admitted to it by its wake-up",
			history: []porcupine.Operation{
				qop(0, semcheck.Park("a", 1), 1, admitted, 2),
				qop(1, semcheck.Park("b", 2), 3, queued, 6),
				qop(0, semcheck.ReleaseSlot("a"), 4, back, 5),
				qop(1, semcheck.Admit("b"), 3, done, 7),
				qop(3, semcheck.Settled([]string{"b"}, nil), 8, done, 9),
			},
		},
		{
			name: "a waiter admitted past an older one",
			history: []porcupine.Operation{
				qop(0, semcheck.Park("a", 1), 1, admitted, 2),
				qop(1, semcheck.Park("b", 2), 3, queued, 4),
				qop(2, semcheck.Park("c", 3), 5, queued, 6),
				qop(0, semcheck.ReleaseSlot("a"), 7, back, 8),
			},
			want: semcheck.ErrQueueNotLinearizable,
		},
		{
			name: "a park of unknown outcome that queued, left by its execution",
			history: []porcupine.Operation{
				qop(0, semcheck.Park("a", 1), 1, admitted, 2),
				qop(1, semcheck.Park("b", 2), 3, semcheck.Unknown, 4),
				qop(2, semcheck.Park("c", 3), 5, queued, 6),
				qop(0, semcheck.ReleaseSlot("a"), 7, handedTo("b"), 8),
				qop(1, semcheck.ReleaseSlot("b"), 9, handedTo("c"), 10),
				qop(2, semcheck.Leave("c"), 11, handedTo(), 12),
				qop(3, semcheck.Settled(nil, nil), 13, done, 14),
			},
		},
		{
			name: "a slot left behind: the settled state disagrees",
			history: []porcupine.Operation{
				qop(0, semcheck.Park("a", 1), 1, admitted, 2),
				qop(0, semcheck.ReleaseSlot("a"), 3, nothing, 4),
			},
			want: semcheck.ErrQueueNotLinearizable,
		},
		{
			name: "over the limit",
			history: []porcupine.Operation{
				qop(0, semcheck.Park("a", 1), 1, admitted, 2),
				qop(1, semcheck.Park("b", 2), 3, admitted, 4),
			},
			want: semcheck.ErrQueueNotLinearizable,
		},
		{
			name: "a waiter still waiting when the lock settles",
			history: []porcupine.Operation{
				qop(0, semcheck.Park("a", 1), 1, admitted, 2),
				qop(1, semcheck.Park("b", 2), 3, queued, 4),
				qop(3, semcheck.Settled([]string{"a"}, nil), 5, done, 6),
			},
			want: semcheck.ErrQueueNotLinearizable,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := semcheck.CheckQueue(1, nil, nil, tt.history, 10*time.Second)
			if !errors.Is(got, tt.want) || (tt.want == nil && got != nil) {
				t.Errorf("CheckQueue() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestOutOfOrder(t *testing.T) {
	fifo := []porcupine.Operation{
		qop(0, semcheck.Park("a", 1), 1, admitted, 2),
		qop(1, semcheck.Park("b", 2), 3, queued, 4),
		qop(2, semcheck.Park("c", 3), 5, queued, 6),
		qop(0, semcheck.ReleaseSlot("a"), 7, handedTo("b"), 8),
		qop(1, semcheck.ReleaseSlot("b"), 9, handedTo("c"), 10),
	}
	overtaken := []porcupine.Operation{
		qop(0, semcheck.Park("a", 1), 1, admitted, 2),
		qop(1, semcheck.Park("b", 2), 3, queued, 4),
		qop(2, semcheck.Park("c", 3), 5, queued, 6),
		qop(0, semcheck.ReleaseSlot("a"), 7, handedTo("c"), 8),
		qop(2, semcheck.ReleaseSlot("c"), 9, handedTo("b"), 10),
	}
	concurrent := []porcupine.Operation{
		qop(0, semcheck.Park("a", 1), 1, admitted, 2),
		qop(1, semcheck.Park("b", 2), 3, queued, 6),
		qop(2, semcheck.Park("c", 3), 4, admitted, 5), // b's ticket is older, but its park was still running
	}
	// a's release whose reply was lost may have handed b the slot before e's went to c.
	lostReply := []porcupine.Operation{
		qop(0, semcheck.Park("a", 1), 1, admitted, 2),
		qop(3, semcheck.Park("e", 2), 1, admitted, 2),
		qop(1, semcheck.Park("b", 3), 3, queued, 4),
		qop(2, semcheck.Park("c", 4), 5, queued, 6),
		{ClientId: 0, Input: semcheck.ReleaseSlot("a"), Call: 7, Output: semcheck.Unknown, Return: 8},
		qop(3, semcheck.ReleaseSlot("e"), 9, handedTo("c"), 10),
	}
	// The same, but the lost reply's operation ended before b parked: it cannot explain it.
	lostBefore := []porcupine.Operation{
		qop(0, semcheck.Park("a", 1), 1, admitted, 2),
		qop(3, semcheck.Park("e", 2), 1, admitted, 2),
		{ClientId: 4, Input: semcheck.Leave("x"), Call: 2, Output: semcheck.Unknown, Return: 3},
		qop(1, semcheck.Park("b", 3), 4, queued, 5),
		qop(2, semcheck.Park("c", 4), 5, queued, 6),
		qop(3, semcheck.ReleaseSlot("e"), 9, handedTo("c"), 10),
	}
	for name, tt := range map[string]struct {
		history []porcupine.Operation
		want    int
	}{"fifo": {fifo, 0}, "overtaken": {overtaken, 1}, "concurrent": {concurrent, 0}, "lost reply": {lostReply, 0}, "lost reply, earlier": {lostBefore, 1}} {
		if got := semcheck.OutOfOrder(tt.history); got != tt.want {
			t.Errorf("%s: OutOfOrder() = %d, want %d", name, got, tt.want)
		}
	}
}

// memoryQueue is an in-memory FIFO counting semaphore; with newestFirst it is deliberately
// broken: a release hands its slot to the newest waiter.
type memoryQueue struct {
	limit       int
	newestFirst bool
	holders     []string
	waiters     []semcheck.QueueWaiter // in ticket order
}

func (q *memoryQueue) park(e string, ticket int64) semcheck.QueueOutput {
	switch {
	case slices.Contains(q.holders, e):
		return admitted
	case len(q.holders) < q.limit && len(q.waiters) == 0:
		q.holders = append(q.holders, e)
		return admitted
	}
	q.waiters = append(q.waiters, semcheck.QueueWaiter{Ticket: ticket, Execution: e})
	return queued
}

func (q *memoryQueue) release(e string) semcheck.QueueOutput {
	i := slices.Index(q.holders, e)
	if i < 0 {
		return nothing
	}
	q.holders = slices.Delete(q.holders, i, i+1)
	if len(q.waiters) == 0 {
		return back
	}
	next := 0
	if q.newestFirst {
		next = len(q.waiters) - 1
	}
	w := q.waiters[next].Execution
	q.waiters = slices.Delete(q.waiters, next, next+1)
	q.holders = append(q.holders, w)
	return handedTo(w)
}

func (q *memoryQueue) leave(e string) semcheck.QueueOutput {
	if i := slices.IndexFunc(q.waiters, func(w semcheck.QueueWaiter) bool { return w.Execution == e }); i >= 0 {
		q.waiters = slices.Delete(q.waiters, i, i+1)
		return nothing
	}
	return q.release(e)
}

// simulateQueue runs executions that park, then release or leave, in a seeded random order,
// and returns the history, closed by the settled state.
func simulateQueue(q *memoryQueue, seed uint64, steps int) []porcupine.Operation {
	random := rand.New(rand.NewPCG(seed, seed))
	recorder := semcheck.NewRecorder()
	var ticket int64
	var live []string // parked, not yet released or left
	for step := range steps {
		if len(live) == 0 || (len(live) < 8 && random.IntN(2) == 0) {
			ticket++
			e := fmt.Sprintf("e%d", step)
			recorder.Begin(step, semcheck.Park(e, ticket)).End(q.park(e, ticket))
			live = append(live, e)
			continue
		}
		i := random.IntN(len(live))
		e := live[i]
		live = slices.Delete(live, i, i+1)
		if slices.Contains(q.holders, e) {
			recorder.Begin(step, semcheck.ReleaseSlot(e)).End(q.release(e))
		} else {
			recorder.Begin(step, semcheck.Leave(e)).End(q.leave(e))
		}
	}
	recorder.Begin(steps, semcheck.Settled(q.holders, q.waiters)).End(done)
	return recorder.Operations()
}

func TestQueueModelCheckOfInMemoryQueues(t *testing.T) {
	tests := []struct {
		name           string
		newestFirst    bool
		want           error
		wantOutOfOrder bool
	}{
		{"fifo", false, nil, false},
		{"broken: hands the slot to the newest waiter", true, semcheck.ErrQueueNotLinearizable, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const limit = 2
			q := &memoryQueue{limit: limit, newestFirst: tt.newestFirst}
			history := simulateQueue(q, 1, 300)
			got := semcheck.CheckQueue(limit, nil, nil, history, 10*time.Second)
			if !errors.Is(got, tt.want) || (tt.want == nil && got != nil) {
				t.Errorf("CheckQueue() = %v, want %v", got, tt.want)
			}
			if n := semcheck.OutOfOrder(history); (n > 0) != tt.wantOutOfOrder {
				t.Errorf("OutOfOrder() = %d, want some: %v", n, tt.wantOutOfOrder)
			}
		})
	}
}

// TestCheckQueueWithWeights: limit 4; a (3) holds, b (3) and c (1) queue. a's release to b
// and c's admission then are linearizable, and so is a's release back to the lock with b and c
// admitted after it; c admitted while b waits is not (c overtook the head of the line), nor a
// 2-weight d admitted beside a (5 > 4).
func TestCheckQueueWithWeights(t *testing.T) {
	weights := map[string]int{"a": 3, "b": 3, "c": 1, "d": 2}
	weight := semcheck.WithWeights(func(e string) int { return weights[e] })
	start := []porcupine.Operation{
		qop(0, semcheck.ParkWeighted("a", 1, 3), 1, admitted, 2),
		qop(1, semcheck.ParkWeighted("b", 2, 3), 3, queued, 4),
		qop(2, semcheck.ParkWeighted("c", 3, 1), 5, queued, 6),
	}
	for _, tt := range []struct {
		name string
		rest []porcupine.Operation
		want error
	}{
		{"head first, then the light one", []porcupine.Operation{
			qop(0, semcheck.ReleaseSlot("a"), 7, handedTo("b"), 8),
			qop(2, semcheck.Admit("c"), 9, done, 10),
		}, nil},
		{"the light one overtakes the head", []porcupine.Operation{
			qop(2, semcheck.Admit("c"), 7, done, 8),
		}, semcheck.ErrQueueNotLinearizable},
		{"given back, then the head admitted", []porcupine.Operation{
			qop(0, semcheck.ReleaseSlot("a"), 7, back, 8),
			qop(1, semcheck.Admit("b"), 9, done, 10),
			qop(2, semcheck.Admit("c"), 11, done, 12),
		}, nil},
		{"given back, then the light one admitted first", []porcupine.Operation{
			qop(0, semcheck.ReleaseSlot("a"), 7, back, 8),
			qop(2, semcheck.Admit("c"), 9, done, 10),
		}, semcheck.ErrQueueNotLinearizable},
	} {
		t.Run(tt.name, func(t *testing.T) {
			history := append(slices.Clone(start), tt.rest...)
			if got := semcheck.CheckQueue(4, nil, nil, history, 10*time.Second, weight); !errors.Is(got, tt.want) || (tt.want == nil && got != nil) {
				t.Errorf("CheckQueue() = %v, want %v", got, tt.want)
			}
		})
	}
	// d (2) holds beside a (3) only if the limit is 5; with 4 its park cannot be admitted.
	over := []porcupine.Operation{
		qop(0, semcheck.ParkWeighted("a", 1, 3), 1, admitted, 2),
		qop(3, semcheck.ParkWeighted("d", 2, 2), 3, admitted, 4),
	}
	if got := semcheck.CheckQueue(4, nil, nil, over, 10*time.Second, weight); !errors.Is(got, semcheck.ErrQueueNotLinearizable) {
		t.Errorf("5 of 4 held: CheckQueue() = %v, want not linearizable", got)
	}
	if got := semcheck.CheckQueue(5, nil, nil, over, 10*time.Second, weight); got != nil {
		t.Errorf("5 of 5 held: CheckQueue() = %v, want nil", got)
	}
}
