// Command ratebench measures package ratelimit: clients sharing one rate through a DynamoDB API
// server, each taking permits as fast as its limiter lets it, and prints the figures of issue
// 13: the rate over every window against the target, the most permits in any sliding window
// against target·window + burst, the adaptive mode's convergence after clients join and leave,
// and the DynamoDB units per permit.
//
// Exit status: 0 when the figures were printed, 2 for bad flags or a run that could not happen.
//
//	go run ./cmd/ratebench                                 # every mode, 50 clients, 200/s, 60 s
//	go run ./cmd/ratebench --mode exact --duration 20s
//	go run ./cmd/ratebench --reply-lost 0.05 --churn 0     # 5 % of replies lost after applying
//	go run ./cmd/ratebench --endpoint http://127.0.0.1:8000  # a running DynamoDB Local
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/turnstile-sfn/turnstile/emulator/ddblocal"
	rl "github.com/turnstile-sfn/turnstile/ratelimit"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 2
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// options are the command's flags.
type options struct {
	endpoint  string
	modes     []string
	clients   int
	target    float64
	burst     int
	duration  time.Duration
	window    time.Duration
	lease     int
	lookahead time.Duration
	sync      time.Duration
	churn     int
	replyLost float64
}

// parseOptions parses the flags.
func parseOptions(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("ratebench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	mode := fs.String("mode", "all", "exact, leased, adaptive or all")
	fs.StringVar(&o.endpoint, "endpoint", "", "URL of a running DynamoDB API server (e.g. DynamoDB Local); default: start DynamoDB Local")
	fs.IntVar(&o.clients, "clients", 50, "concurrent clients")
	fs.Float64Var(&o.target, "target", 200, "shared rate, permits per second")
	fs.IntVar(&o.burst, "burst", 0, "burst (default: target/10)")
	fs.DurationVar(&o.duration, "duration", 60*time.Second, "length of each mode's run")
	fs.DurationVar(&o.window, "window", 10*time.Second, "window the rate is measured over")
	fs.IntVar(&o.lease, "lease", 0, "leased mode: permits per write (default: 10, at most the burst)")
	fs.DurationVar(&o.lookahead, "lookahead", rl.DefaultLookahead, "exact and leased mode: how far ahead a Wait books a slot")
	fs.DurationVar(&o.sync, "sync", 2*time.Second, "adaptive mode: sync interval")
	fs.IntVar(&o.churn, "churn", 25, "adaptive mode: clients that leave at duration/3 and join at 2·duration/3 (0: none)")
	fs.Float64Var(&o.replyLost, "reply-lost", 0, "fraction of requests applied whose reply is lost")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch *mode {
	case "all":
		o.modes = []string{modeExact, modeLeased, modeAdaptive}
	case modeExact, modeLeased, modeAdaptive:
		o.modes = []string{*mode}
	default:
		return o, fmt.Errorf("--mode must be exact, leased, adaptive or all, got %q", *mode)
	}
	if o.burst == 0 {
		o.burst = max(1, int(o.target/10))
	}
	if o.lease == 0 {
		o.lease = min(10, o.burst)
	}
	switch {
	case o.clients < 1 || o.target <= 0 || o.burst < 1 || o.lease < 1 || o.lease > o.burst:
		return o, fmt.Errorf("want --clients >= 1, --target > 0, --burst >= 1 and 1 <= --lease <= --burst")
	case o.duration <= 0 || o.window <= 0 || o.sync <= 0 || o.lookahead < 0:
		return o, fmt.Errorf("want --duration, --window and --sync > 0 and --lookahead >= 0")
	case o.churn < 0 || o.churn >= o.clients:
		return o, fmt.Errorf("--churn must be within [0, --clients), got %d", o.churn)
	case o.replyLost < 0 || o.replyLost > 1:
		return o, fmt.Errorf("--reply-lost must be within [0, 1], got %v", o.replyLost)
	}
	return o, nil
}

// run runs the command and returns its exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseOptions(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintln(stderr, "ratebench:", err)
		return exitError
	}
	if err := bench(ctx, o, stdout); err != nil {
		fmt.Fprintln(stderr, "ratebench:", err)
		return exitError
	}
	return exitOK
}

// bench starts DynamoDB Local unless an endpoint was given, then runs each mode and prints its figures.
func bench(ctx context.Context, o options, stdout io.Writer) (err error) {
	server := "DynamoDB API server at " + o.endpoint
	if o.endpoint == "" {
		srv, err := ddblocal.Start(ctx, ddblocal.Options{})
		if err != nil {
			return err
		}
		defer func() { err = errors.Join(err, srv.Close()) }()
		o.endpoint, server = srv.Endpoint(), "DynamoDB Local"
	}
	fmt.Fprintf(stdout, "%s; %d clients, target %g/s, burst %d, %v per mode, %v windows, %g%% of replies lost\n",
		server, o.clients, o.target, o.burst, o.duration, o.window, 100*o.replyLost)
	for _, mode := range o.modes {
		res, err := runMode(ctx, o, mode)
		if err != nil {
			return fmt.Errorf("%s: %w", mode, err)
		}
		printResult(stdout, o, res)
	}
	return nil
}
