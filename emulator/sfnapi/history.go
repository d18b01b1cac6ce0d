package sfnapi

// GetExecutionHistoryInput is the request of GetExecutionHistory.
type GetExecutionHistoryInput struct {
	ExecutionArn string `json:"executionArn"`
	MaxResults   int32  `json:"maxResults,omitempty"`
	ReverseOrder bool   `json:"reverseOrder,omitempty"`
	NextToken    string `json:"nextToken,omitempty"`
	// IncludeExecutionData defaults to true; when false the server removes the input and
	// output of every event from the response.
	IncludeExecutionData *bool `json:"includeExecutionData,omitempty"`
}

// IncludesExecutionData reports whether the events should carry their input and output.
func (in *GetExecutionHistoryInput) IncludesExecutionData() bool {
	return in.IncludeExecutionData == nil || *in.IncludeExecutionData
}

// GetExecutionHistoryOutput is the response of GetExecutionHistory.
type GetExecutionHistoryOutput struct {
	Events    []HistoryEvent `json:"events"`
	NextToken string         `json:"nextToken,omitempty"`
}

// HistoryEvent is one event of an execution's history: its id (from 1), the id of the event
// it follows (0 for the first), and the details object of its type.
type HistoryEvent struct {
	Timestamp       Timestamp        `json:"timestamp"`
	Type            HistoryEventType `json:"type"`
	ID              int64            `json:"id"`
	PreviousEventID int64            `json:"previousEventId"`

	ActivityFailedEventDetails               *FailureEventDetails                 `json:"activityFailedEventDetails,omitempty"`
	ActivityScheduleFailedEventDetails       *FailureEventDetails                 `json:"activityScheduleFailedEventDetails,omitempty"`
	ActivityScheduledEventDetails            *ActivityScheduledEventDetails       `json:"activityScheduledEventDetails,omitempty"`
	ActivityStartedEventDetails              *ActivityStartedEventDetails         `json:"activityStartedEventDetails,omitempty"`
	ActivitySucceededEventDetails            *OutputEventDetails                  `json:"activitySucceededEventDetails,omitempty"`
	ActivityTimedOutEventDetails             *FailureEventDetails                 `json:"activityTimedOutEventDetails,omitempty"`
	TaskFailedEventDetails                   *TaskFailureEventDetails             `json:"taskFailedEventDetails,omitempty"`
	TaskScheduledEventDetails                *TaskScheduledEventDetails           `json:"taskScheduledEventDetails,omitempty"`
	TaskStartFailedEventDetails              *TaskFailureEventDetails             `json:"taskStartFailedEventDetails,omitempty"`
	TaskStartedEventDetails                  *TaskStartedEventDetails             `json:"taskStartedEventDetails,omitempty"`
	TaskSubmitFailedEventDetails             *TaskFailureEventDetails             `json:"taskSubmitFailedEventDetails,omitempty"`
	TaskSubmittedEventDetails                *TaskOutputEventDetails              `json:"taskSubmittedEventDetails,omitempty"`
	TaskSucceededEventDetails                *TaskOutputEventDetails              `json:"taskSucceededEventDetails,omitempty"`
	TaskTimedOutEventDetails                 *TaskFailureEventDetails             `json:"taskTimedOutEventDetails,omitempty"`
	ExecutionFailedEventDetails              *FailureEventDetails                 `json:"executionFailedEventDetails,omitempty"`
	ExecutionStartedEventDetails             *ExecutionStartedEventDetails        `json:"executionStartedEventDetails,omitempty"`
	ExecutionSucceededEventDetails           *OutputEventDetails                  `json:"executionSucceededEventDetails,omitempty"`
	ExecutionAbortedEventDetails             *FailureEventDetails                 `json:"executionAbortedEventDetails,omitempty"`
	ExecutionTimedOutEventDetails            *FailureEventDetails                 `json:"executionTimedOutEventDetails,omitempty"`
	ExecutionRedrivenEventDetails            *ExecutionRedrivenEventDetails       `json:"executionRedrivenEventDetails,omitempty"`
	MapStateStartedEventDetails              *MapStateStartedEventDetails         `json:"mapStateStartedEventDetails,omitempty"`
	MapIterationStartedEventDetails          *MapIterationEventDetails            `json:"mapIterationStartedEventDetails,omitempty"`
	MapIterationSucceededEventDetails        *MapIterationEventDetails            `json:"mapIterationSucceededEventDetails,omitempty"`
	MapIterationFailedEventDetails           *MapIterationEventDetails            `json:"mapIterationFailedEventDetails,omitempty"`
	MapIterationAbortedEventDetails          *MapIterationEventDetails            `json:"mapIterationAbortedEventDetails,omitempty"`
	LambdaFunctionFailedEventDetails         *FailureEventDetails                 `json:"lambdaFunctionFailedEventDetails,omitempty"`
	LambdaFunctionScheduleFailedEventDetails *FailureEventDetails                 `json:"lambdaFunctionScheduleFailedEventDetails,omitempty"`
	LambdaFunctionScheduledEventDetails      *LambdaFunctionScheduledEventDetails `json:"lambdaFunctionScheduledEventDetails,omitempty"`
	LambdaFunctionStartFailedEventDetails    *FailureEventDetails                 `json:"lambdaFunctionStartFailedEventDetails,omitempty"`
	LambdaFunctionSucceededEventDetails      *OutputEventDetails                  `json:"lambdaFunctionSucceededEventDetails,omitempty"`
	LambdaFunctionTimedOutEventDetails       *FailureEventDetails                 `json:"lambdaFunctionTimedOutEventDetails,omitempty"`
	StateEnteredEventDetails                 *StateEnteredEventDetails            `json:"stateEnteredEventDetails,omitempty"`
	StateExitedEventDetails                  *StateExitedEventDetails             `json:"stateExitedEventDetails,omitempty"`
	MapRunStartedEventDetails                *MapRunStartedEventDetails           `json:"mapRunStartedEventDetails,omitempty"`
	MapRunFailedEventDetails                 *FailureEventDetails                 `json:"mapRunFailedEventDetails,omitempty"`
	MapRunRedrivenEventDetails               *MapRunRedrivenEventDetails          `json:"mapRunRedrivenEventDetails,omitempty"`
	EvaluationFailedEventDetails             *EvaluationFailedEventDetails        `json:"evaluationFailedEventDetails,omitempty"`
}

// HistoryEventExecutionDataDetails tells whether an event's input or output was truncated.
type HistoryEventExecutionDataDetails struct {
	Truncated bool `json:"truncated"`
}

// FailureEventDetails are the details of the events that report an error and a cause:
// ExecutionFailed, ExecutionAborted, ExecutionTimedOut, ActivityFailed, ActivityScheduleFailed,
// ActivityTimedOut, LambdaFunction{Failed,ScheduleFailed,StartFailed,TimedOut} and MapRunFailed.
type FailureEventDetails struct {
	Error string `json:"error,omitempty"`
	Cause string `json:"cause,omitempty"`
}

// OutputEventDetails are the details of ExecutionSucceeded, ActivitySucceeded and
// LambdaFunctionSucceeded.
type OutputEventDetails struct {
	Output        string                            `json:"output,omitempty"`
	OutputDetails *HistoryEventExecutionDataDetails `json:"outputDetails,omitempty"`
}

// ExecutionStartedEventDetails are the details of ExecutionStarted.
type ExecutionStartedEventDetails struct {
	Input                  string                            `json:"input,omitempty"`
	InputDetails           *HistoryEventExecutionDataDetails `json:"inputDetails,omitempty"`
	RoleArn                string                            `json:"roleArn,omitempty"`
	StateMachineAliasArn   string                            `json:"stateMachineAliasArn,omitempty"`
	StateMachineVersionArn string                            `json:"stateMachineVersionArn,omitempty"`
}

// ExecutionRedrivenEventDetails are the details of ExecutionRedriven.
type ExecutionRedrivenEventDetails struct {
	RedriveCount int32 `json:"redriveCount"`
}

// StateEnteredEventDetails are the details of the <Type>StateEntered events.
type StateEnteredEventDetails struct {
	Name         string                            `json:"name"`
	Input        string                            `json:"input,omitempty"`
	InputDetails *HistoryEventExecutionDataDetails `json:"inputDetails,omitempty"`
}

// StateExitedEventDetails are the details of the <Type>StateExited events.
type StateExitedEventDetails struct {
	Name                     string                            `json:"name"`
	Output                   string                            `json:"output,omitempty"`
	OutputDetails            *HistoryEventExecutionDataDetails `json:"outputDetails,omitempty"`
	AssignedVariables        map[string]string                 `json:"assignedVariables,omitempty"`
	AssignedVariablesDetails *AssignedVariablesDetails         `json:"assignedVariablesDetails,omitempty"`
}

// AssignedVariablesDetails tells whether the assigned variables of an event were truncated.
type AssignedVariablesDetails struct {
	Truncated bool `json:"truncated"`
}

// TaskCredentials are the credentials a task ran with.
type TaskCredentials struct {
	RoleArn string `json:"roleArn,omitempty"`
}

// TaskScheduledEventDetails are the details of TaskScheduled. Parameters is the JSON text of
// the task's effective parameters.
type TaskScheduledEventDetails struct {
	ResourceType       string           `json:"resourceType"`
	Resource           string           `json:"resource"`
	Region             string           `json:"region"`
	Parameters         string           `json:"parameters"`
	TimeoutInSeconds   int64            `json:"timeoutInSeconds,omitempty"`
	HeartbeatInSeconds int64            `json:"heartbeatInSeconds,omitempty"`
	TaskCredentials    *TaskCredentials `json:"taskCredentials,omitempty"`
}

// TaskStartedEventDetails are the details of TaskStarted.
type TaskStartedEventDetails struct {
	ResourceType string `json:"resourceType"`
	Resource     string `json:"resource"`
}

// TaskOutputEventDetails are the details of TaskSucceeded and TaskSubmitted.
type TaskOutputEventDetails struct {
	ResourceType  string                            `json:"resourceType"`
	Resource      string                            `json:"resource"`
	Output        string                            `json:"output,omitempty"`
	OutputDetails *HistoryEventExecutionDataDetails `json:"outputDetails,omitempty"`
}

// TaskFailureEventDetails are the details of TaskFailed, TaskStartFailed, TaskSubmitFailed and
// TaskTimedOut.
type TaskFailureEventDetails struct {
	ResourceType string `json:"resourceType"`
	Resource     string `json:"resource"`
	Error        string `json:"error,omitempty"`
	Cause        string `json:"cause,omitempty"`
}

// ActivityScheduledEventDetails are the details of ActivityScheduled.
type ActivityScheduledEventDetails struct {
	Resource           string                            `json:"resource"`
	Input              string                            `json:"input,omitempty"`
	InputDetails       *HistoryEventExecutionDataDetails `json:"inputDetails,omitempty"`
	TimeoutInSeconds   int64                             `json:"timeoutInSeconds,omitempty"`
	HeartbeatInSeconds int64                             `json:"heartbeatInSeconds,omitempty"`
}

// ActivityStartedEventDetails are the details of ActivityStarted.
type ActivityStartedEventDetails struct {
	WorkerName string `json:"workerName,omitempty"`
}

// LambdaFunctionScheduledEventDetails are the details of LambdaFunctionScheduled.
type LambdaFunctionScheduledEventDetails struct {
	Resource         string                            `json:"resource"`
	Input            string                            `json:"input,omitempty"`
	InputDetails     *HistoryEventExecutionDataDetails `json:"inputDetails,omitempty"`
	TimeoutInSeconds int64                             `json:"timeoutInSeconds,omitempty"`
	TaskCredentials  *TaskCredentials                  `json:"taskCredentials,omitempty"`
}

// MapStateStartedEventDetails are the details of MapStateStarted.
type MapStateStartedEventDetails struct {
	Length int32 `json:"length"`
}

// MapIterationEventDetails are the details of the MapIteration* events.
type MapIterationEventDetails struct {
	Name  string `json:"name"`
	Index int32  `json:"index"`
}

// MapRunStartedEventDetails are the details of MapRunStarted.
type MapRunStartedEventDetails struct {
	MapRunArn string `json:"mapRunArn"`
}

// MapRunRedrivenEventDetails are the details of MapRunRedriven.
type MapRunRedrivenEventDetails struct {
	MapRunArn    string `json:"mapRunArn"`
	RedriveCount int32  `json:"redriveCount"`
}

// EvaluationFailedEventDetails are the details of EvaluationFailed (JSONata evaluation).
type EvaluationFailedEventDetails struct {
	State    string `json:"state"`
	Error    string `json:"error,omitempty"`
	Cause    string `json:"cause,omitempty"`
	Location string `json:"location,omitempty"`
}

// withoutExecutionData returns a copy of the event without the input and output (and their
// truncation details) of its details, as GetExecutionHistory returns it when
// includeExecutionData is false.
func (e HistoryEvent) withoutExecutionData() HistoryEvent {
	drop := func(data *string, details **HistoryEventExecutionDataDetails) {
		*data, *details = "", nil
	}
	if d := e.ExecutionStartedEventDetails; d != nil {
		c := *d
		drop(&c.Input, &c.InputDetails)
		e.ExecutionStartedEventDetails = &c
	}
	if d := e.StateEnteredEventDetails; d != nil {
		c := *d
		drop(&c.Input, &c.InputDetails)
		e.StateEnteredEventDetails = &c
	}
	if d := e.StateExitedEventDetails; d != nil {
		c := *d
		drop(&c.Output, &c.OutputDetails)
		e.StateExitedEventDetails = &c
	}
	if d := e.ActivityScheduledEventDetails; d != nil {
		c := *d
		drop(&c.Input, &c.InputDetails)
		e.ActivityScheduledEventDetails = &c
	}
	if d := e.LambdaFunctionScheduledEventDetails; d != nil {
		c := *d
		drop(&c.Input, &c.InputDetails)
		e.LambdaFunctionScheduledEventDetails = &c
	}
	for _, d := range []**OutputEventDetails{&e.ExecutionSucceededEventDetails, &e.ActivitySucceededEventDetails, &e.LambdaFunctionSucceededEventDetails} {
		if *d != nil {
			c := **d
			drop(&c.Output, &c.OutputDetails)
			*d = &c
		}
	}
	for _, d := range []**TaskOutputEventDetails{&e.TaskSucceededEventDetails, &e.TaskSubmittedEventDetails} {
		if *d != nil {
			c := **d
			drop(&c.Output, &c.OutputDetails)
			*d = &c
		}
	}
	return e
}
