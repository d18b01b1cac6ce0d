package machines

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/turnstile-sfn/turnstile/asl"
)

// Reading an execution input's priority and weight outside the machine, as its Check Priority
// and Check Weight states do: what a submission (lock.SubmitRequest) of that input needs to
// queue where the machine's own park would.

// Errors of an execution input's priority and weight, as a submission reads them.
var (
	// ErrInputPriority: the input has something at the machine's PriorityPath that is not an
	// integer from MinPriority to MaxPriority (the machine fails such an execution with
	// ErrorInvalidPriority); fix the input.
	ErrInputPriority = errors.New("the execution input's priority is not an integer from 0 to 9")
	// ErrInputWeight: the input has something at the machine's WeightPath that is not a whole
	// number from 1 to the limit (the machine fails such an execution with ErrorInvalidWeight,
	// or its park with a fraction); fix the input.
	ErrInputWeight = errors.New("the execution input's weight is not a whole number from 1 to the limit")
)

// InputOrder is what a semaphore machine reads of each execution input to order it in the
// queue: its PriorityPath and PriorityAgeing, its WeightPath and its limit. The zero value
// reads nothing (no priorities, weight 1).
type InputOrder struct {
	// PriorityPath is the machine's PriorityPath, "" without priorities.
	PriorityPath string
	// PriorityAgeing is its ageing step (lock.Place), 0 without priorities.
	PriorityAgeing int64
	// WeightPath is the machine's WeightPath, "" without weighted permits.
	WeightPath string
	// Limit is the machine's limit, the largest weight.
	Limit int
}

// SemaphoreInputOrder reads back what a semaphore machine Semaphore generated reads of each
// input to order it (SemaphorePriorityPath, SemaphorePriorityAgeing, SemaphoreWeightPath,
// SemaphoreLimit).
func SemaphoreInputOrder(m *asl.StateMachine) InputOrder {
	o := InputOrder{PriorityPath: SemaphorePriorityPath(m), WeightPath: SemaphoreWeightPath(m)}
	if o.PriorityPath != "" {
		o.PriorityAgeing = SemaphorePriorityAgeing(m)
	}
	o.Limit, _ = SemaphoreLimit(m)
	return o
}

// SemaphorePriorityAgeing reads back the ageing step of a semaphore machine Semaphore generated
// with priorities (the "priorityAgeing" of its park), or 0 for one without.
func SemaphorePriorityAgeing(m *asl.StateMachine) int64 {
	park, ok := m.States.Get(StateWaitInQueue).(*asl.Task)
	if !ok {
		return 0
	}
	params, _ := park.Parameters.(map[string]any)
	payload, _ := params["Payload"].(map[string]any)
	ageing, err := strconv.ParseInt(fmt.Sprint(payload["priorityAgeing"]), 10, 64)
	if err != nil || ageing < 1 {
		return 0
	}
	return ageing
}

// Read reads the priority and weight of one input: at reads the input's value at a path (ok
// false when it has none). An absent value gives DefaultPriority and DefaultWeight; a value
// the machine would refuse gives ErrInputPriority or ErrInputWeight.
func (o InputOrder) Read(at func(path string) (v any, ok bool)) (priority, weight int, err error) {
	priority, weight = DefaultPriority, DefaultWeight
	if o.PriorityPath != "" {
		if v, ok := at(o.PriorityPath); ok {
			p, whole := wholeNumber(v)
			if !whole || p < MinPriority || p > MaxPriority {
				return 0, 0, fmt.Errorf("%w: %s is %v", ErrInputPriority, o.PriorityPath, v)
			}
			priority = int(p)
		}
	}
	if o.WeightPath != "" {
		if v, ok := at(o.WeightPath); ok {
			w, whole := wholeNumber(v)
			if !whole || w < 1 || w > int64(o.Limit) {
				return 0, 0, fmt.Errorf("%w (%d): %s is %v", ErrInputWeight, o.Limit, o.WeightPath, v)
			}
			weight = int(w)
		}
	}
	return priority, weight, nil
}

// wholeNumber reads a JSON number that is a whole number (3 or 3.0), as decoded by
// encoding/json (float64, json.Number) or asl (int64, float64).
func wholeNumber(v any) (int64, bool) {
	var f float64
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case float64:
		f = x
	case json.Number:
		var err error
		if f, err = x.Float64(); err != nil {
			return 0, false
		}
	default:
		return 0, false
	}
	if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int64(f), true
}
