package emulator

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/emulator/sfnapi"
)

// Redrive limits of AWS.
const (
	redriveWindow   = 14 * 24 * time.Hour
	maxRedriveCount = 1000
)

// Redrive statuses, as DescribeExecution reports them.
const (
	RedriveStatusRedrivable    = "REDRIVABLE"
	RedriveStatusNotRedrivable = "NOT_REDRIVABLE"
)

// execution is one execution of a state machine, across its redrives.
type execution struct {
	em        *Emulator
	sm        *stateMachine
	arn, name string
	input     any
	inputJSON string
	startDate time.Time

	mu            sync.Mutex
	status        ExecutionStatus
	stopDate      time.Time
	output        *string
	errName       *string
	cause         *string
	events        []HistoryEvent
	sealed        bool // no event may be added: the run has ended
	redriveCount  int
	redriveDate   time.Time
	notRedrivable string      // why a redrive is impossible, beyond the status
	resume        *checkpoint // where a redrive resumes
	issuedTokens  map[string]bool
	run           *executionRun // the current run (the first one, or the last redrive)
	// vars are the execution's top-level workflow variables; a redrive resumes with them (only
	// the runs' goroutines touch them, one run at a time).
	vars *varScope
}

// executionRun is one run of an execution: the start or a redrive.
type executionRun struct {
	ctx       context.Context
	cancel    context.CancelCauseFunc
	deadline  *time.Time // virtual execution deadline (TimeoutSeconds)
	stopAlarm func() bool
	done      chan struct{}
	waiters   []*Signal // goroutines of the emulator waiting for the run to end
}

// terminal describes how a run ends.
type terminal struct {
	status  ExecutionStatus
	output  string // SUCCEEDED
	errName string
	cause   string
	reason  error // cancellation cause for the run's flows
	silent  bool  // no status-change notification (Close)
}

// emit appends an event of a flow at the flow's virtual time, after prev, the flow's previous
// event, and returns its id. It returns false when the history is sealed or the event would pass
// the history cap, in which case the execution fails as AWS makes it.
func (ex *execution) emit(prev int64, at time.Time, typ sfnapi.HistoryEventType, fill func(*HistoryEvent)) (int64, bool) {
	ex.mu.Lock()
	if ex.sealed {
		ex.mu.Unlock()
		return 0, false
	}
	if len(ex.events)+1 >= ex.em.opts.MaxHistoryEvents {
		ex.mu.Unlock()
		limit := ex.em.opts.MaxHistoryEvents
		ex.finish(terminal{
			status: StatusFailed, errName: asl.ErrorRuntime,
			cause:  fmt.Sprintf("The execution reached the maximum number of history events (%d).", limit),
			reason: errHistoryLimit,
		})
		return 0, false
	}
	id := ex.appendLocked(prev, at, typ, fill)
	ex.mu.Unlock()
	return id, true
}

// appendLocked appends an event; ex.mu must be held.
func (ex *execution) appendLocked(prev int64, at time.Time, typ sfnapi.HistoryEventType, fill func(*HistoryEvent)) int64 {
	// Filled in place: an event is large, and copying it in costs more than the rest.
	ex.events = append(ex.events, HistoryEvent{
		ID:              int64(len(ex.events)) + 1,
		PreviousEventID: prev,
		Timestamp:       sfnapi.NewTimestamp(at),
		Type:            typ,
	})
	ev := &ex.events[len(ex.events)-1]
	if fill != nil {
		fill(ev)
	}
	return ev.ID
}

// now returns the current virtual time.
func (ex *execution) now() time.Time { return ex.em.clock.Now() }

// finish ends the current run with a terminal status, unless it has already ended: it records
// the terminal event, seals the history, stops every flow of the run and notifies listeners.
func (ex *execution) finish(t terminal) bool {
	ex.mu.Lock()
	if ex.status != StatusRunning {
		ex.mu.Unlock()
		return false
	}
	ex.status = t.status
	ex.stopDate = ex.now()
	prev := int64(len(ex.events))
	if last := ex.events[prev-1].Timestamp.Time; last.After(ex.stopDate) {
		ex.stopDate = last // a branch's virtual time may be ahead of the main flow's
	}
	switch t.status {
	case StatusSucceeded:
		out := t.output
		ex.output = &out
		ex.appendLocked(prev, ex.stopDate, sfnapi.EventExecutionSucceeded, func(e *HistoryEvent) {
			e.ExecutionSucceededEventDetails = &sfnapi.OutputEventDetails{Output: out, OutputDetails: untruncated()}
		})
	default:
		ex.errName, ex.cause = optional(t.errName), optional(t.cause)
		details := &sfnapi.FailureEventDetails{Error: t.errName, Cause: t.cause}
		ex.appendLocked(prev, ex.stopDate, terminalEvent[t.status], func(e *HistoryEvent) {
			switch t.status {
			case StatusFailed:
				e.ExecutionFailedEventDetails = details
			case StatusTimedOut:
				e.ExecutionTimedOutEventDetails = details
			default:
				e.ExecutionAbortedEventDetails = details
			}
		})
		if t.reason == errHistoryLimit {
			ex.notRedrivable = "Execution history event limit exceeded"
		}
	}
	ex.sealed = true
	ex.sm.historyLength.Store(int64(len(ex.events)))
	run := ex.run
	if !t.silent {
		// Queued under ex.mu, before a redrive can queue its RUNNING change.
		ex.em.status.publish(ex.statusChangeLocked())
	}
	ex.mu.Unlock()

	if run.stopAlarm != nil {
		run.stopAlarm()
	}
	if t.reason != nil {
		run.cancel(t.reason)
		ex.em.clock.interrupt()
	}
	ex.em.noteClosed(ex.arn)
	return true
}

// terminalEvent gives the history event of each terminal status but SUCCEEDED.
var terminalEvent = map[ExecutionStatus]sfnapi.HistoryEventType{
	StatusFailed:   sfnapi.EventExecutionFailed,
	StatusTimedOut: sfnapi.EventExecutionTimedOut,
	StatusAborted:  sfnapi.EventExecutionAborted,
}

// optional returns a pointer to s, or nil for an empty string.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// redriveStatusLocked says whether the execution can be redriven now, and why not.
func (ex *execution) redriveStatusLocked() (string, string) {
	switch {
	case ex.status == StatusRunning || ex.status == StatusSucceeded:
		return RedriveStatusNotRedrivable, fmt.Sprintf("Execution is %s and cannot be redriven", ex.status)
	case ex.notRedrivable != "":
		return RedriveStatusNotRedrivable, ex.notRedrivable
	case ex.redriveCount >= maxRedriveCount:
		return RedriveStatusNotRedrivable, "Execution has reached the maximum redrive count"
	case ex.em.clock.Now().Sub(ex.stopDate) > redriveWindow:
		return RedriveStatusNotRedrivable, "Execution stopped more than 14 days ago"
	}
	return RedriveStatusRedrivable, ""
}

// statusChangeLocked builds the status-change notification of the current state.
func (ex *execution) statusChangeLocked() StatusChange {
	c := StatusChange{Time: ex.now(), ExecutionDescription: ExecutionDescription{
		ExecutionArn: ex.arn, StateMachineArn: ex.sm.arn, Name: ex.name, Status: ex.status,
		StartDate: ex.startDate, Input: ex.inputJSON, Output: ex.output, Error: ex.errName, Cause: ex.cause,
		RedriveCount: ex.redriveCount,
	}}
	if ex.status != StatusRunning {
		stop := ex.stopDate
		c.StopDate = &stop
	}
	if ex.redriveCount > 0 {
		d := ex.redriveDate
		c.RedriveDate = &d
	}
	c.RedriveStatus, c.RedriveStatusReason = ex.redriveStatusLocked()
	return c
}

// startRunLocked starts a run (the first one or a redrive) from a checkpoint (nil: from
// StartAt). ex.mu must be held, and em.begin must have counted the run's goroutine.
func (ex *execution) startRunLocked(resume *checkpoint) {
	ctx, cancel := context.WithCancelCause(ex.em.baseCtx)
	run := &executionRun{ctx: ctx, cancel: cancel, done: make(chan struct{})}
	if ts := ex.sm.model.TimeoutSeconds; ts != nil {
		dl := ex.em.clock.Now().Add(time.Duration(*ts) * time.Second)
		run.deadline = &dl
		run.ctx = withVirtualDeadline(run.ctx, dl)
		run.stopAlarm = ex.em.clock.alarm(dl, func() {
			ex.finish(terminal{status: StatusTimedOut, errName: asl.ErrorTimeout, reason: errTimedOut})
		})
	}
	ex.run = run
	ex.em.clock.Go(func() { ex.runGoroutine(run, resume) })
}

// awaitRun blocks a goroutine of the emulator (holding a busy token) until the run ends or ctx
// does.
func (ex *execution) awaitRun(ctx context.Context, run *executionRun) error {
	sig := ex.em.clock.NewSignal()
	ex.mu.Lock()
	select {
	case <-run.done:
		sig.Fire()
	default:
		run.waiters = append(run.waiters, sig)
	}
	ex.mu.Unlock()
	return sig.Wait(ctx)
}

// runGoroutine interprets the machine for one run and records how it ended.
func (ex *execution) runGoroutine(run *executionRun, resume *checkpoint) {
	defer ex.em.wg.Done()
	defer func() {
		ex.mu.Lock()
		close(run.done)
		waiters := run.waiters
		run.waiters = nil
		ex.mu.Unlock()
		for _, w := range waiters {
			w.Fire()
		}
	}()
	r := &runner{ex: ex, run: run, ctx: run.ctx, rng: derivedRand(ex.em.opts.Seed, fmt.Sprintf("%s#%d", ex.arn, ex.redriveCountNow())), key: ""}
	if ex.vars == nil {
		ex.vars = newVarScope(nil)
	}
	r.vars = ex.vars
	out, err := r.runGraph(ex.sm.root, ex.input, resume)
	var checkpoint *checkpoint
	switch e := err.(type) {
	case nil:
		// The last state's output, already checked against MaxPayloadBytes.
		ex.finish(terminal{status: StatusSucceeded, output: encodeJSON(out)})
	case *failure:
		checkpoint = e.resume
		ex.finish(terminal{status: StatusFailed, errName: e.name, cause: e.cause, reason: errEnded})
	case *interruption:
		checkpoint = e.resume
	}
	run.cancel(errEnded)
	ex.mu.Lock()
	ex.resume = checkpoint
	ex.mu.Unlock()
}

func (ex *execution) redriveCountNow() int {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	return ex.redriveCount
}

// begin counts a new execution goroutine, unless the emulator is closed.
func (em *Emulator) begin() bool {
	em.mu.Lock()
	defer em.mu.Unlock()
	if em.closed {
		return false
	}
	em.wg.Add(1)
	return true
}

// noteClosed records a closed execution and forgets the oldest ones beyond the retention limit.
func (em *Emulator) noteClosed(arn string) {
	em.mu.Lock()
	defer em.mu.Unlock()
	em.closedOrder = append(em.closedOrder, arn)
	for len(em.closedOrder) > em.opts.MaxClosedExecutions {
		old := em.closedOrder[0]
		em.closedOrder = em.closedOrder[1:]
		if ex, ok := em.executions[old]; ok && ex.isClosed() {
			delete(em.executions, old)
		}
	}
}

func (ex *execution) isClosed() bool {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	return ex.status != StatusRunning
}
