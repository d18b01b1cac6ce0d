package eventbus

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"
)

// TargetFunc receives an event delivered to a target. A nil error acknowledges it; an error
// makes the bus retry per the target's policy (or stop at once, for an error wrapped with
// Permanent). The event is shared with the rule's other targets: treat it as read-only.
type TargetFunc func(ctx context.Context, event Event) error

// Target is one target of a rule.
type Target struct {
	// ID identifies the target within its rule. Required.
	ID string
	// ARN names the target resource; it is reported in dead letters. Default: "".
	ARN string
	// Invoke delivers an event. Required.
	Invoke TargetFunc
	// Retry bounds retries. Default: DefaultRetryPolicy().
	Retry *RetryPolicy
	// DeadLetterQueueARN is the target's dead-letter queue, reported in dead letters.
	// Default: "" (none: EventBridge would drop undeliverable events).
	DeadLetterQueueARN string
}

// Rule routes the events its pattern matches to its targets.
type Rule struct {
	// Name identifies the rule on the bus. Required.
	Name string
	// Pattern selects events. Required.
	Pattern *Pattern
	// Targets receive the matching events. Default: none.
	Targets []Target
	// Disabled stops the rule from matching. Default: false (enabled).
	Disabled bool
}

// Options configure a Bus.
type Options struct {
	// Clock paces delays and retries. Default: SystemClock().
	Clock Clock
	// Latency, when set, draws the delay of each delivery to a target (EventBridge's own
	// latency), added to the policy's; key names the delivery (its rule, target and event detail,
	// not the event's random ID). Default: nil, no delay.
	Latency func(key string) time.Duration
	// Policy decides how each delivery is carried out. Default: DeliverOnce.
	Policy DeliveryPolicy
	// DeadLetters receives undeliverable events. Default: they are discarded.
	DeadLetters DeadLetterSink
	// Backoff shapes the waits between retries. Default: Backoff{} (see its fields).
	Backoff Backoff
	// Seed seeds the backoff jitter. Default: 0.
	Seed uint64
}

// Bus is a local EventBridge event bus: rules match published events and their targets receive
// them asynchronously, in no guaranteed order, with EventBridge's retry and dead-letter
// behaviour. It is safe for concurrent use.
type Bus struct {
	clock       Clock
	latency     func(key string) time.Duration
	policy      DeliveryPolicy
	deadLetters DeadLetterSink
	backoff     *jitteredBackoff

	ctx    context.Context // ended when Close gives up waiting
	cancel context.CancelFunc

	mu       sync.Mutex
	rules    map[string]Rule
	closed   bool
	sequence uint64
	inflight int
	idle     chan struct{} // closed while inflight == 0
}

// New returns an empty bus.
func New(opts Options) *Bus {
	if opts.Clock == nil {
		opts.Clock = SystemClock()
	}
	if opts.Policy == nil {
		opts.Policy = DeliverOnce
	}
	if opts.DeadLetters == nil {
		opts.DeadLetters = func(DeadLetter) {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	idle := make(chan struct{})
	close(idle)
	return &Bus{
		clock:       opts.Clock,
		latency:     opts.Latency,
		policy:      opts.Policy,
		deadLetters: opts.DeadLetters,
		backoff:     newJitteredBackoff(opts.Backoff, opts.Seed),
		ctx:         ctx,
		cancel:      cancel,
		rules:       map[string]Rule{},
		idle:        idle,
	}
}

// PutRule adds a rule, or replaces the rule of the same name.
func (b *Bus) PutRule(rule Rule) error {
	if err := rule.validate(); err != nil {
		return err
	}
	rule.Targets = append([]Target(nil), rule.Targets...)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return fmt.Errorf("eventbus: PutRule %s: %w", rule.Name, ErrBusClosed)
	}
	b.rules[rule.Name] = rule
	return nil
}

// validate checks that a rule can be registered.
func (r Rule) validate() error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("eventbus: rule %q: %w: %s", r.Name, ErrInvalidRule, fmt.Sprintf(format, args...))
	}
	if r.Name == "" {
		return fail("a name is required")
	}
	if r.Pattern == nil {
		return fail("a pattern is required")
	}
	seen := map[string]bool{}
	for _, t := range r.Targets {
		if t.ID == "" || t.Invoke == nil {
			return fail("target %q needs an ID and an Invoke function", t.ID)
		}
		if seen[t.ID] {
			return fail("duplicate target ID %q", t.ID)
		}
		seen[t.ID] = true
		if t.Retry != nil {
			if err := t.Retry.validate(); err != nil {
				return fail("target %q: %v", t.ID, err)
			}
		}
	}
	return nil
}

// RemoveRule deletes a rule; it reports whether the rule existed. Deliveries already under
// way continue.
func (b *Bus) RemoveRule(name string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, ok := b.rules[name]
	delete(b.rules, name)
	return ok
}

// Publish puts an event on the bus. It returns once every delivery to the targets of the
// matching rules is planned; the deliveries run in the background (see Drain). The context's
// values, not its cancellation, are passed on to the targets.
func (b *Bus) Publish(ctx context.Context, event Event) error {
	event, err := event.validate()
	if err != nil {
		return err
	}
	decoded, err := toJSONValue(event)
	fields, isObject := decoded.(map[string]any)
	if err != nil || !isObject {
		return fmt.Errorf("eventbus: %w: the event does not encode as a JSON object", ErrInvalidEvent)
	}
	received := b.clock.Now()
	deliveries, err := b.plan(event, fields)
	if err != nil {
		return err
	}
	for _, d := range deliveries {
		for _, delay := range b.policy.Plan(d.Delivery) {
			b.start(ctx, d, received, delay)
		}
	}
	b.finish(len(deliveries))
	return nil
}

// plannedDelivery is a delivery with the target it goes to.
type plannedDelivery struct {
	Delivery
	target Target
}

// plan lists the deliveries an event causes, rules in name order and targets in rule order,
// and reserves them in the in-flight count so that Drain cannot miss them.
func (b *Bus) plan(event Event, decoded map[string]any) ([]plannedDelivery, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, fmt.Errorf("eventbus: Publish: %w", ErrBusClosed)
	}
	names := make([]string, 0, len(b.rules))
	for name := range b.rules {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []plannedDelivery
	for _, name := range names {
		rule := b.rules[name]
		if rule.Disabled || !rule.Pattern.matchDecoded(decoded) {
			continue
		}
		for _, target := range rule.Targets {
			b.sequence++
			out = append(out, plannedDelivery{
				Delivery: Delivery{Sequence: b.sequence, Event: event, RuleName: name, TargetID: target.ID},
				target:   target,
			})
		}
	}
	b.addInflightLocked(len(out))
	return out, nil
}

// start runs one copy of a delivery in the background.
func (b *Bus) start(ctx context.Context, d plannedDelivery, received time.Time, delay time.Duration) {
	b.mu.Lock()
	b.addInflightLocked(1)
	b.mu.Unlock()
	deliveryCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(b.ctx, cancel)
	b.clock.Go(func() {
		defer b.finish(1)
		defer cancel()
		defer stop()
		b.deliver(deliveryCtx, d, received, delay)
	})
}

// addInflightLocked counts n more deliveries in flight; b.mu must be held.
func (b *Bus) addInflightLocked(n int) {
	if n > 0 && b.inflight == 0 {
		b.idle = make(chan struct{})
	}
	b.inflight += n
}

// finish counts n deliveries (or planning reservations) as done.
func (b *Bus) finish(n int) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.inflight -= n
	if b.inflight == 0 {
		close(b.idle)
	}
}

// deliver hands one copy of an event to its target, retrying per the target's policy, and
// gives it to the dead-letter sink if it cannot be delivered.
func (b *Bus) deliver(ctx context.Context, d plannedDelivery, received time.Time, delay time.Duration) {
	policy := DefaultRetryPolicy()
	if d.target.Retry != nil {
		policy = *d.target.Retry
	}
	deadLetter := func(reason string, retries int, err error) {
		b.deadLetters(DeadLetter{
			Event:         d.Event,
			RuleName:      d.RuleName,
			TargetID:      d.target.ID,
			TargetARN:     d.target.ARN,
			QueueARN:      d.target.DeadLetterQueueARN,
			Reason:        reason,
			RetryAttempts: retries,
			Err:           err,
		})
	}
	if b.latency != nil {
		delay += b.latency(d.RuleName + "\x00" + d.target.ID + "\x00" + string(d.Event.Detail))
	}
	if err := b.clock.Sleep(ctx, delay); err != nil {
		deadLetter(ReasonBusClosed, 0, err)
		return
	}
	var lastErr error
	for attempt := 1; ; attempt++ {
		if b.clock.Now().Sub(received) > policy.MaximumEventAge {
			if lastErr == nil {
				lastErr = fmt.Errorf("event older than %v", policy.MaximumEventAge)
			}
			deadLetter(ReasonEventAgeExhausted, max(attempt-2, 0), lastErr)
			return
		}
		lastErr = d.target.Invoke(ctx, d.Event)
		retries := attempt - 1
		switch {
		case lastErr == nil:
			return
		case isPermanent(lastErr):
			deadLetter(ReasonPermanentFailure, retries, lastErr)
			return
		case retries >= policy.MaximumRetryAttempts:
			deadLetter(ReasonRetryAttemptsExhausted, retries, lastErr)
			return
		}
		if err := b.clock.Sleep(ctx, b.backoff.wait(retries)); err != nil {
			deadLetter(ReasonBusClosed, retries, err)
			return
		}
	}
}

// Drain waits until no delivery is in flight (retries included), or returns ctx's error.
func (b *Bus) Drain(ctx context.Context) error {
	b.mu.Lock()
	idle := b.idle
	b.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops the bus accepting events and rules and waits for in-flight deliveries. If ctx
// ends first, Close cancels the remaining deliveries (their targets see a cancelled context and
// their events go to the dead-letter sink with ReasonBusClosed), waits for them to return, and
// returns ctx's error. Close is idempotent.
func (b *Bus) Close(ctx context.Context) error {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	err := b.Drain(ctx)
	b.cancel()
	if err != nil {
		b.mu.Lock()
		idle := b.idle
		b.mu.Unlock()
		<-idle
	}
	return err
}
