package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/turnstile-sfn/turnstile/internal/soak"
)

// options is the command line: the soak's config and the output format.
type options struct {
	config soak.Config
	json   bool
}

// halfOfReplyLost is the default of --lost-before: half of --reply-lost.
const halfOfReplyLost = -1

// parseOptions reads the command line; the defaults are soak.DefaultConfig, or
// soak.DefaultQueueConfig with --strategy callback.
func parseOptions(args []string, stderr io.Writer) (options, error) {
	o := options{config: soak.DefaultConfig()}
	c := &o.config
	fs := flag.NewFlagSet("soak", flag.ContinueOnError)
	fs.SetOutput(stderr)
	strategy := fs.String("strategy", string(soak.StrategyPoll), `the protocol soaked: "poll" (the Poll machine's tasks) or "callback" (the queue, lock.Client)`)
	fs.Float64Var(&c.LeaveRate, "leave-rate", c.LeaveRate, "chance that a queued execution gives up waiting at once and leaves (callback)")
	fs.DurationVar(&c.WaitTimeout, "wait-timeout", c.WaitTimeout, "how long a queued execution waits for its wake-up before it leaves, counted as stranded (callback)")
	fs.IntVar(&c.Seeds, "seeds", c.Seeds, "number of seeds")
	fs.Uint64Var(&c.FirstSeed, "first-seed", c.FirstSeed, "first seed")
	fs.IntVar(&c.Pairs, "pairs", c.Pairs, "acquire/release pairs per seed")
	fs.IntVar(&c.Goroutines, "goroutines", c.Goroutines, "clients running pairs at once")
	fs.IntVar(&c.Limit, "limit", c.Limit, "the lock's limit of holders")
	fs.Float64Var(&c.ReplyLost, "reply-lost", c.ReplyLost, "fraction of DynamoDB requests applied whose reply is lost")
	lostBefore := fs.Float64("lost-before", halfOfReplyLost, "fraction of DynamoDB requests lost before they arrive (default: half of --reply-lost)")
	fs.Float64Var(&c.Throttled, "throttled", c.Throttled, "fraction of DynamoDB requests throttled")
	fs.Float64Var(&c.CrashHolding, "crash-holding", c.CrashHolding, "chance that a client crashes right after acquiring")
	fs.Float64Var(&c.CrashAfterLostReply, "crash-after-lost-reply", c.CrashAfterLostReply, "chance that a client crashes right after a lost reply")
	fs.Float64Var(&c.DropEvents, "drop-events", c.DropEvents, "fraction of cleanup events dropped")
	fs.Float64Var(&c.DupEvents, "dup-events", c.DupEvents, "fraction of cleanup events duplicated")
	fs.IntVar(&c.SegmentPairs, "segment", c.SegmentPairs, "pairs between two quiescent points (reconciler pass and history check)")
	fs.DurationVar(&c.CheckTimeout, "check-timeout", c.CheckTimeout, "time limit of the linearizability check of one segment")
	fs.StringVar(&c.KeepFailing, "keep-failing", c.KeepFailing, "a directory where every failing segment history of the queue soak is written down (JSON and porcupine's HTML drawing) (callback)")
	fs.BoolVar(&o.json, "json", false, "print the figures as one JSON object")
	if err := fs.Parse(args); err != nil {
		return options{}, err
	}
	if fs.NArg() > 0 {
		return options{}, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	c.Strategy = soak.Strategy(*strategy)
	if c.Strategy == soak.StrategyCallback {
		queueDefaults(fs, c)
	}
	c.LostBefore = *lostBefore
	if c.LostBefore == halfOfReplyLost {
		c.LostBefore = c.ReplyLost / 2
	}
	return o, nil
}

// queueDefaults sets the fields whose default differs for the queue soak to
// soak.DefaultQueueConfig's, unless their flag was given.
func queueDefaults(fs *flag.FlagSet, c *soak.Config) {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	q := soak.DefaultQueueConfig()
	fields := []struct {
		flag string
		set  func()
	}{
		{"goroutines", func() { c.Goroutines = q.Goroutines }},
		{"crash-holding", func() { c.CrashHolding = q.CrashHolding }},
		{"crash-after-lost-reply", func() { c.CrashAfterLostReply = q.CrashAfterLostReply }},
		{"drop-events", func() { c.DropEvents = q.DropEvents }},
		{"dup-events", func() { c.DupEvents = q.DupEvents }},
	}
	for _, f := range fields {
		if !set[f.flag] {
			f.set()
		}
	}
}
