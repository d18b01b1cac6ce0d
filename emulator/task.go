package emulator

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/emulator/jsonpath"
	"github.com/turnstile-sfn/turnstile/emulator/jsonvalue"
	"github.com/turnstile-sfn/turnstile/emulator/sfnapi"
)

// task runs a Task state: attempts (with Retry and Catch) of calling its integration.
func (r *runner) task(s *stateRun, input any) (any, string, error) {
	effective, err := r.applyInputPath(s, input)
	if err != nil {
		return nil, "", err
	}
	return r.withRetry(s, input, func() (any, error) {
		result, err := r.taskAttempt(s, effective)
		if err != nil {
			return nil, err
		}
		selected, err := r.applyResultSelector(s, result)
		if err != nil {
			return nil, err
		}
		return r.finishResult(s, input, selected)
	}, nil)
}

// taskLimits are the resolved TimeoutSeconds and HeartbeatSeconds of a Task attempt (0: none).
type taskLimits struct {
	timeout, heartbeat int64
}

// limits resolves TimeoutSeconds(Path) and HeartbeatSeconds(Path) against the effective input.
func (r *runner) limits(s *stateRun, effective any) (taskLimits, error) {
	t := s.node.state.(*asl.Task)
	var l taskLimits
	resolve := func(field string, static *int, p *jsonpath.Path) (int64, error) {
		if static != nil {
			return int64(*static), nil
		}
		if p == nil {
			return 0, nil
		}
		v, ok := p.Get(effective, r.pathRoot(s, p))
		if !ok {
			return 0, s.invalidPathError(p)
		}
		n, ok := toInteger(v)
		if !ok || n <= 0 {
			return 0, s.runtimeError(fmt.Sprintf("The %s field must reference a positive integer: %s == %s", field, p.Text, describeValue(v)))
		}
		return n, nil
	}
	var err error
	if l.timeout, err = resolve("TimeoutSecondsPath", t.TimeoutSeconds, s.node.task.timeoutPath); err != nil {
		return l, err
	}
	l.heartbeat, err = resolve("HeartbeatSecondsPath", t.HeartbeatSeconds, s.node.task.heartbeatPath)
	return l, err
}

// taskAttempt makes one attempt of a Task: TaskScheduled, TaskStarted, the integration call (and
// for ".waitForTaskToken" the wait for the callback), then TaskSucceeded, TaskFailed or
// TaskTimedOut. It returns the task's raw result.
func (r *runner) taskAttempt(s *stateRun, effective any) (any, error) {
	ts := s.node.task
	limits, err := r.limits(s, effective)
	if err != nil {
		return nil, err
	}
	s.taskToken = ""
	if ts.pattern == PatternWaitForTaskToken {
		s.taskToken = r.newTaskToken()
	}
	params, err := r.applyParameters(s, effective)
	if err != nil {
		return nil, err
	}
	if !r.emitScheduled(ts, params, limits) {
		return nil, r.interrupted()
	}

	ctx, cancel := context.WithCancelCause(r.ctx)
	defer cancel(errEnded)
	var deadline time.Time
	if limits.timeout > 0 {
		deadline = r.now().Add(time.Duration(limits.timeout) * time.Second)
		ctx = withVirtualDeadline(ctx, deadline)
		stop := r.ex.em.clock.alarm(deadline, func() { cancel(errStateTimeout) })
		defer stop()
	}
	call := &TaskCall{
		Resource: ts.base, Pattern: ts.pattern, Parameters: jsonvalue.ToGeneric(params), TaskToken: s.taskToken,
		ExecutionArn: r.ex.arn, StateMachineArn: r.ex.sm.arn, StateName: s.node.name,
		Region: r.ex.em.opts.Region, Account: r.ex.em.opts.Account,
	}
	if limits.heartbeat > 0 {
		hb := newHeartbeat(r.ex.em.clock, time.Duration(limits.heartbeat)*time.Second, func() { cancel(errHeartbeatLost) })
		defer hb.stop()
		call.heartbeat = hb.beat
	}
	var wait *callbackWait
	if s.taskToken != "" {
		wait = &callbackWait{ex: r.ex, outcome: make(chan callbackOutcome, 1), arrived: r.ex.em.clock.NewSignal(), heartbeat: call.heartbeat}
		defer r.ex.em.awaitToken(s.taskToken, wait)()
	}

	result, err := ts.integration.Invoke(ctx, call)
	if err == nil && wait != nil {
		if !r.emitTaskOutput(ts, sfnapi.EventTaskSubmitted, encodeJSON(result)) {
			return nil, r.interrupted()
		}
		result, err = awaitCallback(ctx, wait)
	}
	return r.taskOutcome(ctx, s, deadline, result, err)
}

// awaitCallback waits for the token's outcome or the end of the task's context.
func awaitCallback(ctx context.Context, w *callbackWait) (any, error) {
	if err := w.arrived.Wait(ctx); err != nil {
		return nil, err
	}
	o := <-w.outcome
	if o.failure != nil {
		return nil, o.failure
	}
	return o.output, nil
}

// taskOutcome classifies the end of an attempt, records it and returns the result or failure.
func (r *runner) taskOutcome(ctx context.Context, s *stateRun, deadline time.Time, result any, err error) (any, error) {
	ts := s.node.task
	if context.Cause(r.ctx) != nil {
		return nil, r.interrupted()
	}
	if r.pastExecutionDeadline() {
		return nil, r.timedOut()
	}
	timedOut := !deadline.IsZero() && !r.now().Before(deadline)
	switch cause := context.Cause(ctx); {
	case cause == errHeartbeatLost && !timedOut:
		f := &failure{name: asl.ErrorTimeout, heartbeat: true}
		return nil, r.recordTaskFailure(ts, sfnapi.EventTaskTimedOut, f)
	case cause == errStateTimeout || timedOut:
		f := &failure{name: asl.ErrorTimeout}
		return nil, r.recordTaskFailure(ts, sfnapi.EventTaskTimedOut, f)
	}
	if err != nil {
		var aslErr *asl.Error
		var f *failure
		switch {
		case errors.As(err, &aslErr):
			f = &failure{name: aslErr.Name, cause: aslErr.Cause}
		case errors.As(err, &f):
		default:
			f = &failure{name: asl.ErrorTaskFailed, cause: err.Error()}
		}
		return nil, r.recordTaskFailure(ts, sfnapi.EventTaskFailed, f)
	}
	value, err := normalizeValue(result)
	if err != nil {
		return nil, r.recordTaskFailure(ts, sfnapi.EventTaskFailed, &failure{name: asl.ErrorTaskFailed, cause: err.Error()})
	}
	text := encodeJSON(value)
	if len(text) > MaxPayloadBytes {
		return nil, r.recordTaskFailure(ts, sfnapi.EventTaskFailed, &failure{name: asl.ErrorDataLimitExceeded,
			cause: fmt.Sprintf("The state/task '%s' returned a result with a size exceeding the maximum number of bytes service limit.", ts.label())})
	}
	if !r.emitTaskOutput(ts, sfnapi.EventTaskSucceeded, text) {
		return nil, r.interrupted()
	}
	return value, nil
}

// label names the resource in a States.DataLimitExceeded cause as AWS does: the service of an
// optimized integration ("lambda"), else the resource ARN.
func (ts *taskSpec) label() string {
	if ts.resourceType != "" && !ts.lambdaARN {
		return ts.resourceType
	}
	return ts.resource
}

// recordTaskFailure records a TaskFailed or TaskTimedOut event (or their Lambda forms) and
// returns the failure.
func (r *runner) recordTaskFailure(ts *taskSpec, typ sfnapi.HistoryEventType, f *failure) error {
	ok := false
	if ts.lambdaARN {
		lambdaType := map[sfnapi.HistoryEventType]sfnapi.HistoryEventType{sfnapi.EventTaskFailed: sfnapi.EventLambdaFunctionFailed, sfnapi.EventTaskTimedOut: sfnapi.EventLambdaFunctionTimedOut}[typ]
		_, ok = r.emit(lambdaType, func(e *HistoryEvent) {
			d := &sfnapi.FailureEventDetails{Error: f.name, Cause: f.cause}
			if lambdaType == sfnapi.EventLambdaFunctionFailed {
				e.LambdaFunctionFailedEventDetails = d
			} else {
				e.LambdaFunctionTimedOutEventDetails = d
			}
		})
	} else {
		_, ok = r.emit(typ, func(e *HistoryEvent) {
			d := &sfnapi.TaskFailureEventDetails{ResourceType: ts.resourceType, Resource: ts.resourceName, Error: f.name, Cause: f.cause}
			if typ == sfnapi.EventTaskFailed {
				e.TaskFailedEventDetails = d
			} else {
				e.TaskTimedOutEventDetails = d
			}
		})
	}
	if !ok {
		return r.interrupted()
	}
	return f
}

// emitScheduled records TaskScheduled and TaskStarted (or their Lambda forms).
func (r *runner) emitScheduled(ts *taskSpec, params any, l taskLimits) bool {
	paramsJSON := encodeJSON(params)
	if ts.lambdaARN {
		_, ok := r.emit(sfnapi.EventLambdaFunctionScheduled, func(e *HistoryEvent) {
			e.LambdaFunctionScheduledEventDetails = &sfnapi.LambdaFunctionScheduledEventDetails{
				Resource: ts.resource, Input: paramsJSON, InputDetails: untruncated(), TimeoutInSeconds: l.timeout,
			}
		})
		if ok {
			_, ok = r.emit(sfnapi.EventLambdaFunctionStarted, nil)
		}
		return ok
	}
	_, ok := r.emit(sfnapi.EventTaskScheduled, func(e *HistoryEvent) {
		e.TaskScheduledEventDetails = &sfnapi.TaskScheduledEventDetails{
			ResourceType: ts.resourceType, Resource: ts.resourceName, Region: r.ex.em.opts.Region,
			Parameters: paramsJSON, TimeoutInSeconds: l.timeout, HeartbeatInSeconds: l.heartbeat,
		}
	})
	if ok {
		_, ok = r.emit(sfnapi.EventTaskStarted, func(e *HistoryEvent) {
			e.TaskStartedEventDetails = &sfnapi.TaskStartedEventDetails{ResourceType: ts.resourceType, Resource: ts.resourceName}
		})
	}
	return ok
}

// emitTaskOutput records TaskSubmitted or TaskSucceeded (or LambdaFunctionSucceeded) with the
// output's JSON text.
func (r *runner) emitTaskOutput(ts *taskSpec, typ sfnapi.HistoryEventType, text string) bool {
	var ok bool
	if ts.lambdaARN {
		if typ == sfnapi.EventTaskSubmitted {
			return true // Lambda function ARNs have no callback pattern, hence no such event.
		}
		_, ok = r.emit(sfnapi.EventLambdaFunctionSucceeded, func(e *HistoryEvent) {
			e.LambdaFunctionSucceededEventDetails = &sfnapi.OutputEventDetails{Output: text, OutputDetails: untruncated()}
		})
		return ok
	}
	_, ok = r.emit(typ, func(e *HistoryEvent) {
		d := &sfnapi.TaskOutputEventDetails{ResourceType: ts.resourceType, Resource: ts.resourceName, Output: text, OutputDetails: untruncated()}
		if typ == sfnapi.EventTaskSubmitted {
			e.TaskSubmittedEventDetails = d
		} else {
			e.TaskSucceededEventDetails = d
		}
	})
	return ok
}

// heartbeat is the HeartbeatSeconds countdown of a task attempt.
type heartbeat struct {
	mu       sync.Mutex
	clock    *ScaledClock
	interval time.Duration
	lost     func()
	stopFn   func() bool
	stopped  bool
}

func newHeartbeat(clock *ScaledClock, interval time.Duration, lost func()) *heartbeat {
	h := &heartbeat{clock: clock, interval: interval, lost: lost}
	h.stopFn = clock.alarm(clock.Now().Add(interval), lost)
	return h
}

// beat restarts the countdown.
func (h *heartbeat) beat() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stopped || !h.stopFn() {
		return
	}
	h.stopFn = h.clock.alarm(h.clock.Now().Add(h.interval), h.lost)
}

func (h *heartbeat) stop() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stopped = true
	h.stopFn()
}
