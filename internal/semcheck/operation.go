package semcheck

import "fmt"

// Kind is what an operation does to the semaphore.
type Kind int

// The kinds of operation.
const (
	// KindAcquire takes a slot for a holder.
	KindAcquire Kind = iota + 1
	// KindRelease gives a holder's slot back.
	KindRelease
)

// Input is an operation as its client called it: an acquire or a release for one holder.
type Input struct {
	Kind   Kind
	Holder string
}

// Acquire is the input of an acquire for holder.
func Acquire(holder string) Input { return Input{Kind: KindAcquire, Holder: holder} }

// Release is the input of a release for holder.
func Release(holder string) Input { return Input{Kind: KindRelease, Holder: holder} }

// String describes the input, e.g. "acquire(run-1)".
func (in Input) String() string {
	switch in.Kind {
	case KindAcquire:
		return fmt.Sprintf("acquire(%s)", in.Holder)
	case KindRelease:
		return fmt.Sprintf("release(%s)", in.Holder)
	default:
		return fmt.Sprintf("kind%d(%s)", int(in.Kind), in.Holder)
	}
}

// Outcome is what an operation returned to its client.
type Outcome int

// The outcomes of an operation.
const (
	// Unknown is the outcome of an operation that never returned: its reply was lost and its
	// client gave up. It may or may not have taken effect.
	Unknown Outcome = iota
	// Acquired: the holder holds a slot (it took one, or it held one already).
	Acquired
	// Full: the holder held no slot and none was free.
	Full
	// Released: the holder held a slot and gave it back.
	Released
	// NotHeld: the holder held no slot, so there was nothing to release.
	NotHeld
)

// String names the outcome.
func (o Outcome) String() string {
	switch o {
	case Unknown:
		return "unknown"
	case Acquired:
		return "acquired"
	case Full:
		return "full"
	case Released:
		return "released"
	case NotHeld:
		return "not-held"
	default:
		return fmt.Sprintf("outcome%d", int(o))
	}
}
