package semcheck

import (
	"math"
	"sync"

	"github.com/anishathalye/porcupine"
)

// Recorder records the operations of concurrent clients as a history. Time is a logical clock
// that ticks at every call and every return, so the history orders operations exactly as the
// recorder saw them begin and end. It is safe for concurrent use.
type Recorder struct {
	mu         sync.Mutex
	clock      int64
	operations []porcupine.Operation
}

// NewRecorder returns an empty Recorder.
func NewRecorder() *Recorder { return &Recorder{} }

// Call is an operation that has begun. End it with its outcome; a Call never ended is an
// operation whose outcome is unknown.
type Call struct {
	recorder *Recorder
	index    int
}

// Begin records that client called in (an Input of the semaphore model, or a QueueInput of
// the queue model) and returns the call to end when it returns. Call Begin before the
// operation's first request is sent.
func (r *Recorder) Begin(client int, in any) *Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clock++
	return r.begin(client, in, r.clock)
}

// BeginSince records that in took effect at some moment since the call since began, as seen
// by client; end it at once. It records what one operation did on the side and learned about
// only later, e.g. a waiter admitted to a free slot by the operation that woke it.
func (r *Recorder) BeginSince(client int, in any, since *Call) *Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.begin(client, in, r.operations[since.index].Call)
}

// begin appends an operation called at call; r.mu is held.
func (r *Recorder) begin(client int, in any, call int64) *Call {
	r.operations = append(r.operations, porcupine.Operation{
		ClientId: client, Input: in, Call: call, Output: Unknown, Return: math.MaxInt64,
	})
	return &Call{recorder: r, index: len(r.operations) - 1}
}

// End records that the call returned out (an Outcome of the semaphore model, a QueueOutput of
// the queue model). Call End after the operation's last reply arrived.
func (c *Call) End(out any) {
	r := c.recorder
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clock++
	r.operations[c.index].Output = out
	r.operations[c.index].Return = r.clock
}

// Abandon records that the client gave up on the call without learning its outcome: the
// operation may or may not have taken effect, but not after now. Use it when nothing can apply
// the operation later, e.g. behind a faultproxy, which never delivers a lost request late; it
// keeps the history precise, and the check fast, where a Call never ended may take effect at
// any time.
func (c *Call) Abandon() {
	r := c.recorder
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clock++
	r.operations[c.index].Return = r.clock
}

// Operations returns a copy of the history so far. An operation not ended has the output
// Unknown and returns at the end of time (math.MaxInt64): it may take effect at any point after
// its call, or never.
func (r *Recorder) Operations() []porcupine.Operation {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]porcupine.Operation(nil), r.operations...)
}
