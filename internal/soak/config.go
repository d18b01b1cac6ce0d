package soak

import (
	"errors"
	"fmt"
	"time"

	"github.com/turnstile-sfn/turnstile/internal/semcheck"
)

// ErrInvalidConfig reports a Config that Run cannot use.
var ErrInvalidConfig = errors.New("soak: invalid config")

// Strategy is the protocol a soak drives: the Poll machine's or the Callback strategy's queue.
type Strategy string

// The strategies.
const (
	// StrategyPoll drives the Poll machine's acquire, read-back and release tasks
	// (semcheck.LockClient), with crashes, the cleanup and the reconciler, and checks the
	// histories against semcheck.Model.
	StrategyPoll Strategy = "poll"
	// StrategyCallback drives the queue protocol (lock.Client: Park with a ticket from
	// DrawTicket, Release, Leave) and checks the histories against semcheck.QueueModel, a FIFO
	// counting semaphore. Its executions do not crash: the crash fields and the events' do not
	// apply.
	StrategyCallback Strategy = "callback"
)

// Config is one soak: Seeds runs of the randomized mix, each against a fresh lock.
type Config struct {
	// Strategy is the protocol driven. Default (""): StrategyPoll.
	Strategy Strategy
	// Seeds is the number of seeds run, FirstSeed, FirstSeed+1, …
	Seeds int
	// FirstSeed is the first seed.
	FirstSeed uint64
	// Pairs is the number of acquire/release pairs per seed, shared by the goroutines.
	Pairs int
	// Goroutines is the number of clients running pairs at once.
	Goroutines int
	// Limit is the lock's limit of holders.
	Limit int
	// ReplyLost is the fraction of DynamoDB requests applied whose reply is lost.
	ReplyLost float64
	// LostBefore is the fraction of DynamoDB requests lost before they arrive.
	LostBefore float64
	// Throttled is the fraction of DynamoDB requests answered with a throttling error.
	Throttled float64
	// CrashHolding is the chance that a client crashes right after it acquired: it never
	// releases, and only its cleanup event or the reconciler frees the slot.
	CrashHolding float64
	// CrashAfterLostReply is the chance that a client crashes right after a lost reply, leaving
	// its operation's outcome unknown.
	CrashAfterLostReply float64
	// DropEvents is the fraction of cleanup events the event bus drops.
	DropEvents float64
	// DupEvents is the fraction of cleanup events the event bus delivers twice.
	DupEvents float64
	// AcquireAttempts bounds the acquire attempts of one pair while the lock is full; then the
	// pair gives up (its execution would fail with the acquire timeout).
	AcquireAttempts int
	// SegmentPairs is the number of pairs between two quiescent points: there every client is
	// idle, the event bus is drained, a reconciler pass runs and the history so far is checked.
	// The check's cost grows fast with the operations of unknown outcome a segment holds: at
	// 20 % of the replies lost, 250 pairs made 5 of 200 checks run out of a minute, 100 pairs 2
	// of 500; hence the default of 30.
	SegmentPairs int
	// CheckTimeout bounds the linearizability check of one segment (0: no bound); a check that
	// runs out of time counts as inconclusive, a failure.
	CheckTimeout time.Duration
	// Variant is the semaphore's protocol; a broken one shows that the soak catches it
	// (StrategyPoll).
	Variant semcheck.Variant
	// QueueNewestFirst breaks the queue protocol on purpose, to show the checks catch it: the
	// clients read the queue from its newest end (StrategyCallback).
	QueueNewestFirst bool
	// QueuePriorityAgeing, above 0, gives every execution a random priority (lock.MinPriority
	// to lock.MaxPriority) that it parks with, under lock.Place with this ageing step; the
	// histories record its place, so the FIFO model checks the priorities' order and bound
	// (StrategyCallback). Default: 0, no priorities.
	QueuePriorityAgeing int64
	// QueueWeights, above 0, gives every execution a random weight from 1 to QueueWeights (at
	// most Limit) that it parks with (weighted permits); the histories are checked against the
	// queue model with the weights (semcheck.WithWeights) (StrategyCallback). Default: 0, one
	// slot each.
	QueueWeights int
	// QueueParkUnordered breaks the queue protocol on purpose, to show the checks of
	// priorities and weights catch it: executions park with their bare ticket and one slot
	// each, while the histories record their place (QueuePriorityAgeing) and weight
	// (QueueWeights), so the lock admits them in an order, or with weights, the queue model
	// does not expect (StrategyCallback).
	QueueParkUnordered bool
	// LeaveRate is the chance that a queued execution gives up waiting at once (within 2 ms)
	// and leaves the queue (StrategyCallback).
	LeaveRate float64
	// WaitTimeout is how long a queued execution waits for its wake-up before it leaves; one
	// that waits that long counts as stranded, a failure (StrategyCallback).
	WaitTimeout time.Duration
	// KeepFailing, when not empty, is a directory where every segment history that fails its
	// check (or whose check runs out of time) is written down, as
	// seed-<seed>-executions-<from>-<to>.json (semcheck.QueueHistory, to read back and check
	// again) and .html (porcupine's drawing of it) (StrategyCallback). Default: "", none kept.
	KeepFailing string
}

// DefaultConfig is the target of issue 6: 20 seeds × 2,500 pairs, 5 % of the DynamoDB requests
// applied with their reply lost and 2.5 % lost before, 1 % throttled, 5 % of the cleanup events
// dropped and 30 % duplicated, 8 clients on a lock of limit 3.
func DefaultConfig() Config {
	return Config{
		Seeds:               20,
		FirstSeed:           1,
		Pairs:               2500,
		Goroutines:          8,
		Limit:               3,
		ReplyLost:           0.05,
		LostBefore:          0.025,
		Throttled:           0.01,
		CrashHolding:        0.01,
		CrashAfterLostReply: 0.2,
		DropEvents:          0.05,
		DupEvents:           0.30,
		AcquireAttempts:     200,
		SegmentPairs:        30,
		CheckTimeout:        time.Minute,
		LeaveRate:           0.05,
		WaitTimeout:         30 * time.Second,
	}
}

// DefaultQueueConfig is DefaultConfig for the queue protocol: 20 seeds × 2,500 executions,
// 10 clients on a lock of limit 3, so that several waiters are queued at every moment.
func DefaultQueueConfig() Config {
	c := DefaultConfig()
	c.Strategy = StrategyCallback
	c.Goroutines = 10
	c.CrashHolding, c.CrashAfterLostReply, c.DropEvents, c.DupEvents = 0, 0, 0, 0
	return c
}

// Validate checks the figures and fractions; it returns an error wrapping ErrInvalidConfig.
func (c Config) Validate() error {
	counts := []struct {
		name  string
		value int
	}{
		{"Seeds", c.Seeds}, {"Pairs", c.Pairs}, {"Goroutines", c.Goroutines}, {"Limit", c.Limit},
		{"AcquireAttempts", c.AcquireAttempts}, {"SegmentPairs", c.SegmentPairs},
	}
	for _, n := range counts {
		if n.value < 1 {
			return fmt.Errorf("%w: %s must be at least 1, got %d", ErrInvalidConfig, n.name, n.value)
		}
	}
	fractions := []struct {
		name  string
		value float64
	}{
		{"ReplyLost", c.ReplyLost}, {"LostBefore", c.LostBefore}, {"Throttled", c.Throttled},
		{"CrashHolding", c.CrashHolding}, {"CrashAfterLostReply", c.CrashAfterLostReply},
		{"DropEvents", c.DropEvents}, {"DupEvents", c.DupEvents}, {"LeaveRate", c.LeaveRate},
	}
	for _, f := range fractions {
		if !(f.value >= 0 && f.value <= 1) {
			return fmt.Errorf("%w: %s must be within [0, 1], got %v", ErrInvalidConfig, f.name, f.value)
		}
	}
	if sum := c.ReplyLost + c.LostBefore + c.Throttled; sum > 1 {
		return fmt.Errorf("%w: ReplyLost + LostBefore + Throttled must be at most 1, got %v", ErrInvalidConfig, sum)
	}
	if c.DropEvents+c.DupEvents > 1 {
		return fmt.Errorf("%w: DropEvents + DupEvents must be at most 1, got %v", ErrInvalidConfig, c.DropEvents+c.DupEvents)
	}
	if c.Strategy != "" && c.Strategy != StrategyPoll && c.Strategy != StrategyCallback {
		return fmt.Errorf("%w: Strategy must be %q or %q, got %q", ErrInvalidConfig, StrategyPoll, StrategyCallback, c.Strategy)
	}
	if c.Strategy == StrategyCallback && c.WaitTimeout <= 0 {
		return fmt.Errorf("%w: WaitTimeout must be positive, got %v", ErrInvalidConfig, c.WaitTimeout)
	}
	if c.KeepFailing != "" && c.Strategy != StrategyCallback {
		return fmt.Errorf("%w: KeepFailing keeps the queue soak's histories: it needs Strategy %q", ErrInvalidConfig, StrategyCallback)
	}
	if c.CheckTimeout < 0 {
		return fmt.Errorf("%w: CheckTimeout must not be negative, got %v", ErrInvalidConfig, c.CheckTimeout)
	}
	return nil
}
