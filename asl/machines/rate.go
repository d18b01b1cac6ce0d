package machines

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/lock"
	"github.com/turnstile-sfn/turnstile/ratelimit/gcra"
)

// The Rate gate: between holding a slot and entering the work, an execution takes a permit of
// the lock's rate with the generic cell rate algorithm (GCRA) of package ratelimit, kept in an
// item of its own in the lock table (rateItemKey). The item holds the theoretical arrival time
// (TAT, gcra.AttributeTAT) in Unix nanoseconds; a permit advances it by one emission interval
// T = 1/PerSecond. The item's format, key prefix and interval are package ratelimit's
// (ratelimit/gcra), so that its Go clients naming the rate by the lock's name in the same table
// take their permits from the same rate.
//
// The gate's states use JSONata (JSONPath intrinsics cannot read timestamps) and date each
// decision with $states.context.State.EnteredTime, to the millisecond. Three conditional
// UpdateItems, one per case of max(TAT, now):
//
//   - Take Rate Permit, the TAT is ahead of now (a busy rate): SET tat = tat + T, on condition
//     tat >= now (Reject: now <= tat <= now + (Burst-1)·T). Additive, so that concurrent
//     executions do not conflict. The permit's slot is new TAT - Burst·T: Wait For Rate Slot
//     waits until it, rounded up to the whole second (AWS truncates a Wait's timestamp to the
//     second), then the work runs; a slot already passed runs the work at once.
//   - Restart Rate, on a failed condition: the rate was idle (TAT behind now, or no item yet):
//     SET tat = now + T on condition tat < now or no tat. The slot is now: the work runs at once.
//   - Retake Rate Permit, when that fails too: another execution restarted the rate in between,
//     so the TAT is at or after the Restart's now and Take's condition, dated with that now,
//     can only fail in Reject mode, when the rate is spent: the execution gives its slot back
//     and fails with ErrorRateLimited.
//
// A busy rate costs one write per permit, an idle one two, a race three; every state runs at
// most once per execution, so the gate has no loop.

// RateMode says what the Rate gate does with an execution that comes too early.
type RateMode string

// The Rate modes.
const (
	// RateDelay makes the execution wait, in a Wait state, until its permit's time rounded up to
	// the whole second (AWS waits to the second).
	RateDelay RateMode = "Delay"
	// RateReject fails the execution with ErrorRateLimited after it gave its slot back.
	RateReject RateMode = "Reject"
)

// Bounds of RateOptions.
const (
	// MaxRatePerSecond is the highest rate: one permit a millisecond, the resolution of
	// $states.context.State.EnteredTime that dates the decisions.
	MaxRatePerSecond = 1000
	// MinRatePerSecond is the lowest rate: one permit a day.
	MinRatePerSecond = 1.0 / 86400
	// MaxRateBurst is the largest burst.
	MaxRateBurst = 100_000
	// DefaultRateBurst is the burst of a RateOptions without one.
	DefaultRateBurst = 1
)

// RateOptions limits how often executions enter the work: at most PerSecond·W + Burst
// executions enter within any window of W seconds (GCRA), per lock name. Nil means no limit.
type RateOptions struct {
	// PerSecond is the rate in permits a second, as ratelimit.Config.Limit; it may be
	// fractional (0.5 is one permit every 2 s). Required: MinRatePerSecond to MaxRatePerSecond.
	PerSecond float64
	// Burst is the number of executions that may enter at once after an idle period: 1 to
	// MaxRateBurst. Default: DefaultRateBurst.
	Burst int
	// Mode is what happens to an execution that comes before its permit. Default: RateDelay.
	Mode RateMode
}

// Names of the Rate gate's states, in the order they render (see StateNames).
const (
	// StateReservedLockName fails with ErrorInvalidLockName: a lock name read from the input
	// begins with the rate items' key prefix (Rate only).
	StateReservedLockName = "Reserved Lock Name"
	// StateTakeRatePermit takes a permit of a busy rate.
	StateTakeRatePermit = "Take Rate Permit"
	// StateRestartRate takes the first permit of an idle rate.
	StateRestartRate = "Restart Rate"
	// StateRetakeRatePermit takes a permit of a rate another execution just restarted.
	StateRetakeRatePermit = "Retake Rate Permit"
	// StateWaitForRateSlot waits until the permit's slot.
	StateWaitForRateSlot = "Wait For Rate Slot"
)

// ErrorRateLimited is the error of an execution that the Rate gate rejected (RateReject): it
// held no slot when it failed.
const ErrorRateLimited = "Turnstile.RateLimited"

// withDefaults returns a copy of r with the defaults filled in (nil stays nil).
func (r *RateOptions) withDefaults() *RateOptions {
	if r == nil {
		return nil
	}
	c := *r
	if c.Burst == 0 {
		c.Burst = DefaultRateBurst
	}
	if c.Mode == "" {
		c.Mode = RateDelay
	}
	return &c
}

// Validate checks r, its defaults applied, as Semaphore does: it returns an *OptionError
// naming the field at fault (wrapping ErrRate), or nil.
func (r RateOptions) Validate() error {
	if err := r.withDefaults().check(); err != nil {
		return err
	}
	return nil
}

// check validates rate options that have their defaults.
func (r *RateOptions) check() *OptionError {
	switch {
	case math.IsNaN(r.PerSecond) || r.PerSecond < MinRatePerSecond || r.PerSecond > MaxRatePerSecond:
		return &OptionError{Field: "Rate.PerSecond", Value: r.PerSecond, Problem: fmt.Sprintf("must be from one a day (1/86400) to %d permits a second", MaxRatePerSecond), Kind: ErrRate}
	case r.Burst < 1 || r.Burst > MaxRateBurst:
		return &OptionError{Field: "Rate.Burst", Value: r.Burst, Problem: fmt.Sprintf("must be between 1 and %d", MaxRateBurst), Kind: ErrRate}
	case r.Mode != RateDelay && r.Mode != RateReject:
		return &OptionError{Field: "Rate.Mode", Value: strconv.Quote(string(r.Mode)), Problem: `must be "Delay" or "Reject"`, Kind: ErrRate}
	}
	return nil
}

// checkRate validates the Rate options and the lock name they key their item with.
func (o SemaphoreOptions) checkRate() *OptionError {
	if o.Rate == nil {
		return nil
	}
	if err := o.Rate.check(); err != nil {
		return err
	}
	if strings.HasPrefix(o.LockName, gcra.KeyPrefix) {
		return &OptionError{Field: "LockName", Value: strconv.Quote(o.LockName), Problem: fmt.Sprintf("must not begin with %q with a Rate: the rate items' keys do", gcra.KeyPrefix), Kind: ErrLockName}
	}
	return nil
}

// rateItemKey is the key of the lock's rate item, from the lock name in the data of a JSONata
// state. It is the one place that says where rate items live in the lock table: the lock items
// never begin with gcra.KeyPrefix (checkRate, reservedLockNameRule).
func rateItemKey() map[string]any {
	return map[string]any{
		lock.AttributeLockName: map[string]any{"S": "{% '" + gcra.KeyPrefix + "' & $states.input.lockName %}"},
		lock.AttributeEntry:    map[string]any{"S": gcra.Entry},
	}
}

// reservedLockNameRule is the Check Lock Name rule that refuses input lock names that could
// collide with a rate item's key.
func reservedLockNameRule(path string) *asl.ChoiceRule {
	return &asl.ChoiceRule{Variable: path, Operator: "StringMatches", Value: gcra.KeyPrefix + "*", Next: StateReservedLockName}
}

// withRateGate inserts the Rate gate into the machine's states when Rate is set: the states
// that went to Run Work go to the gate instead, the gate's states render just before Run Work,
// and an input lock name may not begin with the rate items' key prefix. Without Rate it
// returns states unchanged.
func (b builder) withRateGate(states asl.States) asl.States {
	if b.o.Rate == nil {
		return states
	}
	var out asl.States
	for _, n := range states {
		redirect(n.State, StateRunWork, StateTakeRatePermit)
		switch n.Name {
		case StateRunWork:
			out = append(out, b.rateGate()...)
		case StateCheckLockName:
			choice := n.State.(*asl.Choice)
			choice.Choices = append(choice.Choices, reservedLockNameRule(b.o.LockNamePath))
		}
		out = append(out, n)
		if n.Name == StateInvalidLockName {
			out = append(out, asl.NamedState{Name: StateReservedLockName, State: &asl.Fail{
				Error: ErrorInvalidLockName,
				Cause: fmt.Sprintf("the lock name at %s begins with %q, a prefix reserved for the keys of the locks' rate items", b.o.LockNamePath, gcra.KeyPrefix),
			}})
		}
	}
	return out
}

// redirect makes every transition of s to from go to to.
func redirect(s asl.State, from, to string) {
	swap := func(name *string) {
		if *name == from {
			*name = to
		}
	}
	switch x := s.(type) {
	case *asl.Pass:
		swap(&x.Next)
	case *asl.Wait:
		swap(&x.Next)
	case *asl.Task:
		swap(&x.Next)
		for _, c := range x.Catch {
			swap(&c.Next)
		}
	case *asl.Parallel:
		swap(&x.Next)
		for _, c := range x.Catch {
			swap(&c.Next)
		}
	case *asl.Map:
		swap(&x.Next)
		for _, c := range x.Catch {
			swap(&c.Next)
		}
	case *asl.Choice:
		for _, r := range x.Choices {
			swap(&r.Next)
		}
		swap(&x.Default)
	}
}

// rateGate returns the gate's states.
func (b builder) rateGate() asl.States {
	r := b.o.Rate
	t := gcra.Interval(r.PerSecond)
	g := gcraExpressions{interval: t, tolerance: time.Duration(r.Burst) * t, reject: r.Mode == RateReject}
	enteredMs := "$toMillis($states.context.State.EnteredTime)"
	// The Retake is dated with the Restart's now, which the failed Restart keeps in the data.
	keptMs := "$states.input." + dataRateNowMs
	retakeFailed := b.rateFailure(ErrorLockTable, "'the rate item of the lock ' & $states.input.lockName & ' went back in time between two writes: was it deleted or rewritten by hand?'")
	if g.reject {
		retakeFailed = b.rateFailure(ErrorRateLimited, fmt.Sprintf("'the rate of the lock ' & $states.input.lockName & ' (%g a second, burst %d) is spent; the slot was given back'", r.PerSecond, r.Burst))
	}
	takeFailed := &asl.Catcher{ErrorEquals: []string{ErrorConditionalCheckFailed}, Next: StateRestartRate, Output: "{% $states.input %}"}
	if g.reject {
		// Take's condition also fails when the rate is spent; Restart tells the cases apart.
		takeFailed.Comment = "the rate is idle, or spent (Reject)"
	}
	take := b.takePermit(g, enteredMs, takeFailed)
	take.Comment = rateComment(r)
	return asl.States{
		{Name: StateTakeRatePermit, State: take},
		{Name: StateRestartRate, State: b.restartRate(g)},
		{Name: StateRetakeRatePermit, State: b.takePermit(g, keptMs, retakeFailed)},
		{Name: StateWaitForRateSlot, State: &asl.Wait{
			Common:     asl.Common{QueryLanguage: asl.QueryLanguageJSONata},
			Transition: asl.Next(StateRunWork),
			Timestamp:  "{% $states.input." + dataRateSlot + " %}",
		}},
	}
}

// Members the gate adds to the execution's data.
const (
	// dataRateSlot is when Wait For Rate Slot ends, an RFC 3339 timestamp: the permit's time
	// rounded up to the whole second, or now.
	dataRateSlot = "rateSlot"
	// dataRatePermit is the permit's own time, max(now, TAT - Burst·T), to the millisecond
	// (rounded up): what the GCRA granted, kept for the record.
	dataRatePermit = "ratePermit"
	// dataRateNowMs is the time of the Restart, in Unix milliseconds.
	dataRateNowMs = "rateNowMs"
)

// gcraExpressions builds the gate's JSONata expressions for one rate. DynamoDB numbers are exact
// and JSONata's are doubles, so nanosecond values are written as strings: the milliseconds
// (exact in a double) followed by six digits.
type gcraExpressions struct {
	interval, tolerance time.Duration
	reject              bool
}

// nanos renders the nanosecond number msExpr milliseconds + offset as a DynamoDB number.
func nanos(msExpr string, offset time.Duration) map[string]any {
	ms, rest := offset/time.Millisecond, offset%time.Millisecond
	expr := msExpr
	if ms != 0 {
		expr = fmt.Sprintf("%s + %d", msExpr, ms)
	}
	return map[string]any{"N": fmt.Sprintf("{%% $string(%s) & '%06d' %%}", expr, rest)}
}

// slot is the expression of the time Wait For Rate Slot waits until after a successful Take:
// the permit's slot TAT - Burst·T (the TAT read from the update's result), or now when the slot
// has passed. A slot ahead is rounded up to the whole second: AWS Step Functions truncates a
// Wait's Timestamp to the second, which would otherwise end the wait early.
func (g gcraExpressions) slot(nowMs string) string {
	ms, rest := g.tolerance/time.Millisecond, g.tolerance%time.Millisecond
	return fmt.Sprintf("($tat := $states.result.Attributes.%s.N; $now := %s; "+
		"$slot := $number($substring($tat, 0, $length($tat) - 6)) - %d + $ceil(($number($substring($tat, $length($tat) - 6)) - %d) / 1000000); "+
		"{'%s': $fromMillis($slot <= $now ? $now : $ceil($slot / 1000) * 1000), '%s': $fromMillis($max([$slot, $now]))})",
		gcra.AttributeTAT, nowMs, ms, rest, dataRateSlot, dataRatePermit)
}

// takePermit is Take Rate Permit (or Retake, with nowMs the Restart's time): the additive update
// of a busy rate, going to failed when its condition fails.
func (b builder) takePermit(g gcraExpressions, nowMs string, failed *asl.Catcher) *asl.Task {
	condition := "#tat >= :now"
	values := map[string]any{":now": nanos(nowMs, 0), ":inc": map[string]any{"N": strconv.FormatInt(int64(g.interval), 10)}}
	if g.reject {
		condition = "#tat BETWEEN :now AND :max"
		values[":max"] = nanos(nowMs, g.tolerance-g.interval)
	}
	return &asl.Task{
		Common:     asl.Common{QueryLanguage: asl.QueryLanguageJSONata, Output: "{% $merge([$states.input, " + g.slot(nowMs) + "]) %}"},
		Transition: asl.Next(StateWaitForRateSlot),
		Resource:   ResourceUpdateItem,
		Arguments: map[string]any{
			"TableName":                 b.o.TableName,
			"Key":                       rateItemKey(),
			"UpdateExpression":          "SET #tat = #tat + :inc",
			"ConditionExpression":       condition,
			"ExpressionAttributeNames":  map[string]any{"#tat": gcra.AttributeTAT},
			"ExpressionAttributeValues": values,
			"ReturnValues":              "UPDATED_NEW",
		},
		Retry: transientRetry(),
		Catch: []*asl.Catcher{failed, b.rateFatalCatch()},
	}
}

// restartRate is Restart Rate: the update of an idle rate, whose permit is usable at once.
func (b builder) restartRate(g gcraExpressions) *asl.Task {
	nowMs := "$toMillis($states.context.State.EnteredTime)"
	return &asl.Task{
		Common:     asl.Common{QueryLanguage: asl.QueryLanguageJSONata, Output: "{% $states.input %}"},
		Transition: asl.Next(StateRunWork),
		Resource:   ResourceUpdateItem,
		Arguments: map[string]any{
			"TableName":                 b.o.TableName,
			"Key":                       rateItemKey(),
			"UpdateExpression":          "SET #tat = :new",
			"ConditionExpression":       "attribute_not_exists(#tat) OR #tat < :now",
			"ExpressionAttributeNames":  map[string]any{"#tat": gcra.AttributeTAT},
			"ExpressionAttributeValues": map[string]any{":now": nanos(nowMs, 0), ":new": nanos(nowMs, g.interval)},
		},
		Retry: transientRetry(),
		Catch: []*asl.Catcher{
			// Another execution made the rate busy since Take: retake, dated with this now.
			{ErrorEquals: []string{ErrorConditionalCheckFailed}, Next: StateRetakeRatePermit,
				Output: "{% $merge([$states.input, {'" + dataRateNowMs + "': " + nowMs + "}]) %}"},
			b.rateFatalCatch(),
		},
	}
}

// rateFailure is a catcher that gives the slot back and fails the execution with the named
// error and the cause expression, through the release after a failed work.
func (b builder) rateFailure(name, causeExpr string) *asl.Catcher {
	return &asl.Catcher{
		ErrorEquals: []string{ErrorConditionalCheckFailed},
		Next:        StateReleaseAfterFailure,
		Output:      fmt.Sprintf("{%% $merge([$states.input, {'workError': {'Error': '%s', 'Cause': %s}}]) %%}", name, causeExpr),
	}
}

// rateFatalCatch sends the errors no retry can fix to the release after a failed work, as
// ErrorLockTable with DynamoDB's cause: the execution holds a slot, which it gives back.
func (b builder) rateFatalCatch() *asl.Catcher {
	return &asl.Catcher{
		ErrorEquals: FatalDynamoDBErrors(),
		Next:        StateReleaseAfterFailure,
		Output:      "{% $merge([$states.input, {'workError': {'Error': '" + ErrorLockTable + "', 'Cause': $states.errorOutput.Cause}}]) %}",
	}
}

// rateCommentFormat is the Comment of Take Rate Permit: it states the rate, and SemaphoreRate
// reads it back.
const rateCommentFormat = "GCRA rate: %s permits a second, burst %d, mode %s"

// rateComment renders the rate as the Comment of Take Rate Permit.
func rateComment(r *RateOptions) string {
	return fmt.Sprintf(rateCommentFormat, strconv.FormatFloat(r.PerSecond, 'g', -1, 64), r.Burst, r.Mode)
}

// SemaphoreRate returns the Rate of a semaphore machine built by Semaphore, read from its
// definition, and whether it has one.
func SemaphoreRate(m *asl.StateMachine) (*RateOptions, bool) {
	take, ok := m.States.Get(StateTakeRatePermit).(*asl.Task)
	if !ok {
		return nil, false
	}
	var perSecond string
	r := &RateOptions{}
	if _, err := fmt.Sscanf(take.Comment, rateCommentFormat, &perSecond, &r.Burst, &r.Mode); err != nil {
		return nil, false
	}
	v, err := strconv.ParseFloat(perSecond, 64)
	if err != nil {
		return nil, false
	}
	r.PerSecond = v
	return r, true
}
