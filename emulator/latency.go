package emulator

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sync"
	"time"
)

// LatencyKind names a kind of AWS call whose latency the emulator models.
type LatencyKind int

// The kinds of AWS calls with a latency of their own.
const (
	// LatencyDynamoDB is a DynamoDB request (GetItem, UpdateItem, ...), from the client's side.
	LatencyDynamoDB LatencyKind = iota
	// LatencyLambdaInvoke is the overhead of a warm synchronous Lambda invoke, beyond the
	// handler's own time.
	LatencyLambdaInvoke
	// LatencyStateTransition is one state transition of a Standard workflow.
	LatencyStateTransition
	// LatencyEventDelivery is EventBridge's delivery of an event to a target.
	LatencyEventDelivery
	// LatencyStepFunctionsAPI is a Step Functions API request (StartExecution, SendTaskSuccess,
	// DescribeExecution, ...) from a Lambda function.
	LatencyStepFunctionsAPI
	latencyKinds
)

// latencyShape is a log-normal distribution: its median, the sigma of its logarithm, and a cap.
type latencyShape struct {
	median time.Duration
	sigma  float64
	max    time.Duration
}

// latencyShapes are the distributions of the AWS calls. The figures:
//   - DynamoDB: AWS documents "single-digit millisecond" latency for GetItem, PutItem and the
//     other single-item operations (knowledge-center article "DynamoDB high latency", and the
//     service's own description: "consistent, single-digit millisecond latency at any scale"):
//     median 5 ms, 95 % under about 10 ms.
//   - EventBridge: the first delivery attempt "is made as soon as the event arrives" (EventBridge
//     partner FAQ); AWS publishes no figure for the delay itself, so the model takes a median of
//     250 ms, a quarter to half a second being what users observe for rule-to-target delivery.
//   - Step Functions state transitions, Step Functions API calls and Lambda invokes have no
//     published latency figure; the model takes tens of milliseconds (medians 20, 30 and 20 ms),
//     the order of magnitude of any regional AWS API call.
//
// Every distribution is capped at a few times its median so that one draw never dominates a run.
var latencyShapes = [latencyKinds]latencyShape{
	LatencyDynamoDB:         {median: 5 * time.Millisecond, sigma: 0.4, max: 25 * time.Millisecond},
	LatencyLambdaInvoke:     {median: 20 * time.Millisecond, sigma: 0.4, max: 100 * time.Millisecond},
	LatencyStateTransition:  {median: 20 * time.Millisecond, sigma: 0.4, max: 100 * time.Millisecond},
	LatencyEventDelivery:    {median: 250 * time.Millisecond, sigma: 0.5, max: 2 * time.Second},
	LatencyStepFunctionsAPI: {median: 30 * time.Millisecond, sigma: 0.4, max: 150 * time.Millisecond},
}

// Latency is the seeded latency model of AWS calls: each Draw returns how long one call of a
// kind takes, from a log-normal distribution per kind (see latencyShapes for the figures and
// their sources). Under a skipping clock the emulator's own processing costs no virtual time, so
// the makespan and hand-off figures of a run come from this model and the work's sleeps. A nil
// *Latency draws 0 for every call. It is safe for concurrent use.
//
// A draw depends on the seed, the kind, a key naming the call (the request, the flow and step)
// and how many calls with that key came before, never on the order in which goroutines happen
// to draw: calls made at one virtual instant by concurrent goroutines get the same latencies
// in every run.
type Latency struct {
	seed uint64
	mu   sync.Mutex
	seen map[uint64]uint64 // calls so far per hash of kind and key
}

// NewLatency returns the latency model seeded with seed.
func NewLatency(seed uint64) *Latency {
	return &Latency{seed: seed, seen: map[uint64]uint64{}}
}

// Draw returns the latency of one call of the kind named by key.
func (l *Latency) Draw(kind LatencyKind, key string) time.Duration {
	if l == nil || kind < 0 || kind >= latencyKinds {
		return 0
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%s", kind, key)
	id := h.Sum64()
	l.mu.Lock()
	n := l.seen[id]
	l.seen[id] = n + 1
	l.mu.Unlock()
	z := rand.New(rand.NewPCG(l.seed^id, n)).NormFloat64()
	shape := latencyShapes[kind]
	d := time.Duration(float64(shape.median) * math.Exp(shape.sigma*z))
	return min(max(d, 0), shape.max)
}

// callerKey is the context key of WithCaller.
type callerKey struct{}

// WithCaller names, in ctx, the call a handler serves (its function and payload, say), so that
// the AWS requests the handler makes draw latencies keyed by their caller too (CallerOf): two
// handlers running at one virtual instant that send the same request then get latencies of
// their own, whichever goroutine sends first, and a run replays.
func WithCaller(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, callerKey{}, key)
}

// CallerOf returns the caller named by WithCaller in ctx, or "".
func CallerOf(ctx context.Context) string {
	key, _ := ctx.Value(callerKey{}).(string)
	return key
}
