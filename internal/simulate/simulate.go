package simulate

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/cmd/app/demo"
	"github.com/turnstile-sfn/turnstile/emulator"
	"github.com/turnstile-sfn/turnstile/emulator/ddblocal"
	"github.com/turnstile-sfn/turnstile/emulator/eventbus"
	"github.com/turnstile-sfn/turnstile/emulator/lambdafn"
	"github.com/turnstile-sfn/turnstile/emulator/stack"
	"github.com/turnstile-sfn/turnstile/emulator/template"
	"github.com/turnstile-sfn/turnstile/internal/capacity"
	"github.com/turnstile-sfn/turnstile/internal/chart"
	"github.com/turnstile-sfn/turnstile/internal/faultproxy"
	"github.com/turnstile-sfn/turnstile/lambdas/dowork/work"
	"github.com/turnstile-sfn/turnstile/lambdas/testrunner/runner"
	"github.com/turnstile-sfn/turnstile/lock"
)

// Defaults of Scenario: the original demo, 15 s of work a hundred times, on a clock that skips
// time (time scale 0), so that the run takes seconds and its figures do not depend on the
// machine.
const (
	DefaultExecutions = 100
	DefaultTimeScale  = 0
)

// ErrNoSemaphore is returned when the cloud assembly holds no semaphore state machine (one lock,
// several locks or a total cap).
var ErrNoSemaphore = errors.New("simulate: the cloud assembly holds no Turnstile semaphore state machine")

// ErrAmbiguousSemaphore is returned when the cloud assembly holds several semaphore machines and
// the scenario names none.
var ErrAmbiguousSemaphore = errors.New("simulate: more than one semaphore state machine")

// ErrInvalidScenario is wrapped by the errors of a scenario that cannot run.
var ErrInvalidScenario = errors.New("simulate: invalid scenario")

// Scenario is what to simulate.
type Scenario struct {
	// CDKOut is an existing cloud assembly to run; "" synthesizes the demo app from Demo.
	CDKOut string
	// Demo configures the synthesized demo app (limit, lock name, work time, failure rate).
	// Default: the demo's defaults. Ignored with CDKOut.
	Demo *demo.Config
	// StateMachine picks the semaphore machine to start when the cloud assembly holds several:
	// its name, logical ID or ARN. Default: the only one.
	StateMachine string
	// Input is the JSON input of every execution; "{{index}}" in it is replaced by the
	// execution's index. Default: {"index": <index>}.
	Input string
	// Keys spread the executions over several locks of a semaphore whose lock name comes from
	// the input: execution i gets Keys[i mod len(Keys)] at the machine's LockNamePath (with
	// several locks, at each of their lock name paths; with a total cap, at its LockNamePath).
	// Default: none.
	Keys []string
	// ExpectErrors are error names the scenario expects executions to fail with (a backlog
	// longer than the acquire timeout expects Turnstile.AcquireTimeout). Failures with other
	// errors are unexpected (Result.UnexpectedFailures), except the demo's WorkFailed under a
	// failure rate above 0 and, with CDKOut, any error. Default: none.
	ExpectErrors []string
	// Executions is how many executions to start. Default: DefaultExecutions.
	Executions int
	// Weights give execution i the weight Weights[i mod len(Weights)] at the WeightPath of a
	// semaphore with weighted permits. Default: none.
	Weights []int
	// HighPriority is how many of the last executions have the highest priority
	// (lock.MaxPriority), at the PriorityPath of a semaphore with priorities; the others have
	// none, the default priority. Default: 0.
	HighPriority int
	// StartConcurrency bounds the StartExecution calls in flight. Default: runner's.
	StartConcurrency int
	// TimeScale is real time per virtual second, for watching a run; 0 skips time (see
	// stack.Options.TimeScale). Default: DefaultTimeScale.
	TimeScale float64
	// Seed makes the run replayable. Default: 0.
	Seed uint64
	// Progress is called as executions finish.
	Progress func(finished, total int)
	// Faults are injected into the run: DynamoDB requests lost or throttled, status-change
	// events dropped or duplicated. Default: none.
	Faults Faults
	// Submit submits the executions' inputs (lock.Client.Submit) instead of starting them:
	// each starts when its lock has a slot for it, already holding the slot
	// (Result.Submissions). It needs a Callback semaphore with a single lock. Default: false.
	Submit bool
	// DynamoDB is a running DynamoDB Local for the stack to keep its tables in instead of
	// starting one of its own (see stack.Options.DynamoDB): a test speed option. Default: nil.
	DynamoDB *ddblocal.Server
}

// Faults are the faults a simulation injects, seeded by the scenario's seed.
type Faults struct {
	// DynamoDB are the faults of the stack's DynamoDB requests (AppliedReplyLost, LostBefore,
	// Throttled); its Seed is the scenario's.
	DynamoDB faultproxy.Config `json:"dynamodb"`
	// DropEvents is the fraction of EventBridge deliveries dropped.
	DropEvents float64 `json:"dropEvents"`
	// DupEvents is the fraction of EventBridge deliveries duplicated.
	DupEvents float64 `json:"dupEvents"`
	// StartReplyLost is the fraction of the StartExecution calls starting submissions whose
	// reply is lost (the SDK then sends the same request again).
	StartReplyLost float64 `json:"startReplyLost,omitempty"`
}

// FaultCounts are the faults a simulation injected.
type FaultCounts struct {
	// DynamoDB counts the requests and the faults injected into them.
	DynamoDB faultproxy.Stats `json:"dynamodb"`
	// EventsDropped and EventsDuplicated count the deliveries dropped and duplicated.
	EventsDropped    int64 `json:"eventsDropped"`
	EventsDuplicated int64 `json:"eventsDuplicated"`
	// StartRepliesLost counts the StartExecution replies lost (Faults.StartReplyLost).
	StartRepliesLost int64 `json:"startRepliesLost,omitempty"`
}

// Result is a simulation's outcome.
type Result struct {
	// Report is the load test's report; times in it are virtual.
	Report *runner.Report `json:"report"`
	// Limit is the semaphore's limit (per key, when the lock name comes from the input); 0 for
	// a semaphore with several locks or a total cap, whose limits are in Locks.
	Limit int `json:"limit"`
	// Locks is, for a semaphore with several locks or a total cap, what the run measured of
	// each lock the executions took (their locks read from their inputs as the machine lists
	// them: machines.InputLocks.Locks), by name. Nil for a single lock.
	Locks map[string]LockFigures `json:"locks,omitempty"`
	// LockNamePath is where the machine reads its lock name from the input, or "" for a
	// fixed lock name.
	LockNamePath string `json:"lockNamePath,omitempty"`
	// StateMachineArn is the semaphore machine that ran.
	StateMachineArn string `json:"stateMachineArn"`
	// IdealMakespanSeconds is the total work time divided by the slots (the limit, times the
	// number of keys the executions were spread over): the makespan of a semaphore that never
	// leaves a slot idle.
	IdealMakespanSeconds float64 `json:"idealMakespanSeconds"`
	// MakespanOverIdeal is the makespan divided by the ideal one.
	MakespanOverIdeal float64 `json:"makespanOverIdeal"`
	// WallSeconds is the real time the simulation took, synthesis and start-up included.
	WallSeconds float64 `json:"wallSeconds"`
	// RunSeconds is the real time of the load test alone: from the first start to the report.
	RunSeconds float64 `json:"runSeconds"`
	// DeadLetters counts the status-change events the bus could not deliver.
	DeadLetters int `json:"deadLetters"`
	// TransitionsPerExecution is the billed state transitions per semaphore execution, those
	// of the cleanup machine and the redrive guard included.
	TransitionsPerExecution float64 `json:"transitionsPerExecution"`
	// Faults counts the faults injected.
	Faults FaultCounts `json:"faults"`
	// UnexpectedFailures counts, by error name, the executions that failed with an error the
	// scenario did not ask for: anything but the demo work's injected WorkFailed (an emulator
	// timeout such as Lambda.Unknown or States.Timeout, a Turnstile error such as
	// Turnstile.AcquireTimeout). A good run has none.
	UnexpectedFailures map[string]int `json:"unexpectedFailures,omitempty"`
	// DynamoDBRequestsPerExecution is the DynamoDB requests per semaphore execution, counted
	// at the server until the last execution ended: the machines' tasks, the hand-off function,
	// the cleanup and the reconciler, retries included.
	DynamoDBRequestsPerExecution float64 `json:"dynamodbRequestsPerExecution"`
	// PerExecution is the capacity units per semaphore execution that the same requests
	// consumed, as DynamoDB bills them, and the largest item seen in a reply of the stack's
	// tables (the lock item).
	capacity.PerExecution
	// Rate is what a machine with a Rate measured: permits, admissions and entries per window
	// against the GCRA bound, and the gate's write units per permit. Nil without a Rate.
	Rate *RateFigures `json:"rate,omitempty"`
	// Submissions is what a run in submission mode (Scenario.Submit) measured; nil otherwise.
	Submissions *SubmissionFigures `json:"submissions,omitempty"`
	// Metrics sums up, by name, Turnstile's metrics that the stack's functions wrote until the
	// last execution ended (package metrics): what CloudWatch would have received.
	Metrics map[string]MetricSummary `json:"metrics,omitempty"`
}

// expectedErrors are the error names a scenario's executions may fail with: sc.ExpectErrors, the demo work's
// injected failure (work.ErrorNameWorkFailed) when its failure rate is above 0, or any failure
// for a cloud assembly the scenario did not build.
func expectedErrors(sc Scenario) func(string) bool {
	if sc.CDKOut != "" {
		return func(string) bool { return true }
	}
	cfg := demo.DefaultConfig()
	if sc.Demo != nil {
		cfg = *sc.Demo
	}
	rejects := cfg.Rate != nil && cfg.Rate.Mode == machines.RateReject
	return func(name string) bool {
		return slices.Contains(sc.ExpectErrors, name) || (cfg.FailureRate > 0 && name == work.ErrorNameWorkFailed) || (rejects && name == machines.ErrorRateLimited)
	}
}

// unexpectedFailures keeps the failures whose error the scenario did not ask for.
func unexpectedFailures(byError map[string]int, expected func(string) bool) map[string]int {
	out := map[string]int{}
	for name, n := range byError {
		if !expected(name) {
			out[name] = n
		}
	}
	return out
}

// endWatch takes the stack's DynamoDB counts at the virtual instant the last of the run's
// executions ends: with a clock that skips time, the reconciler's sweeps after that instant
// depend on how long the load driver takes to notice the end, not on the run.
type endWatch struct {
	mu       sync.Mutex
	ended    map[string]bool
	snapshot *faultproxy.Stats
	metrics  []stack.MetricSample // the functions' metrics written until then
	all      chan struct{}        // closed once every execution has ended
}

// watchEnd starts watching the executions of machineArn until n of them have ended, reporting
// each end to progress (when not nil).
func watchEnd(st *stack.Stack, machineArn string, n int, progress func(finished, total int)) *endWatch {
	w := &endWatch{ended: map[string]bool{}, all: make(chan struct{})}
	st.Emulator.OnStatusChange(func(c emulator.StatusChange) {
		if c.StateMachineArn != machineArn || c.Status == emulator.StatusRunning {
			return
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		if !w.ended[c.ExecutionArn] {
			w.ended[c.ExecutionArn] = true
			if progress != nil {
				progress(len(w.ended), n)
			}
		}
		if len(w.ended) == n && w.snapshot == nil {
			stats := st.DynamoDBStats()
			w.snapshot, w.metrics = &stats, st.Metrics()
			close(w.all)
		}
	})
	return w
}

// stats returns the counts and the functions' metrics taken when the last execution ended, if
// it did.
func (w *endWatch) stats() (faultproxy.Stats, []stack.MetricSample, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.snapshot == nil {
		return faultproxy.Stats{}, nil, false
	}
	return *w.snapshot, w.metrics, true
}

// startGate passes the runner's calls on and releases the stack's hold on the clock once the
// last execution has started (or when opened early). It holds the runner's first
// DescribeExecution until every execution has ended: polling thousands of executions while they
// run would only take the machine's time from them.
type startGate struct {
	runner.StepFunctions
	mu      sync.Mutex
	left    int
	release func()
	ended   <-chan struct{}
}

// DescribeExecution describes an execution once every execution has ended.
func (g *startGate) DescribeExecution(ctx context.Context, in *sfn.DescribeExecutionInput, opts ...func(*sfn.Options)) (*sfn.DescribeExecutionOutput, error) {
	select {
	case <-g.ended:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return g.StepFunctions.DescribeExecution(ctx, in, opts...)
}

// StartExecution starts an execution and opens the gate after the last one.
func (g *startGate) StartExecution(ctx context.Context, in *sfn.StartExecutionInput, opts ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error) {
	out, err := g.StepFunctions.StartExecution(ctx, in, opts...)
	g.mu.Lock()
	g.left--
	last := g.left <= 0
	g.mu.Unlock()
	if last {
		g.open()
	}
	return out, err
}

// open releases the hold; later calls do nothing.
func (g *startGate) open() { g.release() }

// Violations lists the promises the run broke: more executions inside the work than the limit
// (with several locks: than any lock's limit, among the executions holding it), slots still
// held or executions still queued on any lock once everything settled, waiters admitted out of
// their enqueue order (one lock only), or what breaks the Rate (RateFigures): more permits or
// admissions in a window than it allows, or a rejected execution that kept its slot.
func (r *Result) Violations() []string {
	var out []string
	if r.Locks != nil {
		out = append(out, lockViolations(r.Locks)...)
	} else if r.Report.MaxConcurrentWorkByKey != nil {
		keys := slices.Sorted(maps.Keys(r.Report.MaxConcurrentWorkByKey))
		for _, key := range keys {
			if n := r.Report.MaxConcurrentWorkByKey[key]; n > r.Limit {
				out = append(out, fmt.Sprintf("%d executions of the lock %q were inside the work at once, above the limit of %d", n, key, r.Limit))
			}
		}
	} else if r.Report.MaxConcurrentWork > r.Limit && r.LockNamePath == "" {
		out = append(out, fmt.Sprintf("%d executions were inside the work at once, above the limit of %d", r.Report.MaxConcurrentWork, r.Limit))
	}
	if r.Report.MaxConcurrentWeight > r.Limit && r.LockNamePath == "" && r.Locks == nil {
		out = append(out, fmt.Sprintf("executions of weight %d in all were inside the work at once, above the limit of %d", r.Report.MaxConcurrentWeight, r.Limit))
	}
	if r.Report.LeakedSlots > 0 {
		out = append(out, fmt.Sprintf("%d slots were still held after the run settled", r.Report.LeakedSlots))
	}
	if r.Report.WaitersLeft > 0 {
		out = append(out, fmt.Sprintf("%d executions were still in a wait queue after the run settled", r.Report.WaitersLeft))
	}
	if r.Report.AdmissionOrderInversions > 0 && r.Locks == nil {
		out = append(out, fmt.Sprintf("%d waiters were admitted before a waiter that had queued earlier (with priorities: with an earlier place)", r.Report.AdmissionOrderInversions))
	}
	if p := r.Report.Priorities; p != nil && p.AgainstPromise > 0 {
		out = append(out, fmt.Sprintf("%d pairs of waiters of different priorities were admitted against the order their priorities and ageing promise", p.AgainstPromise))
	}
	if r.Rate != nil {
		out = append(out, r.Rate.violations()...)
	}
	if r.Submissions != nil {
		out = append(out, r.Submissions.violations()...)
	}
	return out
}

// Work returns the executions' work intervals for the chart, measured from the first start.
func (r *Result) Work() []chart.Interval {
	var first time.Time
	for _, t := range r.Report.Executions {
		if first.IsZero() || t.Started.Before(first) {
			first = t.Started
		}
	}
	var out []chart.Interval
	for _, t := range r.Report.Executions {
		if t.Worked() {
			out = append(out, chart.Interval{Start: t.WorkStarted.Sub(first), End: t.WorkEnded.Sub(first), Failed: t.Status != "SUCCEEDED"})
		}
	}
	return out
}

// Run runs the scenario and reports. It returns an error when the scenario could not run; a run
// that broke a promise is a Result whose Violations are not empty.
func Run(ctx context.Context, sc Scenario) (*Result, error) {
	began := time.Now()
	if sc.Executions < 0 || sc.TimeScale < 0 || sc.StartConcurrency < 0 {
		return nil, fmt.Errorf("%w: executions, start concurrency and time scale must not be negative", ErrInvalidScenario)
	}
	if f := sc.Faults; !(f.StartReplyLost >= 0 && f.StartReplyLost <= 1) {
		return nil, fmt.Errorf("%w: the fraction of StartExecution replies lost (%g) must be from 0 to 1", ErrInvalidScenario, f.StartReplyLost)
	}
	if f := sc.Faults; !(f.DropEvents >= 0 && f.DupEvents >= 0 && f.DropEvents+f.DupEvents <= 1) {
		return nil, fmt.Errorf("%w: the fractions of events dropped (%g) and duplicated (%g) must be at least 0 and add up to at most 1", ErrInvalidScenario, f.DropEvents, f.DupEvents)
	}
	cdkOut := sc.CDKOut
	if cdkOut == "" {
		cfg := demo.DefaultConfig()
		if sc.Demo != nil {
			cfg = *sc.Demo
		}
		dir, err := os.MkdirTemp("", "turnstile-simulate-*.out")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		if err := Synthesize(dir, cfg); err != nil {
			return nil, err
		}
		cdkOut = dir
	}
	tmpl, err := template.Load(cdkOut, template.Options{})
	if err != nil {
		if sc.CDKOut != "" {
			return nil, fmt.Errorf("%w\n(--cdk-out names the cloud assembly `cdk synth` writes, cdk.out by default: run cdk synth in your app, then pass that directory)", err)
		}
		return nil, err
	}
	machine, def, err := findSemaphore(tmpl, sc.StateMachine)
	if err != nil {
		return nil, err
	}
	limit, _ := machines.SemaphoreLimit(def)
	lockNamePath := machines.SemaphoreLockNamePath(def)
	several, isSeveral := machines.SemaphoreInputLocks(def)
	namePaths := several.Paths()
	if !isSeveral && lockNamePath != "" {
		namePaths = []string{lockNamePath}
	}
	if len(sc.Keys) > 0 && len(namePaths) == 0 {
		return nil, fmt.Errorf("%w: keys need a semaphore whose lock name comes from the input (LockNamePath); %s has fixed lock names", ErrInvalidScenario, machine.LogicalID)
	}
	if len(sc.Keys) > 0 && slices.ContainsFunc(namePaths, func(p string) bool { return strings.Contains(p, "[") }) {
		return nil, fmt.Errorf("%w: keys are written at dotted paths; %s reads a lock name at %s, with an array index: give the names in the input (--input) instead", ErrInvalidScenario, machine.LogicalID, strings.Join(namePaths, ", "))
	}
	if isSeveral && sc.Submit {
		return nil, fmt.Errorf("%w: submission mode runs semaphores with a single lock; %s has several locks or a total cap", ErrInvalidScenario, machine.LogicalID)
	}
	var keyPath string // the runner writes the keys at keyPath and at morePaths
	var morePaths []string
	if len(sc.Keys) > 0 {
		keyPath, morePaths = namePaths[0], namePaths[1:]
	}
	priorityPath := machines.SemaphorePriorityPath(def)
	if sc.HighPriority > 0 && priorityPath == "" {
		return nil, fmt.Errorf("%w: a high priority needs a semaphore with priorities (PriorityPath); %s has none", ErrInvalidScenario, machine.LogicalID)
	}
	weightPath := machines.SemaphoreWeightPath(def)
	if len(sc.Weights) > 0 && weightPath == "" {
		return nil, fmt.Errorf("%w: weights need a semaphore with weighted permits (WeightPath); %s has none", ErrInvalidScenario, machine.LogicalID)
	}
	table, err := lockTable(tmpl, machines.SemaphoreTableName(def))
	if err != nil {
		return nil, err
	}

	dbFaults := sc.Faults.DynamoDB
	dbFaults.Seed = sc.Seed
	events := eventbus.NewRandomFaults(sc.Seed, sc.Faults.DropEvents, sc.Faults.DupEvents, 0)
	loss := newStartLoss(sc.Faults.StartReplyLost, sc.Seed)
	st, err := stack.Start(ctx, cdkOut, stack.Options{
		TimeScale: sc.TimeScale, Seed: sc.Seed, Handlers: handlers(loss), DynamoDBFaults: dbFaults, EventPolicy: events, DynamoDB: sc.DynamoDB,
		// Every execution's history is read at the end: keep them all, and the cleanup's and the
		// redrive guard's executions besides (one each per failed execution at most).
		MaxClosedExecutions: max(emulator.DefaultMaxClosedExecutions, 3*sc.Executions),
		LambdaConcurrency:   lambdaConcurrency(limit, len(sc.Keys), sc.Executions, isSeveral),
		Held:                true, // until every execution has started: see startGate
	})
	if err != nil {
		return nil, err
	}
	defer st.Close()
	ddb, err := st.DynamoDBClient(ctx)
	if err != nil {
		return nil, err
	}
	ended := watchEnd(st, machine.ARN, sc.Executions, sc.Progress)
	var starter runner.StepFunctions = st.StepFunctionsClient()
	var submissions *submitter
	if sc.Submit {
		if submissions, err = newSubmitter(st, ddb, loss, def, table, limit); err != nil {
			return nil, err
		}
		starter = submissions
	}
	// The clock stands still until every execution has started (or been submitted): they all
	// start at one virtual instant, however long the machine takes to start them.
	gate := &startGate{StepFunctions: starter, left: sc.Executions, release: st.ReleaseHold, ended: ended.all}
	defer gate.open()
	r := &runner.Runner{StepFunctions: gate, DynamoDB: ddb}
	runBegan := time.Now()
	report, err := r.Run(ctx, runner.Config{
		StateMachineArn:   machine.ARN,
		InputTemplate:     sc.Input,
		Keys:              sc.Keys,
		LockNamePath:      keyPath,
		MoreLockNamePaths: morePaths,
		PriorityPath:      highPath(priorityPath, sc.HighPriority),
		HighPriority:      sc.HighPriority,
		WeightPath:        weightsPath(weightPath, sc.Weights),
		Weights:           sc.Weights,
		Executions:        sc.Executions,
		StartConcurrency:  sc.StartConcurrency,
		NamePrefix:        fmt.Sprintf("simulate-%d", sc.Seed),
		LockTable:         table,
		PollInterval:      runner.Duration(max(10*time.Millisecond, time.Duration(float64(time.Second)*sc.TimeScale))),
	})
	gate.open()
	if err != nil {
		return nil, err
	}
	ddbStats, metricSamples, ok := ended.stats()
	if !ok {
		ddbStats, metricSamples = st.DynamoDBStats(), st.Metrics()
	}
	helpers, err := helperTransitions(ctx, st, machine.ARN)
	if err != nil {
		return nil, err
	}
	res := &Result{Report: report, Limit: limit, LockNamePath: lockNamePath, StateMachineArn: machine.ARN, DeadLetters: len(st.DeadLetters())}
	res.UnexpectedFailures = unexpectedFailures(report.FailedByError, expectedErrors(sc))
	res.Faults = FaultCounts{DynamoDB: ddbStats, EventsDropped: events.Dropped(), EventsDuplicated: events.Duplicated(), StartRepliesLost: loss.lost.Load()}
	if n := float64(report.Started); n > 0 {
		res.TransitionsPerExecution = report.TransitionsPerExecution + float64(helpers)/n
		res.DynamoDBRequestsPerExecution = float64(ddbStats.Requests) / n
	}
	res.PerExecution = ddbStats.Capacity().PerExecution(report.Started)
	res.Metrics = summarizeMetrics(metricSamples)
	if isSeveral {
		if res.Locks, err = lockFigures(ctx, st.StepFunctionsClient(), several, report.Executions); err != nil {
			return nil, err
		}
	}
	if submissions != nil {
		if res.Submissions, err = submissions.figures(ctx, st.StepFunctionsClient(), machine.ARN, report.Executions); err != nil {
			return nil, err
		}
	}
	if rate, ok := machines.SemaphoreRate(def); ok {
		if res.Rate, err = rateFigures(ctx, st, rate, report); err != nil {
			return nil, err
		}
	}
	// Independent keys work side by side: the ideal spreads the work over every key's slots.
	// With weighted permits the work uses weight × time of the slots.
	work := report.WorkSeconds
	if report.WeightedWorkSeconds > 0 {
		work = report.WeightedWorkSeconds
	}
	if isSeveral {
		res.IdealMakespanSeconds = bottleneckSeconds(res.Locks)
	} else {
		res.IdealMakespanSeconds = work / float64(limit*max(1, len(sc.Keys)))
	}
	if res.IdealMakespanSeconds > 0 {
		res.MakespanOverIdeal = report.MakespanSeconds / res.IdealMakespanSeconds
	}
	res.RunSeconds = time.Since(runBegan).Seconds()
	res.WallSeconds = time.Since(began).Seconds()
	return res, nil
}

// lambdaConcurrency is an account's Lambda quota that covers the work's own functions (up to
// the limit of each key) and as many hand-off invocations besides; AWS's default quota (1,000)
// throttles a semaphore of limit 1,000 by its work alone. With several locks the slots are not
// known before the run: it covers every execution working at once.
func lambdaConcurrency(limit, keys, executions int, several bool) int {
	n := max(lambdafn.DefaultAccountConcurrency, 2*limit*max(1, keys))
	if several {
		n = max(n, 2*executions)
	}
	return n
}

// weightsPath is the weight path the load test writes the weights at: none without weights.
func weightsPath(weightPath string, weights []int) string {
	if len(weights) == 0 {
		return ""
	}
	return weightPath
}

// highPath is the priority path the load test writes the high priority at: none without
// high-priority executions.
func highPath(priorityPath string, high int) string {
	if high == 0 {
		return ""
	}
	return priorityPath
}

// findSemaphore returns the template's semaphore machine (one lock, several locks or a total
// cap) named by name (its name, logical ID or ARN), or its only one when name is "", with its
// parsed definition.
func findSemaphore(tmpl *template.Template, name string) (template.StateMachine, *asl.StateMachine, error) {
	var found []template.StateMachine
	var defs []*asl.StateMachine
	for _, sm := range tmpl.StateMachines {
		m, err := asl.Parse([]byte(sm.Definition))
		if err != nil {
			continue
		}
		_, single := machines.SemaphoreLimit(m)
		if _, several := machines.SemaphoreInputLocks(m); !single && !several {
			continue
		}
		if name == "" || name == sm.Name || name == sm.LogicalID || name == sm.ARN {
			found, defs = append(found, sm), append(defs, m)
		}
	}
	switch {
	case len(found) == 1:
		return found[0], defs[0], nil
	case len(found) == 0 && name != "":
		return template.StateMachine{}, nil, fmt.Errorf("%w named %q in stack %s (give its name, logical ID or ARN)", ErrNoSemaphore, name, tmpl.StackName)
	case len(found) == 0:
		return template.StateMachine{}, nil, fmt.Errorf("%w (stack %s has %d state machines, none generated by semaphore.New): pass with --cdk-out the cloud assembly of an app that holds a Turnstile semaphore, or leave --cdk-out out to run the demo app", ErrNoSemaphore, tmpl.StackName, len(tmpl.StateMachines))
	default:
		ids := make([]string, len(found))
		for i, sm := range found {
			ids[i] = sm.LogicalID
		}
		return template.StateMachine{}, nil, fmt.Errorf("%w: stack %s holds %d semaphore machines (%s): pick one with --state-machine", ErrAmbiguousSemaphore, tmpl.StackName, len(found), strings.Join(ids, ", "))
	}
}

// lockTable returns the name of the semaphore's lock table: the stack's table named in its
// definition (a stack may hold several semaphores, each with its own table), keyed by LockName
// and Entry.
func lockTable(tmpl *template.Template, name string) (string, error) {
	if t, ok := tmpl.TableByName(name); ok && len(t.KeySchema) == 2 && t.KeySchema[0].AttributeName == lock.AttributeLockName && t.KeySchema[1].AttributeName == lock.AttributeEntry {
		return t.Name, nil
	}
	return "", fmt.Errorf("%w: the machine's lock table %q is not a table of the stack keyed by %s and %s", ErrNoSemaphore, name, lock.AttributeLockName, lock.AttributeEntry)
}
