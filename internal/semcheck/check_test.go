package semcheck_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/turnstile-sfn/turnstile/internal/semcheck"
)

// never is the return time of an operation whose outcome is unknown.
const never = math.MaxInt64

// op is one operation of a hand-written history.
func op(client int, in semcheck.Input, call int64, out semcheck.Outcome, ret int64) porcupine.Operation {
	return porcupine.Operation{ClientId: client, Input: in, Call: call, Output: out, Return: ret}
}

var (
	acquireA, releaseA = semcheck.Acquire("a"), semcheck.Release("a")
	acquireB, releaseB = semcheck.Acquire("b"), semcheck.Release("b")
	acquireC           = semcheck.Acquire("c")
)

func TestCheck(t *testing.T) {
	tests := []struct {
		name    string
		limit   int
		history []porcupine.Operation
		want    error
	}{
		{
			name:  "sequential acquires up to the limit, then full, then a release frees a slot",
			limit: 2,
			history: []porcupine.Operation{
				op(0, acquireA, 1, semcheck.Acquired, 2),
				op(1, acquireB, 3, semcheck.Acquired, 4),
				op(2, acquireC, 5, semcheck.Full, 6),
				op(0, releaseA, 7, semcheck.Released, 8),
				op(2, acquireC, 9, semcheck.Acquired, 10),
			},
		},
		{
			name:  "concurrent acquires race for the last slot",
			limit: 1,
			history: []porcupine.Operation{
				op(0, acquireA, 1, semcheck.Full, 4),
				op(1, acquireB, 2, semcheck.Acquired, 3),
			},
		},
		{
			name:  "an acquire read back as held is acquired again",
			limit: 1,
			history: []porcupine.Operation{
				op(0, acquireA, 1, semcheck.Acquired, 2),
				op(0, acquireA, 3, semcheck.Acquired, 4),
				op(0, releaseA, 5, semcheck.Released, 6),
				op(0, releaseA, 7, semcheck.NotHeld, 8),
			},
		},
		{
			name:  "over-admission",
			limit: 2,
			history: []porcupine.Operation{
				op(0, acquireA, 1, semcheck.Acquired, 2),
				op(1, acquireB, 3, semcheck.Acquired, 4),
				op(2, acquireC, 5, semcheck.Acquired, 6),
			},
			want: semcheck.ErrNotLinearizable,
		},
		{
			name:  "full with a free slot",
			limit: 2,
			history: []porcupine.Operation{
				op(0, acquireA, 1, semcheck.Acquired, 2),
				op(1, acquireB, 3, semcheck.Full, 4),
			},
			want: semcheck.ErrNotLinearizable,
		},
		{
			name:  "a release of a slot never acquired",
			limit: 2,
			history: []porcupine.Operation{
				op(0, releaseA, 1, semcheck.Released, 2),
			},
			want: semcheck.ErrNotLinearizable,
		},
		{
			name:  "a held slot that vanished",
			limit: 2,
			history: []porcupine.Operation{
				op(0, acquireA, 1, semcheck.Acquired, 2),
				op(0, releaseA, 3, semcheck.NotHeld, 4),
			},
			want: semcheck.ErrNotLinearizable,
		},
		{
			name:  "a lost-reply acquire that took effect: the cleanup releases it",
			limit: 1,
			history: []porcupine.Operation{
				op(0, acquireA, 1, semcheck.Unknown, never),
				op(1, acquireB, 2, semcheck.Full, 3),
				op(2, releaseA, 4, semcheck.Released, 5),
				op(1, acquireB, 6, semcheck.Acquired, 7),
			},
		},
		{
			name:  "a lost-reply acquire that never took effect",
			limit: 1,
			history: []porcupine.Operation{
				op(0, acquireA, 1, semcheck.Unknown, never),
				op(1, acquireB, 2, semcheck.Acquired, 3),
				op(2, releaseA, 4, semcheck.NotHeld, 5),
			},
		},
		{
			name:  "a lost-reply acquire seen holding, then gone without a release",
			limit: 1,
			history: []porcupine.Operation{
				op(0, acquireA, 1, semcheck.Unknown, never),
				op(1, acquireB, 2, semcheck.Full, 3),
				op(2, releaseA, 4, semcheck.NotHeld, 5),
			},
			want: semcheck.ErrNotLinearizable,
		},
		{
			name:  "a lost-reply release seen both ways by later acquires",
			limit: 1,
			history: []porcupine.Operation{
				op(0, acquireA, 1, semcheck.Acquired, 2),
				op(0, releaseA, 3, semcheck.Unknown, never),
				op(1, acquireB, 4, semcheck.Full, 5),
				op(1, acquireB, 6, semcheck.Acquired, 7),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := semcheck.Check(tt.limit, tt.history, 10*time.Second)
			if !errors.Is(got, tt.want) || (tt.want == nil && got != nil) {
				t.Errorf("Check() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRecorderLeavesUnendedCallsOpen(t *testing.T) {
	r := semcheck.NewRecorder()
	r.Begin(0, acquireA) // its reply is lost: never ended
	r.Begin(1, acquireB).End(semcheck.Acquired)

	got := r.Operations()
	want := []porcupine.Operation{
		op(0, acquireA, 1, semcheck.Unknown, never),
		op(1, acquireB, 2, semcheck.Acquired, 3),
	}
	if len(got) != len(want) {
		t.Fatalf("Operations() has %d operations, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Operations()[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestOutcomeAndInputStrings(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{acquireA.String(), "acquire(a)"},
		{releaseB.String(), "release(b)"},
		{semcheck.Unknown.String(), "unknown"},
		{semcheck.Acquired.String(), "acquired"},
		{semcheck.Full.String(), "full"},
		{semcheck.Released.String(), "released"},
		{semcheck.NotHeld.String(), "not-held"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("String() = %q, want %q", tt.got, tt.want)
		}
	}
}

func TestCheckFrom(t *testing.T) {
	tests := []struct {
		name    string
		initial []string
		history []porcupine.Operation
		want    error
	}{
		{
			name:    "a holder from before the part releases its slot",
			initial: []string{"a"},
			history: []porcupine.Operation{op(0, releaseA, 1, semcheck.Released, 2)},
		},
		{
			name:    "the initial holders fill the lock",
			initial: []string{"a", "b"},
			history: []porcupine.Operation{op(0, acquireC, 1, semcheck.Acquired, 2)},
			want:    semcheck.ErrNotLinearizable,
		},
		{
			name:    "an abandoned acquire is over when it is abandoned",
			initial: nil,
			history: []porcupine.Operation{
				op(0, acquireA, 1, semcheck.Unknown, 2),
				op(1, releaseA, 3, semcheck.NotHeld, 4),
				op(1, acquireB, 5, semcheck.Acquired, 6),
				op(1, acquireC, 7, semcheck.Acquired, 8),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := semcheck.CheckFrom(2, tt.initial, tt.history, 10*time.Second)
			if !errors.Is(got, tt.want) || (tt.want == nil && got != nil) {
				t.Errorf("CheckFrom() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRecorderAbandonEndsTheCallWithAnUnknownOutcome(t *testing.T) {
	r := semcheck.NewRecorder()
	r.Begin(0, acquireA).Abandon()
	want := op(0, acquireA, 1, semcheck.Unknown, 2)
	if got := r.Operations(); len(got) != 1 || got[0] != want {
		t.Errorf("Operations() = %+v, want [%+v]", got, want)
	}
}

func TestRecorderBeginSinceTakesTheCallTimeOfTheEnclosingCall(t *testing.T) {
	r := semcheck.NewRecorder()
	release := r.Begin(0, semcheck.ReleaseSlot("a"))
	r.Begin(1, semcheck.Park("c", 3)).End(semcheck.QueueOutput{Outcome: semcheck.Queued})
	release.End(semcheck.QueueOutput{Outcome: semcheck.GaveUp})
	r.BeginSince(0, semcheck.Admit("b"), release).End(semcheck.QueueOutput{Outcome: semcheck.Done})
	ops := r.Operations()
	if got := ops[2]; got.Call != ops[0].Call || got.Return <= ops[0].Return {
		t.Errorf("admission recorded since the release = [%d, %d], want [%d, after %d]", got.Call, got.Return, ops[0].Call, ops[0].Return)
	}
}
