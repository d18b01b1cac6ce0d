package emulator

import "time"

// EventType is the type of a history event, as GetExecutionHistory reports it.
type EventType string

// The history event types the emulator records.
const (
	EventExecutionStarted   EventType = "ExecutionStarted"
	EventExecutionSucceeded EventType = "ExecutionSucceeded"
	EventExecutionFailed    EventType = "ExecutionFailed"
	EventExecutionAborted   EventType = "ExecutionAborted"
	EventExecutionTimedOut  EventType = "ExecutionTimedOut"
	EventExecutionRedriven  EventType = "ExecutionRedriven"

	EventPassStateEntered     EventType = "PassStateEntered"
	EventPassStateExited      EventType = "PassStateExited"
	EventChoiceStateEntered   EventType = "ChoiceStateEntered"
	EventChoiceStateExited    EventType = "ChoiceStateExited"
	EventWaitStateEntered     EventType = "WaitStateEntered"
	EventWaitStateExited      EventType = "WaitStateExited"
	EventSucceedStateEntered  EventType = "SucceedStateEntered"
	EventSucceedStateExited   EventType = "SucceedStateExited"
	EventFailStateEntered     EventType = "FailStateEntered"
	EventTaskStateEntered     EventType = "TaskStateEntered"
	EventTaskStateExited      EventType = "TaskStateExited"
	EventParallelStateEntered EventType = "ParallelStateEntered"
	EventParallelStateExited  EventType = "ParallelStateExited"
	EventMapStateEntered      EventType = "MapStateEntered"
	EventMapStateExited       EventType = "MapStateExited"

	EventTaskScheduled EventType = "TaskScheduled"
	EventTaskStarted   EventType = "TaskStarted"
	EventTaskSubmitted EventType = "TaskSubmitted"
	EventTaskSucceeded EventType = "TaskSucceeded"
	EventTaskFailed    EventType = "TaskFailed"
	EventTaskTimedOut  EventType = "TaskTimedOut"

	EventLambdaFunctionScheduled EventType = "LambdaFunctionScheduled"
	EventLambdaFunctionStarted   EventType = "LambdaFunctionStarted"
	EventLambdaFunctionSucceeded EventType = "LambdaFunctionSucceeded"
	EventLambdaFunctionFailed    EventType = "LambdaFunctionFailed"
	EventLambdaFunctionTimedOut  EventType = "LambdaFunctionTimedOut"

	EventParallelStateStarted   EventType = "ParallelStateStarted"
	EventParallelStateSucceeded EventType = "ParallelStateSucceeded"
	EventParallelStateFailed    EventType = "ParallelStateFailed"

	EventMapStateStarted       EventType = "MapStateStarted"
	EventMapStateSucceeded     EventType = "MapStateSucceeded"
	EventMapStateFailed        EventType = "MapStateFailed"
	EventMapIterationStarted   EventType = "MapIterationStarted"
	EventMapIterationSucceeded EventType = "MapIterationSucceeded"
	EventMapIterationFailed    EventType = "MapIterationFailed"
	EventMapIterationAborted   EventType = "MapIterationAborted"
)

// HistoryEvent is one event of an execution's history, with the fields GetExecutionHistory
// returns. Exactly one details field is set, according to Type (none for some types, such as
// ParallelStateStarted). Input and output payloads are JSON text, as in the AWS API.
type HistoryEvent struct {
	ID              int64     `json:"id"`
	PreviousEventID int64     `json:"previousEventId"`
	Timestamp       time.Time `json:"timestamp"`
	Type            EventType `json:"type"`

	ExecutionStartedEventDetails   *ExecutionStartedEventDetails   `json:"executionStartedEventDetails,omitempty"`
	ExecutionSucceededEventDetails *ExecutionSucceededEventDetails `json:"executionSucceededEventDetails,omitempty"`
	ExecutionFailedEventDetails    *ErrorEventDetails              `json:"executionFailedEventDetails,omitempty"`
	ExecutionAbortedEventDetails   *ErrorEventDetails              `json:"executionAbortedEventDetails,omitempty"`
	ExecutionTimedOutEventDetails  *ErrorEventDetails              `json:"executionTimedOutEventDetails,omitempty"`
	ExecutionRedrivenEventDetails  *ExecutionRedrivenEventDetails  `json:"executionRedrivenEventDetails,omitempty"`

	StateEnteredEventDetails *StateEnteredEventDetails `json:"stateEnteredEventDetails,omitempty"`
	StateExitedEventDetails  *StateExitedEventDetails  `json:"stateExitedEventDetails,omitempty"`

	TaskScheduledEventDetails *TaskScheduledEventDetails `json:"taskScheduledEventDetails,omitempty"`
	TaskStartedEventDetails   *TaskResourceEventDetails  `json:"taskStartedEventDetails,omitempty"`
	TaskSubmittedEventDetails *TaskOutputEventDetails    `json:"taskSubmittedEventDetails,omitempty"`
	TaskSucceededEventDetails *TaskOutputEventDetails    `json:"taskSucceededEventDetails,omitempty"`
	TaskFailedEventDetails    *TaskErrorEventDetails     `json:"taskFailedEventDetails,omitempty"`
	TaskTimedOutEventDetails  *TaskErrorEventDetails     `json:"taskTimedOutEventDetails,omitempty"`

	LambdaFunctionScheduledEventDetails *LambdaFunctionScheduledEventDetails `json:"lambdaFunctionScheduledEventDetails,omitempty"`
	LambdaFunctionSucceededEventDetails *ExecutionSucceededEventDetails      `json:"lambdaFunctionSucceededEventDetails,omitempty"`
	LambdaFunctionFailedEventDetails    *ErrorEventDetails                   `json:"lambdaFunctionFailedEventDetails,omitempty"`
	LambdaFunctionTimedOutEventDetails  *ErrorEventDetails                   `json:"lambdaFunctionTimedOutEventDetails,omitempty"`

	MapStateStartedEventDetails       *MapStateStartedEventDetails `json:"mapStateStartedEventDetails,omitempty"`
	MapIterationStartedEventDetails   *MapIterationEventDetails    `json:"mapIterationStartedEventDetails,omitempty"`
	MapIterationSucceededEventDetails *MapIterationEventDetails    `json:"mapIterationSucceededEventDetails,omitempty"`
	MapIterationFailedEventDetails    *MapIterationEventDetails    `json:"mapIterationFailedEventDetails,omitempty"`
	MapIterationAbortedEventDetails   *MapIterationEventDetails    `json:"mapIterationAbortedEventDetails,omitempty"`
}

// DataDetails says whether a payload was truncated; the emulator never truncates.
type DataDetails struct {
	Truncated bool `json:"truncated"`
}

// ExecutionStartedEventDetails describes an ExecutionStarted event.
type ExecutionStartedEventDetails struct {
	Input        string       `json:"input"`
	InputDetails *DataDetails `json:"inputDetails,omitempty"`
	RoleArn      string       `json:"roleArn,omitempty"`
}

// ExecutionSucceededEventDetails describes an ExecutionSucceeded (or LambdaFunctionSucceeded)
// event.
type ExecutionSucceededEventDetails struct {
	Output        string       `json:"output"`
	OutputDetails *DataDetails `json:"outputDetails,omitempty"`
}

// ErrorEventDetails carries the error and cause of a failed, aborted or timed-out execution or
// Lambda function. Empty fields are absent on the wire.
type ErrorEventDetails struct {
	Error string `json:"error,omitempty"`
	Cause string `json:"cause,omitempty"`
}

// ExecutionRedrivenEventDetails describes an ExecutionRedriven event.
type ExecutionRedrivenEventDetails struct {
	RedriveCount int `json:"redriveCount"`
}

// StateEnteredEventDetails describes a *StateEntered event.
type StateEnteredEventDetails struct {
	Name         string       `json:"name"`
	Input        string       `json:"input"`
	InputDetails *DataDetails `json:"inputDetails,omitempty"`
}

// StateExitedEventDetails describes a *StateExited event.
type StateExitedEventDetails struct {
	Name          string       `json:"name"`
	Output        string       `json:"output"`
	OutputDetails *DataDetails `json:"outputDetails,omitempty"`
}

// TaskScheduledEventDetails describes a TaskScheduled event.
type TaskScheduledEventDetails struct {
	ResourceType       string `json:"resourceType"`
	Resource           string `json:"resource"`
	Region             string `json:"region"`
	Parameters         string `json:"parameters"`
	TimeoutInSeconds   *int64 `json:"timeoutInSeconds,omitempty"`
	HeartbeatInSeconds *int64 `json:"heartbeatInSeconds,omitempty"`
}

// TaskResourceEventDetails names the resource of a TaskStarted event.
type TaskResourceEventDetails struct {
	ResourceType string `json:"resourceType"`
	Resource     string `json:"resource"`
}

// TaskOutputEventDetails describes a TaskSubmitted or TaskSucceeded event.
type TaskOutputEventDetails struct {
	ResourceType  string       `json:"resourceType"`
	Resource      string       `json:"resource"`
	Output        string       `json:"output"`
	OutputDetails *DataDetails `json:"outputDetails,omitempty"`
}

// TaskErrorEventDetails describes a TaskFailed or TaskTimedOut event.
type TaskErrorEventDetails struct {
	ResourceType string `json:"resourceType"`
	Resource     string `json:"resource"`
	Error        string `json:"error,omitempty"`
	Cause        string `json:"cause,omitempty"`
}

// LambdaFunctionScheduledEventDetails describes a LambdaFunctionScheduled event (a Task whose
// Resource is a Lambda function ARN).
type LambdaFunctionScheduledEventDetails struct {
	Resource         string       `json:"resource"`
	Input            string       `json:"input"`
	InputDetails     *DataDetails `json:"inputDetails,omitempty"`
	TimeoutInSeconds *int64       `json:"timeoutInSeconds,omitempty"`
}

// MapStateStartedEventDetails describes a MapStateStarted event.
type MapStateStartedEventDetails struct {
	Length int `json:"length"`
}

// MapIterationEventDetails describes a MapIteration* event: the Map state's name and the index
// of the iteration.
type MapIterationEventDetails struct {
	Name  string `json:"name"`
	Index int    `json:"index"`
}

// enteredEvent and exitedEvent give the event types of each state type.
var (
	enteredEvent = map[string]EventType{
		"Pass": EventPassStateEntered, "Choice": EventChoiceStateEntered, "Wait": EventWaitStateEntered,
		"Succeed": EventSucceedStateEntered, "Fail": EventFailStateEntered, "Task": EventTaskStateEntered,
		"Parallel": EventParallelStateEntered, "Map": EventMapStateEntered,
	}
	exitedEvent = map[string]EventType{
		"Pass": EventPassStateExited, "Choice": EventChoiceStateExited, "Wait": EventWaitStateExited,
		"Succeed": EventSucceedStateExited, "Task": EventTaskStateExited,
		"Parallel": EventParallelStateExited, "Map": EventMapStateExited,
	}
)

// untruncated returns the data details of a payload the emulator records: never truncated.
func untruncated() *DataDetails { return &DataDetails{} }
