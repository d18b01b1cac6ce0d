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
//     executions do not conflict.
//   - Restart Rate, on a failed condition: the rate was idle (TAT behind now, or no item yet):
//     SET tat = now + T on condition tat < now or no tat.
//   - Retake Rate Permit, when that fails too: another execution restarted the rate in between,
//     so the TAT is at or after the Restart's now and Take's condition, dated with that now,
//     can only fail in Reject mode, when the rate is spent: the execution gives its slot back
//     and fails with ErrorRateLimited.
//
// A busy rate costs one write per permit, an idle one two, a race three; every state runs at
// most once per execution, so the gate has no loop.
//
// Permit, admission, entry. Write n for a decision's now, v for the TAT its write leaves and
// B for Burst. The permit, what the GCRA granted, is p = max(n, v − B·T), the library's
// (ratelimit) slot for the same write. The admission is when the gate lets the execution go:
// the end of Wait For Rate Slot (or of Restart Rate, which goes straight to the work in Reject
// mode). The entry is Run Work's start, one state transition later. Two facts hold for every
// permit, whatever the order in which concurrent writes land: (1) v >= n + T (Take's condition
// tat >= n; Restart sets n + T), and (2) the TATs that successive writes leave are at least T
// apart (an addition of T; a Restart raises a TAT below n to n + T). So v ∈ [p + T, p + B·T]
// and the permits are exactly GCRA-conformant: any k of them within L seconds have
// (k−1)·T <= L + (B−1)·T.
//
// AWS Step Functions truncates a Wait's Timestamp to the second ("Step Functions considers the
// time value up to seconds and truncates milliseconds"), so a Wait can only end at a whole
// second: waiting until p itself would end the wait early. Rounding p up to the second, as the
// gate once did (a = p at once, else ⌈p⌉), is not enough: an idle rate could then admit at
// once, within the second after a whole second that released the permits of the second before
// (the TAT does not hold the rounding), and 2/s with burst 1 could admit 4 within one second
// (permits at 0.1 and 0.6 released together at 1.0, then permits of a rate gone idle admitted at
// once at 1.2 and 1.7: 4 in [1, 2), over the bound of 3).
// The gate therefore decides the admission from the TAT, not from the permit:
//
//	Delay: a = max(n, ⌈v − B·T⌉), ⌈·⌉ rounding up to the whole second
//
// (the Wait's Timestamp; a timestamp already passed ends the Wait at once). An execution is
// admitted at once only when its permit was due at the last whole second, else at the first
// whole second at or after it. The bound: let W be a whole number of seconds, t any time,
// m = ⌈t⌉. An admission in [t, t+W) at a whole second (a = ⌈v − B·T⌉ > n) has
// v − B·T ∈ (m−1, m+W−1]; one at once (a = n >= ⌈v − B·T⌉, a whole number) has
// v − B·T <= ⌊n⌋ <= m+W−1 and, by (1), v >= n + T >= t + T > m − 1 + T. Every such v lies in
// (m − 1 + T, m + W − 1 + B·T], a half-open interval of W + (B−1)·T seconds that by (2) holds at
// most ⌈W/T⌉ + B − 1 of them: the GCRA's own bound for [t, t+W), at most floor(W/T) + B.
// With B = 1 no admission is at once (⌈v − T⌉ > n unless n is a whole second): every admission,
// an idle rate's first too, waits for the next whole second (0.5 s on average).
//
//	Reject: a = n, since the condition makes v <= n + B·T: v ∈ [n + T, n + B·T], the same bound
//	for any W.
//
// What the bound leaves out: an admission at once happens its write's reply and a transition
// after n (AWS's Wait ends at, or shortly after, its second), which widens the interval by that
// lag λ: ⌈(W + λ)/T⌉ + B − 1, still floor(W/T) + B while λ < T for a whole W/T; a write retried
// after a transient error keeps its n (the state's entered time) and may land seconds later.
// Exact conformance of the admissions themselves is out of reach at full rate: GCRA(T, B)
// admits at most B at one instant, and when the rate is busy the Wait releases about PerSecond
// executions at each whole second, so with Burst below PerSecond the admissions conform only to
// a larger burst (at most B + ⌈PerSecond⌉: a ∈ [v − B·T, v − T + 1 s)). Charging the rounding to
// the TAT (TAT = max(TAT, a) + T) would make them conform, but it is not additive (the
// increment depends on the TAT: a compare-and-set on the value read, which concurrent
// executions make fail and retry) and at Burst 1 it halves a rate of 2 a second (one admission
// per whole second); the Go library's GCRA would then no longer be the same algorithm on the
// same item.

// RateMode says what the Rate gate does with an execution that comes too early.
type RateMode string

// The Rate modes.
const (
	// RateDelay makes the execution wait, in a Wait state, until the first whole second at or
	// after its permit's time (AWS waits to the second), or not at all when the permit was due
	// at the last whole second.
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

// RateOptions limits how often executions enter the work: the gate admits at most
// PerSecond·W + Burst executions within any window of W whole seconds (GCRA), per lock name, and
// each enters the work one state transition after its admission. Nil means no limit.
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
	// dataRateSlot is when Wait For Rate Slot ends, the admission, an RFC 3339 timestamp: a
	// whole second, or now (see admission).
	dataRateSlot = "rateSlot"
	// dataRatePermit is the permit's own time, max(now, TAT - Burst·T), to the millisecond
	// (rounded up): what the GCRA granted, kept for the record (turnstile simulate reads it).
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

// slot is the expression of the data a successful Take adds: the permit, max(now, TAT - Burst·T)
// rounded up to the millisecond (the TAT read from the update's result), and the admission
// the Wait waits until (see admission).
func (g gcraExpressions) slot(nowMs string) string {
	ms, rest := g.tolerance/time.Millisecond, g.tolerance%time.Millisecond
	return fmt.Sprintf("($tat := $states.result.Attributes.%s.N; $now := %s; "+
		"$slot := $number($substring($tat, 0, $length($tat) - 6)) - %d + $ceil(($number($substring($tat, $length($tat) - 6)) - %d) / 1000000); "+
		"{'%s': %s, '%s': $fromMillis($max([$slot, $now]))})",
		gcra.AttributeTAT, nowMs, ms, rest, dataRateSlot, g.admission(), dataRatePermit)
}

// admission is the expression of Wait For Rate Slot's Timestamp from $now (the decision's time)
// and $slot (TAT - Burst·T, rounded up to the millisecond), both in Unix milliseconds. Delay:
// max(now, the slot rounded up to the whole second), the admission the comment at the top of
// this file proves within the GCRA's bound; a timestamp already passed ends the Wait at once.
// Reject: now (the Take's condition keeps the slot at or before now).
func (g gcraExpressions) admission() string {
	if g.reject {
		return "$fromMillis($now)"
	}
	return "$fromMillis($max([$now, $ceil($slot / 1000) * 1000]))"
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

// restartRate is Restart Rate: the update of an idle rate, whose permit is its now. In Delay mode
// its admission is decided as Take's is, from the TAT it writes (now + T), so it goes through
// Wait For Rate Slot; in Reject mode the work starts at once.
func (b builder) restartRate(g gcraExpressions) *asl.Task {
	nowMs := "$toMillis($states.context.State.EnteredTime)"
	output, next := "{% $states.input %}", StateRunWork
	if !g.reject {
		// TAT - Burst·T = now - (Burst-1)·T, rounded up to the millisecond.
		slot := "$now"
		if early := (g.tolerance - g.interval) / time.Millisecond; early > 0 {
			slot = fmt.Sprintf("$now - %d", early)
		}
		output = fmt.Sprintf("{%% $merge([$states.input, ($now := %s; $slot := %s; {'%s': %s, '%s': $fromMillis($now)})]) %%}",
			nowMs, slot, dataRateSlot, g.admission(), dataRatePermit)
		next = StateWaitForRateSlot
	}
	return &asl.Task{
		Common:     asl.Common{QueryLanguage: asl.QueryLanguageJSONata, Output: output},
		Transition: asl.Next(next),
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
