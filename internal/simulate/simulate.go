package simulate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/cmd/app/demo"
	"github.com/turnstile-sfn/turnstile/emulator/eventbus"
	"github.com/turnstile-sfn/turnstile/emulator/stack"
	"github.com/turnstile-sfn/turnstile/emulator/template"
	"github.com/turnstile-sfn/turnstile/internal/chart"
	"github.com/turnstile-sfn/turnstile/internal/faultproxy"
	"github.com/turnstile-sfn/turnstile/lambdas/testrunner/runner"
)

// Defaults of Scenario: the original demo, 15 s of work a hundred times at a time scale that
// runs it in seconds.
const (
	DefaultExecutions = 100
	DefaultTimeScale  = 0.01
)

// ErrNoSemaphore is returned when the cloud assembly holds no semaphore state machine.
var ErrNoSemaphore = errors.New("simulate: the cloud assembly holds no Turnstile semaphore state machine")

// ErrInvalidScenario is wrapped by the errors of a scenario that cannot run.
var ErrInvalidScenario = errors.New("simulate: invalid scenario")

// Scenario is what to simulate.
type Scenario struct {
	// CDKOut is an existing cloud assembly to run; "" synthesizes the demo app from Demo.
	CDKOut string
	// Demo configures the synthesized demo app (limit, lock name, work time, failure rate).
	// Default: the demo's defaults. Ignored with CDKOut.
	Demo *demo.Config
	// Executions is how many executions to start. Default: DefaultExecutions.
	Executions int
	// StartConcurrency bounds the StartExecution calls in flight. Default: runner's.
	StartConcurrency int
	// TimeScale is real time per virtual second. Default: DefaultTimeScale.
	TimeScale float64
	// Seed makes the run replayable. Default: 0.
	Seed uint64
	// Progress is called as executions finish.
	Progress func(finished, total int)
	// Faults are injected into the run: DynamoDB requests lost or throttled, status-change
	// events dropped or duplicated. Default: none.
	Faults Faults
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
}

// FaultCounts are the faults a simulation injected.
type FaultCounts struct {
	// DynamoDB counts the requests and the faults injected into them.
	DynamoDB faultproxy.Stats `json:"dynamodb"`
	// EventsDropped and EventsDuplicated count the deliveries dropped and duplicated.
	EventsDropped    int64 `json:"eventsDropped"`
	EventsDuplicated int64 `json:"eventsDuplicated"`
}

// Result is a simulation's outcome.
type Result struct {
	// Report is the load test's report; times in it are virtual.
	Report *runner.Report `json:"report"`
	// Limit is the semaphore's limit.
	Limit int `json:"limit"`
	// StateMachineArn is the semaphore machine that ran.
	StateMachineArn string `json:"stateMachineArn"`
	// IdealMakespanSeconds is the total work time divided by the limit: the makespan of a
	// semaphore that never leaves a slot idle.
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
	// DynamoDBRequestsPerExecution is the DynamoDB requests per semaphore execution, counted
	// at the server: the machines' tasks, the hand-off function, the cleanup and the
	// reconciler, retries included.
	DynamoDBRequestsPerExecution float64 `json:"dynamodbRequestsPerExecution"`
	// ReadUnitsPerExecution is the read capacity units per semaphore execution that the same
	// requests consumed, as DynamoDB bills them.
	ReadUnitsPerExecution float64 `json:"readUnitsPerExecution"`
	// WriteUnitsPerExecution is the write capacity units per semaphore execution, failed
	// conditional writes included.
	WriteUnitsPerExecution float64 `json:"writeUnitsPerExecution"`
	// FailedConditionWriteUnitsPerExecution is the part of WriteUnitsPerExecution billed for
	// writes whose condition failed (ceil(existing item / 1 KB) each, at least 1).
	FailedConditionWriteUnitsPerExecution float64 `json:"failedConditionWriteUnitsPerExecution"`
	// LargestLockItemKB is the largest item seen in a reply of the stack's tables (the lock
	// item), in KB of 1,024 bytes by DynamoDB's item-size rules.
	LargestLockItemKB float64 `json:"largestLockItemKB"`
}

// Violations lists the promises the run broke: more executions inside the work than the limit,
// slots still held or executions still queued once everything settled, or waiters admitted
// out of their enqueue order.
func (r *Result) Violations() []string {
	var out []string
	if r.Report.MaxConcurrentWork > r.Limit {
		out = append(out, fmt.Sprintf("%d executions were inside the work at once, above the limit of %d", r.Report.MaxConcurrentWork, r.Limit))
	}
	if r.Report.LeakedSlots > 0 {
		out = append(out, fmt.Sprintf("%d slots were still held after the run settled", r.Report.LeakedSlots))
	}
	if r.Report.WaitersLeft > 0 {
		out = append(out, fmt.Sprintf("%d executions were still in a wait queue after the run settled", r.Report.WaitersLeft))
	}
	if r.Report.AdmissionOrderInversions > 0 {
		out = append(out, fmt.Sprintf("%d waiters were admitted before a waiter that had queued earlier", r.Report.AdmissionOrderInversions))
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
	if sc.TimeScale == 0 {
		sc.TimeScale = DefaultTimeScale
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
		return nil, err
	}
	machine, limit, err := findSemaphore(tmpl)
	if err != nil {
		return nil, err
	}
	table, err := lockTable(tmpl)
	if err != nil {
		return nil, err
	}

	dbFaults := sc.Faults.DynamoDB
	dbFaults.Seed = sc.Seed
	events := eventbus.NewRandomFaults(sc.Seed, sc.Faults.DropEvents, sc.Faults.DupEvents, 0)
	st, err := stack.Start(ctx, cdkOut, stack.Options{
		TimeScale: sc.TimeScale, Seed: sc.Seed, Handlers: Handlers(), DynamoDBFaults: dbFaults, EventPolicy: events,
	})
	if err != nil {
		return nil, err
	}
	defer st.Close()
	ddb, err := st.DynamoDBClient(ctx)
	if err != nil {
		return nil, err
	}
	r := &runner.Runner{StepFunctions: st.StepFunctionsClient(), DynamoDB: ddb, Progress: sc.Progress}
	runBegan := time.Now()
	report, err := r.Run(ctx, runner.Config{
		StateMachineArn:  machine.ARN,
		Executions:       sc.Executions,
		StartConcurrency: sc.StartConcurrency,
		NamePrefix:       fmt.Sprintf("simulate-%d", sc.Seed),
		LockTable:        table,
		PollInterval:     runner.Duration(max(10*time.Millisecond, time.Duration(float64(time.Second)*sc.TimeScale))),
	})
	if err != nil {
		return nil, err
	}
	ddbStats := st.DynamoDBStats()
	helpers, err := helperTransitions(ctx, st, machine.ARN)
	if err != nil {
		return nil, err
	}
	res := &Result{Report: report, Limit: limit, StateMachineArn: machine.ARN, DeadLetters: len(st.DeadLetters())}
	res.Faults = FaultCounts{DynamoDB: ddbStats, EventsDropped: events.Dropped(), EventsDuplicated: events.Duplicated()}
	if n := float64(report.Started); n > 0 {
		res.TransitionsPerExecution = report.TransitionsPerExecution + float64(helpers)/n
		res.DynamoDBRequestsPerExecution = float64(ddbStats.Requests) / n
		res.ReadUnitsPerExecution = ddbStats.ReadUnits / n
		res.WriteUnitsPerExecution = ddbStats.WriteUnits / n
		res.FailedConditionWriteUnitsPerExecution = ddbStats.FailedConditionalWriteUnits / n
	}
	res.LargestLockItemKB = float64(ddbStats.LargestItemBytes) / 1024
	res.IdealMakespanSeconds = report.WorkSeconds / float64(limit)
	if res.IdealMakespanSeconds > 0 {
		res.MakespanOverIdeal = report.MakespanSeconds / res.IdealMakespanSeconds
	}
	res.RunSeconds = time.Since(runBegan).Seconds()
	res.WallSeconds = time.Since(began).Seconds()
	return res, nil
}

// findSemaphore returns the template's semaphore machine and its limit.
func findSemaphore(tmpl *template.Template) (template.StateMachine, int, error) {
	for _, sm := range tmpl.StateMachines {
		m, err := asl.Parse([]byte(sm.Definition))
		if err != nil {
			continue
		}
		if limit, ok := machines.SemaphoreLimit(m); ok {
			return sm, limit, nil
		}
	}
	return template.StateMachine{}, 0, fmt.Errorf("%w (stack %s has %d state machines)", ErrNoSemaphore, tmpl.StackName, len(tmpl.StateMachines))
}

// lockTable returns the name of the stack's lock table: the one keyed by LockName.
func lockTable(tmpl *template.Template) (string, error) {
	for _, t := range tmpl.Tables {
		if len(t.KeySchema) == 1 && t.KeySchema[0].AttributeName == machines.AttributeLockName {
			return t.Name, nil
		}
	}
	return "", fmt.Errorf("%w: no table keyed by %s", ErrNoSemaphore, machines.AttributeLockName)
}
