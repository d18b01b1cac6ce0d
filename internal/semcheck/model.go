package semcheck

import (
	"slices"
	"strings"

	"github.com/anishathalye/porcupine"
)

// holders is the model's state: the set of holders, sorted and joined by newlines, so that equal
// sets are equal strings (porcupine compares states with ==).
type holders string

// holderSeparator separates the holders of a state; no holder name contains it.
const holderSeparator = "\n"

func (h holders) list() []string {
	if h == "" {
		return nil
	}
	return strings.Split(string(h), holderSeparator)
}

func (h holders) has(holder string) bool { return slices.Contains(h.list(), holder) }

func (h holders) size() int { return len(h.list()) }

func (h holders) with(holder string) holders {
	list := append(h.list(), holder)
	slices.Sort(list)
	return holders(strings.Join(list, holderSeparator))
}

func (h holders) without(holder string) holders {
	list := slices.DeleteFunc(h.list(), func(name string) bool { return name == holder })
	return holders(strings.Join(list, holderSeparator))
}

// Model returns the porcupine model of a counting semaphore of limit slots. Operations have an
// Input as input and an Outcome as output; an operation with the output Unknown may or may not
// have taken effect.
func Model(limit int) porcupine.Model { return ModelFrom(limit, nil) }

// ModelFrom is Model starting with the holders initial, e.g. the holders a snapshot read at a
// quiescent point, when a long history is checked in parts.
func ModelFrom(limit int, initial []string) porcupine.Model {
	start := holders("")
	for _, holder := range initial {
		if !start.has(holder) {
			start = start.with(holder)
		}
	}
	m := porcupine.NondeterministicModel{
		Init: func() []any { return []any{start} },
		Step: func(state, input, output any) []any {
			return step(limit, state.(holders), input.(Input), output.(Outcome))
		},
		DescribeOperation: func(input, output any) string {
			return input.(Input).String() + " -> " + output.(Outcome).String()
		},
		DescribeState: func(state any) string {
			return "{" + strings.Join(state.(holders).list(), ", ") + "}"
		},
	}
	return m.ToModel()
}

// step returns the states the semaphore can be in after in returned out in state s: none when it
// cannot return that.
func step(limit int, s holders, in Input, out Outcome) []any {
	held := s.has(in.Holder)
	switch in.Kind {
	case KindAcquire:
		admitted := s
		if !held {
			admitted = s.with(in.Holder)
		}
		canAcquire := held || s.size() < limit
		switch {
		case out == Acquired && canAcquire:
			return []any{admitted}
		case out == Full && !canAcquire:
			return []any{s}
		case out == Unknown && canAcquire:
			return []any{s, admitted}
		case out == Unknown:
			return []any{s}
		}
	case KindRelease:
		switch {
		case out == Released && held:
			return []any{s.without(in.Holder)}
		case out == NotHeld && !held:
			return []any{s}
		case out == Unknown:
			return []any{s, s.without(in.Holder)}
		}
	}
	return nil
}
