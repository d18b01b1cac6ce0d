package faultproxy

import (
	"math/rand/v2"
	"slices"
	"sync"
)

// Fault is the fate of one request.
type Fault int

// The fates of a request.
const (
	// Pass forwards the request and returns its reply.
	Pass Fault = iota
	// AppliedReplyLost forwards the request, then resets the connection instead of replying.
	AppliedReplyLost
	// LostBefore resets the connection without forwarding the request.
	LostBefore
	// Throttled answers with a throttling error without forwarding the request.
	Throttled
)

// String names the fault.
func (f Fault) String() string {
	switch f {
	case Pass:
		return "pass"
	case AppliedReplyLost:
		return "applied-reply-lost"
	case LostBefore:
		return "lost-before"
	case Throttled:
		return "throttled"
	default:
		return "unknown-fault"
	}
}

// dice decides the fate of each selected request from a seeded random source.
type dice struct {
	config Config
	mu     sync.Mutex
	random *rand.Rand
}

func newDice(c Config) *dice {
	return &dice{config: c, random: rand.New(rand.NewPCG(c.Seed, c.Seed^0x9e3779b97f4a7c15))}
}

// roll returns the fate of a request to target (the X-Amz-Target header, e.g.
// "DynamoDB_20120810.UpdateItem").
func (d *dice) roll(target string) Fault {
	if !d.selects(target) {
		return Pass
	}
	d.mu.Lock()
	u := d.random.Float64()
	d.mu.Unlock()
	c := d.config
	switch {
	case u < c.AppliedReplyLost:
		return AppliedReplyLost
	case u < c.AppliedReplyLost+c.LostBefore:
		return LostBefore
	case u < c.AppliedReplyLost+c.LostBefore+c.Throttled:
		return Throttled
	default:
		return Pass
	}
}

// selects reports whether the request's operation is one the faults apply to.
func (d *dice) selects(target string) bool {
	if len(d.config.Operations) == 0 {
		return true
	}
	return slices.Contains(d.config.Operations, operation(target))
}
