package machines

import (
	"errors"
	"strconv"
	"strings"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/lock"
)

// DefaultWeight is the weight of an execution whose input has nothing at WeightPath.
const DefaultWeight = 1

// ErrWeight reports a WeightPath that is not a simple "$." reference path or comes with the
// Poll strategy.
var ErrWeight = errors.New("invalid weight options")

// Error names of weighted permits.
const (
	// ErrorInvalidWeight: the execution input has something at WeightPath that is not a number
	// from 1 to Limit. The execution fails before it draws a ticket, holding nothing.
	ErrorInvalidWeight = "Turnstile.InvalidWeight"
	// ErrorWeightAboveLimit: the execution's weight is above the lock's live limit (an
	// operator lowered it below the weight), so it could never be admitted; it fails holding
	// nothing.
	ErrorWeightAboveLimit = lock.ErrorWeightAboveLimit
)

// Names of the weight states (WeightPath only), in the order they render (see StateNames).
const (
	// StateCheckWeight tells an absent, a valid and an invalid weight apart.
	StateCheckWeight = "Check Weight"
	// StateDefaultWeight gives an execution without a weight DefaultWeight.
	StateDefaultWeight = "Default Weight"
	// StateReadWeight copies the execution's weight into the machine's data.
	StateReadWeight = "Read Weight"
	// StateInvalidWeight fails with ErrorInvalidWeight.
	StateInvalidWeight = "Invalid Weight"
)

func (o SemaphoreOptions) checkWeight() *OptionError {
	switch {
	case o.WeightPath == "":
		return nil
	case !IsLockNamePath(o.WeightPath):
		return &OptionError{Field: "WeightPath", Value: strconv.Quote(o.WeightPath), Problem: `must be a "$." reference path such as "$.weight"`, Kind: ErrWeight}
	case o.WaitStrategy != WaitCallback:
		return &OptionError{Field: "WeightPath", Value: strconv.Quote(o.WeightPath), Problem: `applies to WaitStrategy "Callback" only; set WaitStrategy to "Callback"`, Kind: ErrWeight}
	}
	return nil
}

// weightStates are the states that put the execution's weight at $.weight.units, before Take
// Ticket; the execution input is read through the context object, as Prepare Acquire replaced
// the data. A fractional weight passes them and fails the park (Turnstile.InvalidHandOffRequest).
func (b builder) weightStates() asl.States {
	input := "$$.Execution.Input" + strings.TrimPrefix(b.o.WeightPath, "$")
	return asl.States{
		{Name: StateCheckWeight, State: &asl.Choice{
			Choices: []*asl.ChoiceRule{
				{Variable: input, Operator: "IsPresent", Value: false, Next: StateDefaultWeight},
				{And: []*asl.ChoiceRule{
					{Variable: input, Operator: "IsNumeric", Value: true},
					{Variable: input, Operator: "NumericGreaterThanEquals", Value: 1},
					{Variable: input, Operator: "NumericLessThanEquals", Value: b.o.Limit},
				}, Next: StateReadWeight},
			},
			Default: StateInvalidWeight,
		}},
		{Name: StateDefaultWeight, State: &asl.Pass{Transition: asl.Next(StateTakeTicket),
			Result: map[string]any{"units": DefaultWeight}, ResultPath: asl.P("$.weight")}},
		{Name: StateReadWeight, State: &asl.Pass{Transition: asl.Next(StateTakeTicket),
			Parameters: map[string]any{"units.$": input}, ResultPath: asl.P("$.weight")}},
		{Name: StateInvalidWeight, State: &asl.Fail{
			Error: ErrorInvalidWeight,
			Cause: "the execution input's " + b.o.WeightPath + " is not a number from 1 to " + strconv.Itoa(b.o.Limit) + ", the weight",
		}},
	}
}

// SemaphoreWeightPath reads back where a semaphore machine Semaphore generated takes its
// weight from: its WeightPath, or "" for a machine without weights (or no semaphore).
func SemaphoreWeightPath(m *asl.StateMachine) string {
	read, ok := m.States.Get(StateReadWeight).(*asl.Pass)
	if !ok {
		return ""
	}
	params, _ := read.Parameters.(map[string]any)
	p, _ := params["units.$"].(string)
	rest, ok := strings.CutPrefix(p, "$$.Execution.Input")
	if !ok {
		return ""
	}
	return "$" + rest
}
