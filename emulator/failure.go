package emulator

import (
	"errors"
	"fmt"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/emulator/jsonpath"
	"github.com/turnstile-sfn/turnstile/emulator/jsonvalue"
)

// failure is an error raised by a state: what Retry and Catch match, and what fails the execution
// when nothing handles it.
type failure struct {
	name  string
	cause string
	// heartbeat marks a heartbeat timeout. AWS reports it as States.Timeout, and a retrier or
	// catcher naming States.HeartbeatTimeout matches it too.
	heartbeat bool
	// resume is where a redrive resumes, set when the failure leaves a graph.
	resume *checkpoint
}

// Error renders the failure as "name: cause".
func (f *failure) Error() string {
	if f.cause == "" {
		return f.name
	}
	return f.name + ": " + f.cause
}

// matches reports whether one of the names of an ErrorEquals list matches the failure, with
// AWS's rules: nothing matches States.Runtime, States.ALL matches everything else,
// States.TaskFailed everything but States.Timeout, States.HeartbeatTimeout matches heartbeat
// timeouts, and other names match exactly.
func (f *failure) matches(names []string) bool {
	if f.name == asl.ErrorRuntime {
		return false
	}
	for _, n := range names {
		switch {
		case n == f.name, n == asl.ErrorAll:
			return true
		case n == asl.ErrorTaskFailed && f.name != asl.ErrorTimeout:
			return true
		case n == asl.ErrorHeartbeatTimeout && f.heartbeat:
			return true
		}
	}
	return false
}

// errorOutput is the value a catcher passes on: {"Error": ..., "Cause": ...}.
func (f *failure) errorOutput() *jsonvalue.Object {
	return jsonvalue.Of("Error", f.name, "Cause", f.cause)
}

// interruption ends a flow that was stopped from outside: StopExecution, an execution timeout,
// the history cap, a failed sibling branch, Close.
type interruption struct {
	reason error
	resume *checkpoint
}

// Error names the reason of the interruption.
func (i *interruption) Error() string { return "interrupted: " + i.reason.Error() }

// Unwrap returns the reason, e.g. errAborted.
func (i *interruption) Unwrap() error { return i.reason }

// Reasons a flow is interrupted, used as context cancellation causes.
var (
	errAborted       = errors.New("the execution was stopped")
	errEnded         = errors.New("the execution ended")
	errTimedOut      = errors.New("the execution timed out")
	errHistoryLimit  = errors.New("the execution reached the maximum number of history events")
	errClosed        = errors.New("the emulator was closed")
	errSiblingFailed = errors.New("another branch failed")
	errStateTimeout  = errors.New("the state timed out")
	errHeartbeatLost = errors.New("the task missed its heartbeat")
)

// runtimeError returns a States.Runtime failure of the running state, with the prefix AWS puts
// in front of the cause.
func (s *stateRun) runtimeError(msg string) error {
	return &failure{
		name: asl.ErrorRuntime,
		cause: fmt.Sprintf("An error occurred while executing the state '%s' (entered at the event id #%d). %s",
			s.node.name, s.enteredID, msg),
	}
}

// invalidPathError is the States.Runtime failure of an InputPath, OutputPath or ItemsPath that
// selects nothing.
func (s *stateRun) invalidPathError(p *jsonpath.Path) error {
	return s.runtimeError(fmt.Sprintf("Invalid path '%s' : No results for path: %s", p.Text, p.Normalized()))
}
