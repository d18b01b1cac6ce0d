package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/turnstile-sfn/turnstile/cmd/app/demo"
	"github.com/turnstile-sfn/turnstile/constructs/semaphore"
	"github.com/turnstile-sfn/turnstile/internal/chart"
	"github.com/turnstile-sfn/turnstile/internal/simulate"
)

// DefaultChartPath is where simulate draws its chart unless told otherwise.
const DefaultChartPath = "turnstile-simulate.svg"

// simulateFlags are the flags of `turnstile simulate`.
type simulateFlags struct {
	cdkOut       string
	stateMachine string
	input        string
	inputFile    string
	keys         string
	expectErrors string
	executions   int
	limit        int
	lockName     string
	lockNamePath string
	totalLimit   int
	workTime     time.Duration
	failureRate  float64
	timeScale    float64
	seed         uint64
	chart        string
	json         bool
	noProgress   bool
	submit       bool
	// waitStrategy is the demo's wait strategy.
	waitStrategy string
	// rate is the demo's Rate, nil for none.
	rate *semaphore.Rate
	// priorityAgeing, above 0, gives the demo priorities with this ageing step.
	priorityAgeing int
	// highPriority is how many of the last executions have the highest priority.
	highPriority int
	// weights are the executions' weights, in turn; none without weighted permits.
	weights []int
	// faults are injected into the run.
	faults simulate.Faults
}

func parseSimulateFlags(args []string, stderr io.Writer) (simulateFlags, error) {
	d := demo.DefaultConfig()
	f := simulateFlags{}
	fs := flag.NewFlagSet("turnstile simulate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.cdkOut, "cdk-out", "", "run this cloud assembly instead of synthesizing the demo app")
	fs.StringVar(&f.stateMachine, "state-machine", "", "the semaphore machine to start (name, logical ID or ARN) when the app has several")
	fs.StringVar(&f.input, "input", "", `the JSON input of every execution; "{{index}}" in it becomes the execution's index (default {"index": <index>})`)
	fs.StringVar(&f.inputFile, "input-file", "", "read --input from this file")
	fs.StringVar(&f.keys, "keys", "", "comma-separated lock keys: execution i gets key i mod n at the machine's LockNamePath (with several locks, at each lock name path)")
	fs.StringVar(&f.expectErrors, "expect-errors", "", `comma-separated error names the scenario expects executions to fail with, e.g. "Turnstile.AcquireTimeout" for a backlog longer than the acquire timeout (the demo's WorkFailed is expected with --failure-rate above 0)`)
	fs.IntVar(&f.executions, "executions", simulate.DefaultExecutions, "executions to start")
	fs.IntVar(&f.limit, "limit", d.Limit, "the semaphore's limit (demo app only)")
	fs.StringVar(&f.lockName, "lock-name", d.LockName, "the lock's name (demo app only)")
	fs.StringVar(&f.lockNamePath, "lock-name-path", "", `read the lock's name from each input at this "$." path, a lock per key, in place of --lock-name (demo app only; with --keys)`)
	fs.IntVar(&f.totalLimit, "total-limit", 0, "cap the executions of all keys together at this many (demo app only; with --lock-name-path, --wait Callback)")
	fs.DurationVar(&f.workTime, "work-time", d.WorkDuration, "virtual time each execution works (demo app only)")
	fs.Float64Var(&f.failureRate, "failure-rate", d.FailureRate, "fraction of work that fails, 0 to 1 (demo app only)")
	fs.Float64Var(&f.faults.DynamoDB.AppliedReplyLost, "reply-lost", 0, "fraction of DynamoDB requests applied whose reply is lost")
	fs.Float64Var(&f.faults.DynamoDB.LostBefore, "lost-before", 0, "fraction of DynamoDB requests lost before they arrive")
	fs.Float64Var(&f.faults.DynamoDB.Throttled, "throttled", 0, "fraction of DynamoDB requests answered with a throttling error")
	fs.Float64Var(&f.faults.StartReplyLost, "start-reply-lost", 0, "fraction of the StartExecution calls starting submissions whose reply is lost (with --submit)")
	fs.Float64Var(&f.faults.DropEvents, "drop-events", 0, "fraction of status-change event deliveries dropped")
	fs.Float64Var(&f.faults.DupEvents, "dup-events", 0, "fraction of status-change event deliveries duplicated")
	fs.StringVar(&f.waitStrategy, "wait", string(d.WaitStrategy), `how executions wait for a slot: "Poll" or "Callback" (demo app only)`)
	fs.Func("rate", "limit how often executions enter the work: R[/s][,burst=B][,mode=delay|reject], e.g. 2/s (demo app only)", func(v string) (err error) {
		f.rate, err = demo.ParseRate(v)
		return err
	})
	fs.Float64Var(&f.timeScale, "time-scale", simulate.DefaultTimeScale, "real seconds per virtual second, to watch a run; 0 skips time: virtual time moves only when nothing is in flight")
	fs.IntVar(&f.priorityAgeing, "priority-ageing", 0, `give the semaphore priorities, read from `+demo.DemoPriorityPath+`, with this ageing step: a waiter is overtaken by at most (q-p)·N later arrivals of each higher priority q (demo app only, --wait Callback; 0: none)`)
	fs.IntVar(&f.highPriority, "high-priority", 0, "the last N executions have the highest priority ("+strconv.Itoa(semaphore.MaxPriority)+"), the others none (the default, "+strconv.Itoa(semaphore.DefaultPriority)+"): needs a semaphore with priorities")
	fs.Func("weights", "comma-separated weights, e.g. 1,4: execution i takes weight i mod n of the slots (a demo app with weighted permits at "+demo.DemoWeightPath+", or an app with WeightPath)", func(v string) error {
		for _, p := range strings.Split(v, ",") {
			w, err := strconv.Atoi(strings.TrimSpace(p))
			if err != nil || w < 1 {
				return fmt.Errorf("a weight must be a whole number of at least 1, got %q", p)
			}
			f.weights = append(f.weights, w)
		}
		return nil
	})
	fs.Uint64Var(&f.seed, "seed", 1, "seed of every random choice: the same seed replays the same run")
	fs.StringVar(&f.chart, "chart", DefaultChartPath, `where to draw the chart (.svg, .png or .pdf); "" draws none`)
	fs.BoolVar(&f.json, "json", false, "print the report as one JSON object")
	fs.BoolVar(&f.submit, "submit", false, "submit the executions' inputs instead of starting them: each starts when a slot is free, holding it (Callback semaphores)")
	fs.BoolVar(&f.noProgress, "no-progress", false, "do not show the progress bar (shown only on a terminal)")
	if err := parseFlags(fs, args); err != nil {
		return f, err
	}
	if fs.NArg() > 0 {
		return f, fmt.Errorf("simulate takes no arguments, got %q", fs.Args())
	}
	demoOnly := map[string]bool{"limit": true, "lock-name": true, "lock-name-path": true, "total-limit": true, "work-time": true, "failure-rate": true, "wait": true, "rate": true, "priority-ageing": true}
	var conflict error
	fs.Visit(func(fl *flag.Flag) {
		if f.cdkOut != "" && demoOnly[fl.Name] && conflict == nil {
			conflict = fmt.Errorf("--%s configures the demo app and cannot be used with --cdk-out", fl.Name)
		}
	})
	fractions := []struct {
		flag  string
		value float64
	}{
		{"reply-lost", f.faults.DynamoDB.AppliedReplyLost}, {"lost-before", f.faults.DynamoDB.LostBefore},
		{"throttled", f.faults.DynamoDB.Throttled}, {"drop-events", f.faults.DropEvents}, {"dup-events", f.faults.DupEvents},
		{"start-reply-lost", f.faults.StartReplyLost},
	}
	for _, fr := range fractions {
		if !(fr.value >= 0 && fr.value <= 1) {
			return f, fmt.Errorf("--%s must be a fraction from 0 to 1 (0.05 is 5 %%), got %g", fr.flag, fr.value)
		}
	}
	if sum := f.faults.DynamoDB.AppliedReplyLost + f.faults.DynamoDB.LostBefore + f.faults.DynamoDB.Throttled; sum > 1 {
		return f, fmt.Errorf("--reply-lost, --lost-before and --throttled must add up to at most 1, got %g", sum)
	}
	if sum := f.faults.DropEvents + f.faults.DupEvents; sum > 1 {
		return f, fmt.Errorf("--drop-events and --dup-events must add up to at most 1, got %g", sum)
	}
	switch {
	case conflict != nil:
		return f, conflict
	case f.input != "" && f.inputFile != "":
		return f, errors.New("--input and --input-file are mutually exclusive")
	case f.executions < 1:
		return f, fmt.Errorf("--executions must be at least 1, got %d", f.executions)
	case f.highPriority < 0 || f.highPriority > f.executions:
		return f, fmt.Errorf("--high-priority must be from 0 to --executions (%d), got %d", f.executions, f.highPriority)
	case f.timeScale < 0:
		return f, fmt.Errorf("--time-scale must be >= 0 (0 skips time), got %g", f.timeScale)
	case f.totalLimit < 0 || (f.totalLimit > 0 && f.lockNamePath == ""):
		return f, fmt.Errorf("--total-limit caps the keys of --lock-name-path together: give both, the total at least 1, got --total-limit %d", f.totalLimit)
	}
	return f, nil
}

// demoConfig is the demo app the flags describe.
func (f simulateFlags) demoConfig() (demo.Config, error) {
	cfg := demo.DefaultConfig()
	cfg.Limit, cfg.LockName, cfg.WorkDuration, cfg.FailureRate = f.limit, f.lockName, f.workTime, f.failureRate
	cfg.LockNamePath, cfg.TotalLimit = f.lockNamePath, f.totalLimit
	cfg.WaitStrategy = semaphore.WaitStrategy(f.waitStrategy)
	cfg.Rate = f.rate
	cfg.PriorityAgeing = f.priorityAgeing
	cfg.Weighted = len(f.weights) > 0
	if err := cfg.Validate(); err != nil {
		var ce *demo.ContextError
		if errors.As(err, &ce) {
			return cfg, fmt.Errorf("--%s: %s, got %v", flagOfContextKey[ce.Key], ce.Problem, ce.Value)
		}
		return cfg, err
	}
	return cfg, nil
}

// flagOfContextKey names the flag that sets each demo context key.
var flagOfContextKey = map[string]string{
	demo.ContextLimit:          "limit",
	demo.ContextLockName:       "lock-name",
	demo.ContextLockNamePath:   "lock-name-path",
	demo.ContextWorkDuration:   "work-time",
	demo.ContextFailureRate:    "failure-rate",
	demo.ContextWaitStrategy:   "wait",
	demo.ContextRate:           "rate",
	demo.ContextPriorityAgeing: "priority-ageing",
	demo.ContextWeighted:       "weights",
}

// simulateGCPercent is the garbage collector's target of a simulation unless GOGC sets one: a run
// allocates much and keeps little (every execution's history, read at the end), so letting the
// heap grow by four times the live heap between collections (GOGC=400), not by once (Go's
// default, 100), saves CPU for more memory. Measured on 2,000 executions through a limit of 100:
// 8.8 ms of CPU per execution instead of 11.8 ms; 10,000 executions peak at 2.4 GB instead of
// 1.1 GB.
const simulateGCPercent = 400

// simulateProcs is how many threads run a simulation's Go code at once under the skipping
// clock unless GOMAXPROCS sets it: one. There a run is a chain of steps taken one at a time,
// each handing over to the next goroutine or waiting for DynamoDB Local; with more, each
// hand-off wakes an idle thread that spins looking for work on a core DynamoDB Local needs.
// Measured on 2 cores, 2,000 executions through a limit of 100 (median of 3, figures
// identical): 31.5 s instead of 34.7 s, and 5.9 ms of the emulator's CPU per execution instead
// of 7.9 ms. A run on a scaled real-time clock (--time-scale above 0) keeps Go's default: its
// figures depend on how soon each goroutine runs (one thread: the demo at 0.2 sent about 8.7
// DynamoDB requests per execution instead of about 8.0).
const simulateProcs = 1

func simulateCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseSimulateFlags(args, stderr)
	if err != nil {
		return err
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(simulateGCPercent)
	}
	if os.Getenv("GOMAXPROCS") == "" && f.timeScale == 0 {
		runtime.GOMAXPROCS(simulateProcs)
	}
	sc := simulate.Scenario{CDKOut: f.cdkOut, StateMachine: f.stateMachine, Input: f.input, Executions: f.executions, HighPriority: f.highPriority, Weights: f.weights, TimeScale: f.timeScale, Seed: f.seed, Faults: f.faults, Submit: f.submit}
	if f.inputFile != "" {
		b, err := os.ReadFile(f.inputFile)
		if err != nil {
			return fmt.Errorf("--input-file: %w", err)
		}
		sc.Input = string(b)
	}
	if sc.Input != "" && !json.Valid([]byte(strings.ReplaceAll(sc.Input, "{{index}}", "0"))) {
		return fmt.Errorf("--input is not JSON (once {{index}} is replaced by a number): %s", sc.Input)
	}
	if f.keys != "" {
		for _, k := range strings.Split(f.keys, ",") {
			if k = strings.TrimSpace(k); k == "" {
				return fmt.Errorf("--keys holds an empty key: %q (give comma-separated names, e.g. dev,staging,prod)", f.keys)
			}
			sc.Keys = append(sc.Keys, strings.TrimSpace(k))
		}
	}
	if f.expectErrors != "" {
		for _, name := range strings.Split(f.expectErrors, ",") {
			if name = strings.TrimSpace(name); name == "" {
				return fmt.Errorf("--expect-errors holds an empty name: %q (give comma-separated error names, e.g. Turnstile.AcquireTimeout)", f.expectErrors)
			}
			sc.ExpectErrors = append(sc.ExpectErrors, name)
		}
	}
	if f.cdkOut == "" {
		cfg, err := f.demoConfig()
		if err != nil {
			return err
		}
		sc.Demo = &cfg
	}
	if !f.noProgress && !f.json && showProgress(stderr) {
		bar := newProgress(stderr, f.executions)
		defer bar.finish()
		sc.Progress = bar.set
	}
	res, err := simulate.Run(ctx, sc)
	if err != nil {
		return err
	}
	if f.chart != "" {
		title := fmt.Sprintf("%d executions through a semaphore of %d (seed %d)", res.Report.Started, res.Limit, f.seed)
		if res.Locks != nil {
			title = fmt.Sprintf("%d executions through a semaphore of %d locks (seed %d)", res.Report.Started, len(res.Locks), f.seed)
		}
		c := chart.Concurrency{
			Title: title,
			Limit: res.Limit,
			Work:  res.Work(),
			Rate:  res.AdmissionRate(),
		}
		if err := chart.Write(f.chart, c); err != nil {
			return err
		}
	}
	if f.json {
		withoutTraces := *res
		report := *res.Report
		report.Executions = nil
		withoutTraces.Report = &report
		if err := writeJSON(stdout, withoutTraces); err != nil {
			return err
		}
	} else {
		printResult(stdout, res, f)
	}
	if v := res.Violations(); len(v) > 0 {
		return fmt.Errorf("%w: %v", errViolation, v)
	}
	if len(res.UnexpectedFailures) > 0 {
		return fmt.Errorf("%w: %v", errUnexpectedFailures, res.UnexpectedFailures)
	}
	return nil
}
