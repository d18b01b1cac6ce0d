package emulator

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/emulator/jsonvalue"
	"github.com/turnstile-sfn/turnstile/emulator/sfnapi"
)

// runner interprets one sequential flow of an execution: the main path, a Parallel branch or a
// Map iteration.
type runner struct {
	ex   *execution
	run  *executionRun
	ctx  context.Context // ends when the flow must stop (cause: an interruption reason)
	prev int64           // id of the flow's latest event
	rng  *rand.Rand
	key  string // the flow's path ("", "/branch0/iteration3", ...) for derived randomness
	step int    // states this flow has entered, naming each transition's latency draw
	vars *varScope
}

// stateRun is one visit of a state.
type stateRun struct {
	node        *node
	enteredID   int64
	enteredTime time.Time
	retryCount  int
	taskToken   string
	mapItem     *mapItem
	assigned    *jsonvalue.Object // the variables the visit assigns when it exits
}

// mapItem is $$.Map.Item while a Map state builds an iteration's input.
type mapItem struct {
	index int
	value any
}

// runGraph runs a graph from its start, or from a checkpoint when redriving, and returns the
// output of its terminal state. Errors are *failure or *interruption, carrying the checkpoint
// a redrive of this graph would resume from.
func (r *runner) runGraph(g *graph, input any, resume *checkpoint) (any, error) {
	name := g.startAt
	var branches []*branchCheckpoint
	if resume != nil {
		name, input, branches = resume.state, resume.input, resume.branches
	}
	for {
		n := g.states[name]
		out, next, err := r.runState(n, input, branches)
		branches = nil
		if err != nil {
			here := &checkpoint{state: name, input: input}
			var f *failure
			var i *interruption
			switch {
			case errors.As(err, &f) && f.resume == nil:
				f.resume = here
			case errors.As(err, &i) && i.resume == nil:
				i.resume = here
			}
			return nil, err
		}
		if next == "" {
			return out, nil
		}
		if crash := r.ex.em.opts.CrashAfter; crash != nil && crash(r.ex.arn, name) {
			return nil, r.crashed(name, &checkpoint{state: next, input: out})
		}
		name, input = next, out
	}
}

// runState runs one state: entered event, the state's logic, size check, exited event. It
// returns the state's output and the next state's name (empty at the end of the graph).
func (r *runner) runState(n *node, input any, branches []*branchCheckpoint) (any, string, error) {
	if err := r.checkAlive(); err != nil {
		return nil, "", err
	}
	r.step++
	if d := r.ex.em.opts.Latency.Draw(LatencyStateTransition, fmt.Sprintf("%s#%d%s#%d", r.ex.arn, r.ex.redriveCountNow(), r.key, r.step)); d > 0 {
		if err := r.sleep(d); err != nil {
			return nil, "", err
		}
	}
	inputJSON := encodeJSON(input)
	id, ok := r.emit(enteredEvent[n.typ], func(e *HistoryEvent) {
		e.StateEnteredEventDetails = &sfnapi.StateEnteredEventDetails{Name: n.name, Input: inputJSON, InputDetails: untruncated()}
	})
	if !ok {
		return nil, "", r.interrupted()
	}
	s := &stateRun{node: n, enteredID: id, enteredTime: r.now()}
	var (
		out  any
		next = n.next
		err  error
	)
	switch n.typ {
	case string(asl.TypePass):
		out, err = r.pass(s, input)
	case string(asl.TypeSucceed):
		out, err = r.succeed(s, input)
	case string(asl.TypeFail):
		return nil, "", r.fail(s, input)
	case string(asl.TypeChoice):
		out, next, err = r.choice(s, input)
	case string(asl.TypeWait):
		out, err = r.wait(s, input)
	case string(asl.TypeTask):
		out, next, err = r.task(s, input)
	case string(asl.TypeParallel):
		out, next, err = r.parallel(s, input, branches)
	case string(asl.TypeMap):
		out, next, err = r.mapState(s, input, branches)
	default:
		err = s.runtimeError("unknown state type " + n.typ)
	}
	if err != nil {
		return nil, "", err
	}
	outputJSON := encodeJSON(out)
	if len(outputJSON) > MaxPayloadBytes {
		return nil, "", &failure{name: asl.ErrorDataLimitExceeded,
			cause: fmt.Sprintf("The state/task '%s' returned a result with a size exceeding the maximum number of bytes service limit.", n.name)}
	}
	var assigned map[string]string
	if s.assigned != nil {
		assigned = make(map[string]string, s.assigned.Len())
		for _, k := range s.assigned.Keys() {
			v, _ := s.assigned.ValueForKey(k)
			assigned[k] = encodeJSON(v)
		}
	}
	if _, ok := r.emit(exitedEvent[n.typ], func(e *HistoryEvent) {
		e.StateExitedEventDetails = &sfnapi.StateExitedEventDetails{Name: n.name, Output: outputJSON, OutputDetails: untruncated()}
		if assigned != nil {
			e.StateExitedEventDetails.AssignedVariables = assigned
			e.StateExitedEventDetails.AssignedVariablesDetails = &sfnapi.AssignedVariablesDetails{}
		}
	}); !ok {
		return nil, "", r.interrupted()
	}
	if s.assigned != nil {
		r.vars.assign(s.assigned)
	}
	return out, next, nil
}

// emit records an event of this flow.
func (r *runner) emit(typ sfnapi.HistoryEventType, fill func(*HistoryEvent)) (int64, bool) {
	id, ok := r.ex.emit(r.prev, r.now(), typ, fill)
	if ok {
		r.prev = id
	}
	return id, ok
}

// checkAlive returns an interruption when the flow must stop: the run ended or was stopped, or
// virtual time passed the execution's deadline.
func (r *runner) checkAlive() error {
	if context.Cause(r.ctx) != nil {
		return r.interrupted()
	}
	if r.pastExecutionDeadline() {
		return r.timedOut()
	}
	return nil
}

// pastExecutionDeadline reports whether the flow's virtual time reached the execution's
// TimeoutSeconds.
func (r *runner) pastExecutionDeadline() bool {
	dl := r.run.deadline
	return dl != nil && !r.now().Before(*dl)
}

// interrupted returns the interruption of a flow whose context ended.
func (r *runner) interrupted() error {
	reason := context.Cause(r.ctx)
	if reason == nil {
		reason = errEnded
	}
	return &interruption{reason: reason}
}

// crashed ends the execution as ABORTED with ErrorCrash after the state named, and returns the
// flow's interruption, which a redrive resumes at resume.
func (r *runner) crashed(state string, resume *checkpoint) error {
	r.ex.finish(terminal{status: StatusAborted, errName: ErrorCrash,
		cause: fmt.Sprintf("the execution crashed after the state %q (fault injection)", state), reason: errAborted})
	return &interruption{reason: errAborted, resume: resume}
}

// timedOut ends the execution as TIMED_OUT and returns the flow's interruption.
func (r *runner) timedOut() error {
	r.ex.finish(terminal{status: StatusTimedOut, errName: asl.ErrorTimeout, reason: errTimedOut})
	return &interruption{reason: errTimedOut}
}

// now returns the current virtual time.
func (r *runner) now() time.Time { return r.ex.em.clock.Now() }

// sleep waits for d of virtual time.
func (r *runner) sleep(d time.Duration) error {
	err := r.ex.em.clock.Sleep(r.ctx, d)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrVirtualDeadline):
		return r.timedOut()
	default:
		return r.interrupted()
	}
}

// fork returns a runner for a branch or iteration of this flow, whose context ends with ctx.
func (r *runner) fork(ctx context.Context, key string, prev int64) *runner {
	return &runner{
		ex: r.ex, run: r.run, ctx: ctx, prev: prev,
		rng: derivedRand(r.ex.em.opts.Seed, r.ex.arn+r.key+key), key: r.key + key,
		vars: newVarScope(r.vars),
	}
}

// contextObject returns the context object ($$) of a state visit.
func (r *runner) contextObject(s *stateRun) *jsonvalue.Object {
	ex := r.ex
	ex.mu.Lock()
	redrives, redriveDate := ex.redriveCount, ex.redriveDate
	ex.mu.Unlock()
	// Members in the order the Developer Guide's "Context object fields" list them.
	execution := jsonvalue.Of(
		"Id", ex.arn,
		"Input", ex.input,
		"Name", ex.name,
		"RoleArn", ex.sm.roleArn,
		"StartTime", formatTime(ex.startDate),
		"RedriveCount", int64(redrives),
	)
	if redrives > 0 {
		execution.SetValueForKey("RedriveTime", formatTime(redriveDate))
	}
	co := jsonvalue.Of(
		"Execution", execution,
		"State", jsonvalue.Of(
			"EnteredTime", formatTime(s.enteredTime),
			"Name", s.node.name,
			"RetryCount", int64(s.retryCount),
		),
		"StateMachine", jsonvalue.Of("Id", ex.sm.arn, "Name", ex.sm.name),
	)
	if s.taskToken != "" {
		co.SetValueForKey("Task", jsonvalue.Of("Token", s.taskToken))
	}
	if s.mapItem != nil {
		co.SetValueForKey("Map", jsonvalue.Of("Item", jsonvalue.Of("Index", int64(s.mapItem.index), "Value", s.mapItem.value)))
	}
	return co
}

// formatTime renders a time as the context object does: ISO 8601 in UTC with milliseconds.
func formatTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}
