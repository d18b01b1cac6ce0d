package machines

import (
	"errors"
	"strconv"
	"strings"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/lock"
)

// Priorities (SemaphoreOptions.PriorityPath): higher first, first in first out within a priority,
// and overtaking bounded by ageing (lock.Place).
const (
	// MinPriority is the lowest priority an execution may give.
	MinPriority = lock.MinPriority
	// MaxPriority is the highest priority an execution may give.
	MaxPriority = lock.MaxPriority
	// DefaultPriority is the priority of an execution whose input has nothing at PriorityPath:
	// the lowest, so that only the executions that ask for it overtake.
	DefaultPriority = lock.MinPriority
	// DefaultPriorityAgeing is the ageing step of a semaphore with priorities: a waiter is
	// overtaken by at most (q-p)·100 later arrivals of each priority q above its own p.
	DefaultPriorityAgeing = 100
	// MaxPriorityAgeing is the largest PriorityAgeing.
	MaxPriorityAgeing = lock.MaxPriorityAgeing
)

// ErrPriority reports a PriorityPath that is not a simple "$." reference path or comes with the
// Poll strategy, or a PriorityAgeing out of range or without PriorityPath.
var ErrPriority = errors.New("invalid priority options")

// ErrorInvalidPriority: the execution input has something at PriorityPath that is not an integer
// from MinPriority to MaxPriority. The execution fails before it draws a ticket, holding nothing.
const ErrorInvalidPriority = "Turnstile.InvalidPriority"

// Names of the priority states (PriorityPath only), in the order they render (see StateNames).
const (
	// StateCheckPriority tells an absent, a valid and an invalid priority apart.
	StateCheckPriority = "Check Priority"
	// StateDefaultPriority gives an execution without a priority DefaultPriority.
	StateDefaultPriority = "Default Priority"
	// StateReadPriority copies the execution's priority into the machine's data.
	StateReadPriority = "Read Priority"
	// StateInvalidPriority fails with ErrorInvalidPriority.
	StateInvalidPriority = "Invalid Priority"
)

func (o SemaphoreOptions) checkPriority() *OptionError {
	switch {
	case o.PriorityPath == "" && o.PriorityAgeing != 0:
		return &OptionError{Field: "PriorityAgeing", Value: o.PriorityAgeing, Problem: "applies with PriorityPath only; remove it, or set PriorityPath", Kind: ErrPriority}
	case o.PriorityPath == "":
		return nil
	case !IsLockNamePath(o.PriorityPath):
		return &OptionError{Field: "PriorityPath", Value: strconv.Quote(o.PriorityPath), Problem: `must be a "$." reference path such as "$.priority"`, Kind: ErrPriority}
	case o.WaitStrategy != WaitCallback:
		return &OptionError{Field: "PriorityPath", Value: strconv.Quote(o.PriorityPath), Problem: `applies to WaitStrategy "Callback" only (Poll has no queue to order); set WaitStrategy to "Callback"`, Kind: ErrPriority}
	case o.PriorityAgeing < 1 || o.PriorityAgeing > MaxPriorityAgeing:
		return &OptionError{Field: "PriorityAgeing", Value: o.PriorityAgeing, Problem: "must be 1 to " + strconv.Itoa(MaxPriorityAgeing), Kind: ErrPriority}
	}
	return nil
}

// priorityStates are the states that put the execution's priority at $.priority.level, between
// Prepare Acquire and Check Weight or Take Ticket; the execution input is read through the context object, as
// Prepare Acquire replaced the data.
func (b builder) priorityStates() asl.States {
	input := "$$.Execution.Input" + strings.TrimPrefix(b.o.PriorityPath, "$")
	levels := make([]*asl.ChoiceRule, 0, MaxPriority-MinPriority+1)
	for p := MinPriority; p <= MaxPriority; p++ {
		levels = append(levels, &asl.ChoiceRule{Variable: input, Operator: "NumericEquals", Value: p})
	}
	next := StateTakeTicket
	if b.o.WeightPath != "" {
		next = StateCheckWeight
	}
	return asl.States{
		{Name: StateCheckPriority, State: &asl.Choice{
			Choices: []*asl.ChoiceRule{
				{Variable: input, Operator: "IsPresent", Value: false, Next: StateDefaultPriority},
				{And: []*asl.ChoiceRule{
					{Variable: input, Operator: "IsNumeric", Value: true},
					{Or: levels},
				}, Next: StateReadPriority},
			},
			Default: StateInvalidPriority,
		}},
		{Name: StateDefaultPriority, State: &asl.Pass{Transition: asl.Next(next),
			Result: map[string]any{"level": DefaultPriority}, ResultPath: asl.P("$.priority")}},
		{Name: StateReadPriority, State: &asl.Pass{Transition: asl.Next(next),
			Parameters: map[string]any{"level.$": input}, ResultPath: asl.P("$.priority")}},
		{Name: StateInvalidPriority, State: &asl.Fail{
			Error: ErrorInvalidPriority,
			Cause: "the execution input's " + b.o.PriorityPath + " is not an integer from " + strconv.Itoa(MinPriority) + " to " + strconv.Itoa(MaxPriority) + ", the priority",
		}},
	}
}

// SemaphorePriorityPath reads back where a semaphore machine Semaphore generated takes its
// priority from: its PriorityPath, or "" for a machine without priorities (or no semaphore).
func SemaphorePriorityPath(m *asl.StateMachine) string {
	read, ok := m.States.Get(StateReadPriority).(*asl.Pass)
	if !ok {
		return ""
	}
	params, _ := read.Parameters.(map[string]any)
	p, _ := params["level.$"].(string)
	rest, ok := strings.CutPrefix(p, "$$.Execution.Input")
	if !ok {
		return ""
	}
	return "$" + rest
}
