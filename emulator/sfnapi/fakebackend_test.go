package sfnapi_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/turnstile-sfn/turnstile/emulator/sfnapi"
)

const (
	testAccount = "000000000000"
	machineARN  = "arn:aws:states:us-east-1:" + testAccount + ":stateMachine:demo"
	otherARN    = "arn:aws:states:us-east-1:" + testAccount + ":stateMachine:other"
	brokenARN   = "arn:aws:states:us-east-1:" + testAccount + ":stateMachine:broken"
)

// created is when the fake's state machines were created.
var created = time.Date(2026, 1, 2, 3, 4, 5, 678_000_000, time.UTC)

// fakeBackend is an in-memory Backend: a test double of the emulator's core, enough to drive
// every operation of the protocol layer.
type fakeBackend struct {
	mu         sync.Mutex
	now        time.Time
	executions []*fakeExecution // newest first
	calls      int
	taskCalls  []string
}

type fakeExecution struct {
	desc   sfnapi.DescribeExecutionOutput
	events []sfnapi.HistoryEvent
}

func newFakeBackend() *fakeBackend {
	return &fakeBackend{now: time.Date(2026, 3, 14, 15, 9, 26, 535_000_000, time.UTC)}
}

// tick advances the fake's clock and returns the new time.
func (f *fakeBackend) tick() time.Time {
	f.now = f.now.Add(1500 * time.Millisecond)
	return f.now
}

func (f *fakeBackend) find(arn string) (*fakeExecution, error) {
	for _, e := range f.executions {
		if e.desc.ExecutionArn == arn {
			return e, nil
		}
	}
	return nil, sfnapi.ExecutionDoesNotExist(arn)
}

func (f *fakeBackend) StartExecution(_ context.Context, in *sfnapi.StartExecutionInput) (*sfnapi.StartExecutionOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	switch in.StateMachineArn {
	case machineARN, otherARN:
	case brokenARN:
		return nil, errors.New("the interpreter is broken")
	default:
		return nil, sfnapi.StateMachineDoesNotExist(in.StateMachineArn)
	}
	name := in.Name
	if name == "" {
		name = fmt.Sprintf("generated-%d", len(f.executions)+1)
	}
	arn := "arn:aws:states:us-east-1:" + testAccount + ":execution:" + in.StateMachineArn[len("arn:aws:states:us-east-1:"+testAccount+":stateMachine:"):] + ":" + name
	if existing, err := f.find(arn); err == nil {
		if existing.desc.Status == sfnapi.StatusRunning && existing.desc.Input == in.Input {
			return &sfnapi.StartExecutionOutput{ExecutionArn: arn, StartDate: existing.desc.StartDate}, nil
		}
		return nil, sfnapi.ExecutionAlreadyExists(arn)
	}
	start := sfnapi.NewTimestamp(f.tick())
	e := &fakeExecution{desc: sfnapi.DescribeExecutionOutput{
		ExecutionArn:    arn,
		StateMachineArn: in.StateMachineArn,
		Name:            name,
		Status:          sfnapi.StatusRunning,
		StartDate:       start,
		Input:           in.Input,
		InputDetails:    &sfnapi.CloudWatchEventsExecutionDataDetails{Included: true},
		TraceHeader:     in.TraceHeader,
	}}
	e.events = []sfnapi.HistoryEvent{
		{Timestamp: start, Type: sfnapi.EventExecutionStarted, ID: 1, ExecutionStartedEventDetails: &sfnapi.ExecutionStartedEventDetails{
			Input: in.Input, InputDetails: &sfnapi.HistoryEventExecutionDataDetails{}, RoleArn: "arn:aws:iam::000000000000:role/demo",
		}},
		{Timestamp: start, Type: sfnapi.EventPassStateEntered, ID: 2, PreviousEventID: 1, StateEnteredEventDetails: &sfnapi.StateEnteredEventDetails{
			Name: "Hello", Input: in.Input, InputDetails: &sfnapi.HistoryEventExecutionDataDetails{},
		}},
		{Timestamp: start, Type: sfnapi.EventPassStateExited, ID: 3, PreviousEventID: 2, StateExitedEventDetails: &sfnapi.StateExitedEventDetails{
			Name: "Hello", Output: `"world"`, OutputDetails: &sfnapi.HistoryEventExecutionDataDetails{},
		}},
	}
	f.executions = slices.Insert(f.executions, 0, e)
	return &sfnapi.StartExecutionOutput{ExecutionArn: arn, StartDate: start}, nil
}

func (f *fakeBackend) DescribeExecution(_ context.Context, in *sfnapi.DescribeExecutionInput) (*sfnapi.DescribeExecutionOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	e, err := f.find(in.ExecutionArn)
	if err != nil {
		return nil, err
	}
	desc := e.desc
	return &desc, nil
}

func (f *fakeBackend) ListExecutions(_ context.Context, in *sfnapi.ListExecutionsInput) (*sfnapi.ListExecutionsOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if in.StateMachineArn != machineARN && in.StateMachineArn != otherARN {
		return nil, sfnapi.StateMachineDoesNotExist(in.StateMachineArn)
	}
	var items []sfnapi.ExecutionListItem
	for _, e := range f.executions {
		if e.desc.StateMachineArn != in.StateMachineArn || (in.StatusFilter != "" && e.desc.Status != in.StatusFilter) {
			continue
		}
		items = append(items, sfnapi.ExecutionListItem{
			ExecutionArn: e.desc.ExecutionArn, StateMachineArn: e.desc.StateMachineArn, Name: e.desc.Name,
			Status: e.desc.Status, StartDate: e.desc.StartDate, StopDate: e.desc.StopDate,
			RedriveCount: e.desc.RedriveCount, RedriveDate: e.desc.RedriveDate,
		})
	}
	scope := in.StateMachineArn + "|" + string(in.StatusFilter)
	page, next, err := sfnapi.Paginate(scope, items, in.MaxResults, in.NextToken, func(i sfnapi.ExecutionListItem) string { return i.ExecutionArn })
	if err != nil {
		return nil, err
	}
	return &sfnapi.ListExecutionsOutput{Executions: page, NextToken: next}, nil
}

func (f *fakeBackend) GetExecutionHistory(_ context.Context, in *sfnapi.GetExecutionHistoryInput) (*sfnapi.GetExecutionHistoryOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	e, err := f.find(in.ExecutionArn)
	if err != nil {
		return nil, err
	}
	events := slices.Clone(e.events)
	if in.ReverseOrder {
		slices.Reverse(events)
	}
	scope := fmt.Sprintf("%s|%t", in.ExecutionArn, in.ReverseOrder)
	page, next, err := sfnapi.Paginate(scope, events, in.MaxResults, in.NextToken, func(e sfnapi.HistoryEvent) string { return fmt.Sprint(e.ID) })
	if err != nil {
		return nil, err
	}
	return &sfnapi.GetExecutionHistoryOutput{Events: page, NextToken: next}, nil
}

func (f *fakeBackend) StopExecution(_ context.Context, in *sfnapi.StopExecutionInput) (*sfnapi.StopExecutionOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	e, err := f.find(in.ExecutionArn)
	if err != nil {
		return nil, err
	}
	if e.desc.Status == sfnapi.StatusRunning {
		e.desc.Status, e.desc.StopDate = sfnapi.StatusAborted, sfnapi.NewTimestamp(f.tick())
		e.desc.Error, e.desc.Cause = in.Error, in.Cause
	}
	return &sfnapi.StopExecutionOutput{StopDate: e.desc.StopDate}, nil
}

func (f *fakeBackend) RedriveExecution(_ context.Context, in *sfnapi.RedriveExecutionInput) (*sfnapi.RedriveExecutionOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	e, err := f.find(in.ExecutionArn)
	if err != nil {
		return nil, err
	}
	if e.desc.Status == sfnapi.StatusRunning {
		return nil, sfnapi.ExecutionNotRedrivable(in.ExecutionArn, "Execution is RUNNING and cannot be redriven")
	}
	e.desc.Status, e.desc.StopDate = sfnapi.StatusRunning, sfnapi.Timestamp{}
	e.desc.RedriveCount++
	e.desc.RedriveDate = sfnapi.NewTimestamp(f.tick())
	return &sfnapi.RedriveExecutionOutput{RedriveDate: e.desc.RedriveDate}, nil
}

// task answers the task tokens of the fake: "tok-ok" is waiting, "tok-done" finished,
// "tok-late" timed out, any other is unknown.
func (f *fakeBackend) task(op, token string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	switch token {
	case "tok-ok":
		f.taskCalls = append(f.taskCalls, op)
		return nil
	case "tok-done":
		return sfnapi.TaskDoesNotExist("Task Does Not Exist")
	case "tok-late":
		return sfnapi.TaskTimedOut("Provided task does not exist anymore")
	default:
		return sfnapi.InvalidToken("Invalid token")
	}
}

func (f *fakeBackend) SendTaskSuccess(_ context.Context, in *sfnapi.SendTaskSuccessInput) (*sfnapi.SendTaskSuccessOutput, error) {
	return nil, f.task("success "+in.Output, in.TaskToken)
}

func (f *fakeBackend) SendTaskFailure(_ context.Context, in *sfnapi.SendTaskFailureInput) (*sfnapi.SendTaskFailureOutput, error) {
	return nil, f.task("failure "+in.Error+" "+in.Cause, in.TaskToken)
}

func (f *fakeBackend) SendTaskHeartbeat(_ context.Context, in *sfnapi.SendTaskHeartbeatInput) (*sfnapi.SendTaskHeartbeatOutput, error) {
	return &sfnapi.SendTaskHeartbeatOutput{}, f.task("heartbeat", in.TaskToken)
}

func (f *fakeBackend) DescribeStateMachine(_ context.Context, in *sfnapi.DescribeStateMachineInput) (*sfnapi.DescribeStateMachineOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if in.StateMachineArn != machineARN {
		return nil, sfnapi.StateMachineDoesNotExist(in.StateMachineArn)
	}
	return &sfnapi.DescribeStateMachineOutput{
		StateMachineArn:      machineARN,
		Name:                 "demo",
		Status:               sfnapi.StateMachineActive,
		Definition:           `{"StartAt":"Hello","States":{"Hello":{"Type":"Pass","Result":"world","End":true}}}`,
		RoleArn:              "arn:aws:iam::000000000000:role/demo",
		Type:                 sfnapi.TypeStandard,
		CreationDate:         sfnapi.NewTimestamp(created),
		LoggingConfiguration: &sfnapi.LoggingConfiguration{Level: sfnapi.LogLevelOff},
		TracingConfiguration: &sfnapi.TracingConfiguration{},
	}, nil
}

func (f *fakeBackend) ListStateMachines(_ context.Context, in *sfnapi.ListStateMachinesInput) (*sfnapi.ListStateMachinesOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	var items []sfnapi.StateMachineListItem
	for i := range 5 {
		name := fmt.Sprintf("machine-%d", i)
		items = append(items, sfnapi.StateMachineListItem{
			StateMachineArn: "arn:aws:states:us-east-1:" + testAccount + ":stateMachine:" + name,
			Name:            name, Type: sfnapi.TypeStandard, CreationDate: sfnapi.NewTimestamp(created),
		})
	}
	page, next, err := sfnapi.Paginate("machines", items, in.MaxResults, in.NextToken, func(i sfnapi.StateMachineListItem) string { return i.StateMachineArn })
	if err != nil {
		return nil, err
	}
	return &sfnapi.ListStateMachinesOutput{StateMachines: page, NextToken: next}, nil
}

// callCount returns how many operations reached the backend.
func (f *fakeBackend) callCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}
