package eventbus

import "time"

// Delivery is one event about to be handed to one target of one matching rule.
type Delivery struct {
	// Sequence numbers deliveries in the order the bus planned them, from 1.
	Sequence uint64
	// Event is the event.
	Event Event
	// RuleName is the matching rule.
	RuleName string
	// TargetID is the target's ID within the rule.
	TargetID string
}

// DeliveryPolicy decides the fate of each delivery, so that tests can reproduce what
// EventBridge's best-effort, unordered delivery allows: lost, duplicated, delayed and
// reordered events. Plan returns one entry per copy to deliver, each the delay before that
// copy's first attempt: nil drops the delivery, two entries duplicate it, and unequal delays
// across deliveries reorder them. Every copy is retried on its own per the target's policy.
// Plan may be called from several goroutines at once.
type DeliveryPolicy interface {
	Plan(d Delivery) []time.Duration
}

// DeliveryPolicyFunc adapts a function to DeliveryPolicy.
type DeliveryPolicyFunc func(d Delivery) []time.Duration

// Plan calls f(d).
func (f DeliveryPolicyFunc) Plan(d Delivery) []time.Duration { return f(d) }

// DeliverOnce is the default policy: every delivery once, at once.
var DeliverOnce DeliveryPolicy = DeliveryPolicyFunc(func(Delivery) []time.Duration {
	return []time.Duration{0}
})
