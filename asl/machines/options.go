package machines

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/lock"
)

// Defaults applied by Semaphore to the zero values of SemaphoreOptions.
const (
	// DefaultAcquireTimeout is how long an execution waits for a slot, in total, before it
	// fails with ErrorAcquireTimeout.
	DefaultAcquireTimeout = 15 * time.Minute
	// DefaultWaitMin is the shortest pause between two acquire attempts.
	DefaultWaitMin = 1 * time.Second
	// DefaultWaitMax is the longest pause between two acquire attempts.
	DefaultWaitMax = 5 * time.Second
	// DefaultTimeout is the execution timeout: a stuck execution ends, and its slot comes back
	// through the cleanup.
	DefaultTimeout = 1 * time.Hour
)

// MaxTimeout is the longest execution timeout a Standard state machine accepts: one year.
const MaxTimeout = 365 * 24 * time.Hour

// SemaphoreOptions describes a semaphore machine. Exactly one of LockName and LockNamePath is
// set; Limit and Work are required; every other zero value takes its documented default.
type SemaphoreOptions struct {
	// LockName is the fixed name of the lock, shared by every execution.
	LockName string
	// LockNamePath reads the lock name from the execution input, e.g. "$.environment", so that
	// executions for different keys never wait for each other. It must be a "$." reference
	// path without wildcards, filters or recursive descent.
	LockNamePath string
	// Limit is the number of executions that may run the work at once: 1 to MaxLimit. With
	// Locks, it is the limit of each LockSpec without its own (and may be 0 if all have one).
	Limit int
	// Locks are several locks, each fixed or read from the input, that the execution holds all
	// at once while the work runs, in place of LockName and LockNamePath. They are taken one
	// after the other in the order of their names (sorted at run time), so that two executions
	// never wait for each other in a cycle; a lock named twice is taken once, with the smaller
	// limit. Each lock waits up to AcquireTimeout. Every lock is given back after the work,
	// and by the cleanup. Each lock waits with WaitStrategy (under WaitPoll, each lock's
	// acquire loop polls with the lock's own limit). It needs no Rate; the work gets no slot
	// context (package slot). Default: none, a single lock.
	Locks []LockSpec
	// TotalLimit caps the executions that run the work at once across all the keys of
	// LockNamePath, each key still limited to Limit: at most 3 per tenant and 12 in all. An
	// execution takes its key's slot, then its key's turn (a gate of one slot), then one of the
	// total lock's (TotalLockName), waiting in each lock's FIFO queue, and gives the turn back
	// once it holds the total slot: each key has at most one execution in the total lock's
	// queue, so keys with waiters take turns, round robin (totalCap). It needs WaitStrategy
	// WaitCallback and no Rate; each of the three locks waits up to AcquireTimeout. Default: 0,
	// no total cap.
	TotalLimit int
	// TotalLockName is the name of the lock that counts the executions of all keys
	// (TotalLimit), and the prefix of the keys' turns; an input whose key begins with it fails
	// with ErrorInvalidLockName. Default: DefaultTotalLockName.
	TotalLockName string
	// TableName is the lock table's name as written in the definition. Default:
	// Placeholder(SubstitutionTableName), resolved by CloudFormation DefinitionSubstitutions.
	TableName string
	// Work is the graph run, in a Parallel branch, while the slot is held (see LambdaWork and
	// StateMachineWork). It receives the execution input; its output is the execution output.
	// Its state names must differ from the semaphore's own (see StateNames).
	Work *asl.Graph
	// AcquireTimeout bounds the total time spent waiting for a slot. Default:
	// DefaultAcquireTimeout.
	AcquireTimeout time.Duration
	// WaitMin and WaitMax bound each pause between two acquire attempts; every pause is drawn
	// at random between them (States.MathRandom), so waiting executions spread out. Default:
	// DefaultWaitMin and DefaultWaitMax.
	WaitMin, WaitMax time.Duration
	// Timeout is the execution timeout (TimeoutSeconds). Default: DefaultTimeout.
	Timeout time.Duration
	// WaitStrategy is how an execution waits for a slot. Default: WaitPoll.
	WaitStrategy WaitStrategy
	// HandOffFunctionArn is the hand-off function's ARN as written in the definition (Callback
	// strategy only). Default: Placeholder(SubstitutionHandOffFunctionArn).
	HandOffFunctionArn string
	// CallbackTimeout is how long a parked waiter sleeps before it re-checks on its own
	// (Callback strategy only). Default: DefaultCallbackTimeout, or AcquireTimeout if shorter.
	CallbackTimeout time.Duration
	// Rate limits how often executions enter the work, per lock name (see RateOptions).
	// Default: nil, no rate limit.
	Rate *RateOptions
	// PriorityPath reads the execution's priority from the execution input, e.g. "$.priority":
	// an integer from MinPriority (0) to MaxPriority (9); higher priorities are admitted
	// first, first in first out within a priority, and PriorityAgeing bounds the overtaking.
	// An input without it has DefaultPriority; anything else there fails the execution with
	// ErrorInvalidPriority. A "$." reference path like LockNamePath; Callback strategy only.
	// Default: none, first in first out.
	PriorityPath string
	// PriorityAgeing is the ageing step of priorities (lock.Place): a waiter of priority p is
	// overtaken by at most (q-p)·PriorityAgeing executions of each priority q > p that queued
	// after it; an execution of priority q overtakes every waiter of priority p < q that
	// queued fewer than (q-p)·PriorityAgeing executions before it. 1 to MaxPriorityAgeing,
	// with PriorityPath only. Default: DefaultPriorityAgeing.
	PriorityAgeing int
	// WeightPath reads the execution's weight from the execution input, e.g. "$.weight": the
	// number of slots it takes, a whole number from 1 to Limit. The head of the line is served
	// first in, first out: a waiter that does not fit blocks lighter ones behind it (package
	// lock, "Weighted permits"). An input without it has DefaultWeight; a number out of range
	// or anything else there fails the execution with ErrorInvalidWeight, a fractional one with
	// ErrorInvalidHandOffRequest, and a weight above the lock's live limit (lowered by an
	// operator) with ErrorWeightAboveLimit. A "$." reference path; Callback strategy only.
	// Default: none, every execution takes one slot.
	WeightPath string
}

// withDefaults returns a copy of o with the defaults filled in.
func (o SemaphoreOptions) withDefaults() SemaphoreOptions {
	if o.TableName == "" {
		o.TableName = Placeholder(SubstitutionTableName)
	}
	if o.AcquireTimeout == 0 {
		o.AcquireTimeout = DefaultAcquireTimeout
	}
	if o.WaitMin == 0 {
		o.WaitMin = DefaultWaitMin
	}
	if o.WaitMax == 0 {
		o.WaitMax = DefaultWaitMax
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.WaitStrategy == "" {
		o.WaitStrategy = WaitPoll
	}
	if o.HandOffFunctionArn == "" {
		o.HandOffFunctionArn = Placeholder(SubstitutionHandOffFunctionArn)
	}
	if o.CallbackTimeout == 0 && o.WaitStrategy == WaitCallback {
		o.CallbackTimeout = min(DefaultCallbackTimeout, o.AcquireTimeout)
	}
	o.Rate = o.Rate.withDefaults()
	if o.TotalLimit != 0 && o.TotalLockName == "" {
		o.TotalLockName = DefaultTotalLockName
	}
	if len(o.Locks) > 0 {
		o.Locks = slices.Clone(o.Locks)
		for i := range o.Locks {
			if o.Locks[i].Limit == 0 {
				o.Locks[i].Limit = o.Limit
			}
		}
	}
	if o.PriorityPath != "" && o.PriorityAgeing == 0 {
		o.PriorityAgeing = DefaultPriorityAgeing
	}
	return o
}

// validate checks options that already have their defaults, returning the first problem.
func (o SemaphoreOptions) validate() error {
	checks := []func() *OptionError{o.checkLockName, o.checkLimit, o.checkTiming, o.checkWork, o.checkRate, o.checkTotal, o.checkPriority, o.checkWeight}
	if len(o.Locks) > 0 {
		checks = []func() *OptionError{o.checkLocks, o.checkTiming, o.checkLocksTiming, o.checkWork, o.checkTotal}
	}
	for _, check := range checks {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

func (o SemaphoreOptions) checkLockName() *OptionError {
	switch {
	case o.LockName == "" && o.LockNamePath == "":
		return &OptionError{Field: "LockName", Value: "neither", Problem: "or LockNamePath is required", Kind: ErrLockName}
	case o.LockName != "" && o.LockNamePath != "":
		return &OptionError{Field: "LockName", Value: "both", Problem: "and LockNamePath are mutually exclusive", Kind: ErrLockName}
	case o.LockName != "" && strings.TrimSpace(o.LockName) == "":
		return &OptionError{Field: "LockName", Value: strconv.Quote(o.LockName), Problem: "must not be only blanks", Kind: ErrLockName}
	case len(o.LockName) > lock.MaxLockNameBytes:
		return &OptionError{Field: "LockName", Value: fmt.Sprintf("%d bytes", len(o.LockName)), Problem: fmt.Sprintf("must be at most %d bytes long", lock.MaxLockNameBytes), Kind: ErrLockName}
	case strings.Contains(o.LockName, "${"):
		return &OptionError{Field: "LockName", Value: strconv.Quote(o.LockName), Problem: "must not contain \"${\", which CloudFormation reads as a DefinitionSubstitutions placeholder", Kind: ErrLockName}
	case o.LockNamePath != "" && !IsLockNamePath(o.LockNamePath):
		return &OptionError{Field: "LockNamePath", Value: strconv.Quote(o.LockNamePath), Problem: `must be a "$." reference path such as "$.environment"`, Kind: ErrLockNamePath}
	}
	return nil
}

// IsLockNamePath reports whether p can serve as a LockNamePath: a JSONPath that starts with
// "$." and names a single node (no wildcard, filter, slice or recursive descent), so that a
// Choice state can test it.
func IsLockNamePath(p string) bool {
	if !strings.HasPrefix(p, "$.") || len(p) == len("$.") {
		return false
	}
	rest := p[len("$."):]
	return !strings.Contains(p, "..") && !strings.ContainsAny(rest, "*?@:$ ") && !strings.HasSuffix(rest, ".")
}

func (o SemaphoreOptions) checkLimit() *OptionError {
	switch {
	case o.Limit < 1:
		return &OptionError{Field: "Limit", Value: o.Limit, Problem: "must be > 0", Kind: ErrLimit}
	case o.Limit > MaxLimit:
		return &OptionError{Field: "Limit", Value: o.Limit, Problem: fmt.Sprintf("must be <= MaxLimit (%d)", MaxLimit), Kind: ErrLimit}
	}
	return nil
}

func (o SemaphoreOptions) checkTiming() *OptionError {
	durations := []struct {
		field string
		value time.Duration
	}{
		{"AcquireTimeout", o.AcquireTimeout},
		{"WaitMin", o.WaitMin},
		{"WaitMax", o.WaitMax},
		{"Timeout", o.Timeout},
	}
	if o.WaitStrategy == WaitCallback {
		durations = append(durations, struct {
			field string
			value time.Duration
		}{"CallbackTimeout", o.CallbackTimeout})
	}
	for _, d := range durations {
		if d.value < time.Second || d.value%time.Second != 0 {
			return &OptionError{Field: d.field, Value: d.value, Problem: "must be a whole number of seconds, at least 1s", Kind: ErrTiming}
		}
	}
	switch {
	case o.WaitStrategy != WaitPoll && o.WaitStrategy != WaitCallback:
		return &OptionError{Field: "WaitStrategy", Value: strconv.Quote(string(o.WaitStrategy)), Problem: `must be "Poll" or "Callback"`, Kind: ErrWaitStrategy}
	case o.WaitStrategy == WaitPoll && o.CallbackTimeout != 0:
		return &OptionError{Field: "CallbackTimeout", Value: o.CallbackTimeout, Problem: `applies to WaitStrategy "Callback" only; remove it, or set WaitStrategy to "Callback"`, Kind: ErrTiming}
	case o.WaitMax <= o.WaitMin:
		return &OptionError{Field: "WaitMax", Value: o.WaitMax, Problem: "must be greater than WaitMin (" + o.WaitMin.String() + ")", Kind: ErrTiming}
	case o.Timeout > MaxTimeout:
		return &OptionError{Field: "Timeout", Value: o.Timeout, Problem: "must be at most one year (8760h0m0s)", Kind: ErrTiming}
	case o.WaitStrategy == WaitCallback && o.CallbackTimeout > o.AcquireTimeout:
		return &OptionError{Field: "CallbackTimeout", Value: o.CallbackTimeout, Problem: "must be at most AcquireTimeout (" + o.AcquireTimeout.String() + ")", Kind: ErrTiming}
	case o.AcquireTimeout >= o.Timeout:
		return &OptionError{Field: "AcquireTimeout", Value: o.AcquireTimeout, Problem: "must be shorter than Timeout (" + o.Timeout.String() + ")", Kind: ErrTiming}
	}
	return nil
}

func (o SemaphoreOptions) checkWork() *OptionError {
	if o.Work == nil {
		return &OptionError{Field: "Work", Value: "nil", Problem: "is required", Kind: ErrWork}
	}
	if err := o.Work.Validate(); err != nil {
		return &OptionError{Field: "Work", Value: strconv.Quote(o.Work.StartAt), Problem: "must be a valid States Language graph", Kind: ErrWork, Cause: err}
	}
	own := map[string]bool{}
	for _, name := range StateNames() {
		own[name] = true
	}
	for _, name := range graphStateNames(o.Work) {
		if own[name] {
			return &OptionError{Field: "Work", Value: strconv.Quote(name), Problem: "must not reuse a state name of the semaphore", Kind: ErrWork}
		}
	}
	return nil
}

// graphStateNames lists the names of g's states and of the states nested in its Parallel
// branches and Map processors, depth first.
func graphStateNames(g *asl.Graph) []string {
	var names []string
	for _, n := range g.States {
		names = append(names, n.Name)
		switch s := n.State.(type) {
		case *asl.Parallel:
			for _, b := range s.Branches {
				names = append(names, graphStateNames(b)...)
			}
		case *asl.Map:
			if p := s.Processor(); p != nil {
				names = append(names, graphStateNames(&p.Graph)...)
			}
		}
	}
	return names
}
