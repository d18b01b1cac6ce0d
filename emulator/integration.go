package emulator

import (
	"context"
	"strings"
	"sync"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/emulator/jsonpath"
)

// Pattern is a service integration pattern, chosen by the suffix of a Task's Resource.
type Pattern string

// The integration patterns.
const (
	// PatternRequestResponse calls the service and goes on with its response.
	PatternRequestResponse Pattern = "REQUEST_RESPONSE"
	// PatternWaitForTaskToken (".waitForTaskToken") calls the service with a task token, then
	// waits for SendTaskSuccess or SendTaskFailure with that token. The emulator handles the
	// waiting; the integration only makes the call.
	PatternWaitForTaskToken Pattern = "WAIT_FOR_TASK_TOKEN"
	// PatternSync (".sync") runs a job and waits for it to complete; the integration waits.
	PatternSync Pattern = "SYNC"
	// PatternSync2 (".sync:2") is PatternSync with JSON rather than string payloads.
	PatternSync2 Pattern = "SYNC2"
)

// Integration runs the Task states whose resources it supports.
type Integration interface {
	// Supports reports whether the integration runs a resource. It is asked about the resource
	// as written for ".sync" and ".sync:2", and without the suffix for ".waitForTaskToken",
	// which the emulator implements for every integration.
	Supports(resource string) bool
	// Invoke runs one attempt of a Task. It returns the result (any JSON-marshalable value) or an
	// error: an *asl.Error carries the error name and cause AWS would report (e.g.
	// "DynamoDB.ConditionalCheckFailedException"); any other error fails the task with
	// States.TaskFailed. ctx ends when the task times out or the execution stops; it carries the
	// task's virtual deadline, so sleep with Clock.Sleep(ctx, d). Invoke runs on a goroutine
	// holding a busy token of the clock: a goroutine it starts must get its own (Clock.Go).
	Invoke(ctx context.Context, call *TaskCall) (any, error)
}

// TaskCall is one attempt of a Task state, as an Integration sees it.
type TaskCall struct {
	// Resource is the Task's Resource without its ".waitForTaskToken", ".sync" or ".sync:2"
	// suffix.
	Resource string
	// Pattern is the integration pattern the suffix selected.
	Pattern Pattern
	// Parameters is the effective payload: the evaluated Parameters, or the state's effective
	// input when the state has none, in asl's generic representation (map[string]any objects).
	Parameters any
	// TaskToken is the token of a PatternWaitForTaskToken task (also in Parameters when the
	// definition passes $$.Task.Token); empty otherwise.
	TaskToken string
	// ExecutionArn and StateMachineArn name the running execution and its machine.
	ExecutionArn    string
	StateMachineArn string
	// StateName is the name of the Task state.
	StateName string
	// Region and Account are the emulator's.
	Region  string
	Account string

	heartbeatMu sync.Mutex
	heartbeat   func()
}

// Heartbeat reports that the task is alive, as SendTaskHeartbeat does for its token: it restarts
// the HeartbeatSeconds countdown of the task, if it has one.
func (c *TaskCall) Heartbeat() {
	c.heartbeatMu.Lock()
	f := c.heartbeat
	c.heartbeatMu.Unlock()
	if f != nil {
		f()
	}
}

// ResourceInvoker is an integration that receives the resource and the effective parameters
// only, as the emulator/dynamo integration does.
type ResourceInvoker interface {
	// Supports reports whether the invoker runs a resource.
	Supports(resource string) bool
	// Invoke calls the resource with the effective parameters; errors are *asl.Error.
	Invoke(ctx context.Context, resource string, params any) (any, error)
}

// FromResourceInvoker adapts a ResourceInvoker into an Integration that supports the
// request-response and ".waitForTaskToken" patterns.
func FromResourceInvoker(inv ResourceInvoker) Integration { return invokerIntegration{inv} }

type invokerIntegration struct{ inv ResourceInvoker }

// Supports asks the adapted invoker.
func (i invokerIntegration) Supports(resource string) bool { return i.inv.Supports(resource) }

// Invoke calls the adapted invoker with the resource and the effective parameters.
func (i invokerIntegration) Invoke(ctx context.Context, call *TaskCall) (any, error) {
	return i.inv.Invoke(ctx, call.Resource, call.Parameters)
}

// taskSpec is a compiled Task resource.
type taskSpec struct {
	resource      string // as written
	base          string // without the pattern suffix
	pattern       Pattern
	integration   Integration
	resourceType  string // for history events, e.g. "lambda" or "aws-sdk:sfn"
	resourceName  string // for history events, e.g. "invoke.waitForTaskToken"
	lambdaARN     bool   // a Lambda function ARN: LambdaFunction* history events
	timeoutPath   *jsonpath.Path
	heartbeatPath *jsonpath.Path
}

// splitPattern separates a resource from its integration-pattern suffix.
func splitPattern(resource string) (string, Pattern) {
	for _, s := range []struct {
		suffix  string
		pattern Pattern
	}{{".waitForTaskToken", PatternWaitForTaskToken}, {".sync:2", PatternSync2}, {".sync", PatternSync}} {
		if base, ok := strings.CutSuffix(resource, s.suffix); ok {
			return base, s.pattern
		}
	}
	return resource, PatternRequestResponse
}

// task compiles a Task state's resource and finds the integration that runs it.
func (c *compiler) task(scope string, t *asl.Task) *taskSpec {
	ts := &taskSpec{resource: t.Resource}
	ts.base, ts.pattern = splitPattern(t.Resource)
	ts.resourceType, ts.resourceName, ts.lambdaARN = describeResource(t.Resource)
	if t.TimeoutSecondsPath != "" {
		ts.timeoutPath = c.path(scope, "TimeoutSecondsPath", t.TimeoutSecondsPath)
	}
	if t.HeartbeatSecondsPath != "" {
		ts.heartbeatPath = c.path(scope, "HeartbeatSecondsPath", t.HeartbeatSecondsPath)
	}
	if strings.Contains(t.Resource, ":activity:") {
		c.fail(asl.ErrUnsupported, scope, "Resource", "activities are not supported by the emulator: "+t.Resource)
		return ts
	}
	asked := t.Resource
	if ts.pattern == PatternWaitForTaskToken {
		asked = ts.base
	}
	c.em.mu.Lock()
	for _, i := range c.em.integrations {
		if i.Supports(asked) {
			ts.integration = i
			break
		}
	}
	c.em.mu.Unlock()
	if ts.integration == nil {
		c.fail(asl.ErrUnsupported, scope, "Resource", "no registered integration supports the resource "+t.Resource)
	}
	return ts
}

// describeResource returns the resource type and name a Task's history events show.
func describeResource(resource string) (resourceType, name string, lambdaARN bool) {
	parts := strings.SplitN(resource, ":", 7)
	if len(parts) < 7 || parts[0] != "arn" {
		return "", resource, false
	}
	if parts[2] == "lambda" {
		return "lambda", resource, true
	}
	if parts[2] != "states" {
		return "", resource, false
	}
	if parts[5] == "aws-sdk" {
		service, action, _ := strings.Cut(parts[6], ":")
		return "aws-sdk:" + service, action, false
	}
	return parts[5], parts[6], false
}
