package sfnapi

// The request and response shapes of the execution operations, field for field as the Step
// Functions API reference defines them. Optional response fields are omitted when empty.

// StartExecutionInput is the request of StartExecution.
type StartExecutionInput struct {
	// StateMachineArn is the state machine (or its version or alias) to run. Required.
	StateMachineArn string `json:"stateMachineArn"`
	// Name is the execution's name; empty means the backend generates one (a UUID, as AWS).
	Name string `json:"name,omitempty"`
	// Input is the execution input, JSON text. The server has checked it parses and sets
	// "{}" when the request had none.
	Input string `json:"input,omitempty"`
	// TraceHeader is an X-Ray trace header.
	TraceHeader string `json:"traceHeader,omitempty"`
}

// StartExecutionOutput is the response of StartExecution.
type StartExecutionOutput struct {
	ExecutionArn string    `json:"executionArn"`
	StartDate    Timestamp `json:"startDate"`
}

// DescribeExecutionInput is the request of DescribeExecution.
type DescribeExecutionInput struct {
	// ExecutionArn is the execution to describe. Required.
	ExecutionArn string `json:"executionArn"`
	// IncludedData is ALL_DATA (the default) or METADATA_ONLY; the server removes the input
	// and output from the response for METADATA_ONLY.
	IncludedData IncludedData `json:"includedData,omitempty"`
}

// CloudWatchEventsExecutionDataDetails tells whether execution data is included.
type CloudWatchEventsExecutionDataDetails struct {
	Included bool `json:"included"`
}

// DescribeExecutionOutput is the response of DescribeExecution.
type DescribeExecutionOutput struct {
	ExecutionArn           string                                `json:"executionArn"`
	StateMachineArn        string                                `json:"stateMachineArn"`
	Name                   string                                `json:"name,omitempty"`
	Status                 ExecutionStatus                       `json:"status"`
	StartDate              Timestamp                             `json:"startDate"`
	StopDate               Timestamp                             `json:"stopDate,omitzero"`
	Input                  string                                `json:"input,omitempty"`
	InputDetails           *CloudWatchEventsExecutionDataDetails `json:"inputDetails,omitempty"`
	Output                 string                                `json:"output,omitempty"`
	OutputDetails          *CloudWatchEventsExecutionDataDetails `json:"outputDetails,omitempty"`
	TraceHeader            string                                `json:"traceHeader,omitempty"`
	MapRunArn              string                                `json:"mapRunArn,omitempty"`
	Error                  string                                `json:"error,omitempty"`
	Cause                  string                                `json:"cause,omitempty"`
	StateMachineVersionArn string                                `json:"stateMachineVersionArn,omitempty"`
	StateMachineAliasArn   string                                `json:"stateMachineAliasArn,omitempty"`
	// RedriveCount is 0 until the execution is redriven; AWS always returns it.
	RedriveCount        int32                  `json:"redriveCount"`
	RedriveDate         Timestamp              `json:"redriveDate,omitzero"`
	RedriveStatus       ExecutionRedriveStatus `json:"redriveStatus,omitempty"`
	RedriveStatusReason string                 `json:"redriveStatusReason,omitempty"`
}

// ListExecutionsInput is the request of ListExecutions: exactly one of StateMachineArn and
// MapRunArn is set.
type ListExecutionsInput struct {
	StateMachineArn string                 `json:"stateMachineArn,omitempty"`
	StatusFilter    ExecutionStatus        `json:"statusFilter,omitempty"`
	MaxResults      int32                  `json:"maxResults,omitempty"`
	NextToken       string                 `json:"nextToken,omitempty"`
	MapRunArn       string                 `json:"mapRunArn,omitempty"`
	RedriveFilter   ExecutionRedriveFilter `json:"redriveFilter,omitempty"`
}

// ExecutionListItem is one execution in ListExecutions.
type ExecutionListItem struct {
	ExecutionArn           string          `json:"executionArn"`
	StateMachineArn        string          `json:"stateMachineArn"`
	Name                   string          `json:"name"`
	Status                 ExecutionStatus `json:"status"`
	StartDate              Timestamp       `json:"startDate"`
	StopDate               Timestamp       `json:"stopDate,omitzero"`
	MapRunArn              string          `json:"mapRunArn,omitempty"`
	ItemCount              *int32          `json:"itemCount,omitempty"`
	StateMachineVersionArn string          `json:"stateMachineVersionArn,omitempty"`
	StateMachineAliasArn   string          `json:"stateMachineAliasArn,omitempty"`
	// RedriveCount is 0 until the execution is redriven; AWS always returns it.
	RedriveCount int32     `json:"redriveCount"`
	RedriveDate  Timestamp `json:"redriveDate,omitzero"`
}

// ListExecutionsOutput is the response of ListExecutions, newest execution first.
type ListExecutionsOutput struct {
	Executions []ExecutionListItem `json:"executions"`
	NextToken  string              `json:"nextToken,omitempty"`
}

// StopExecutionInput is the request of StopExecution.
type StopExecutionInput struct {
	ExecutionArn string `json:"executionArn"`
	Error        string `json:"error,omitempty"`
	Cause        string `json:"cause,omitempty"`
}

// StopExecutionOutput is the response of StopExecution.
type StopExecutionOutput struct {
	StopDate Timestamp `json:"stopDate"`
}

// RedriveExecutionInput is the request of RedriveExecution.
type RedriveExecutionInput struct {
	ExecutionArn string `json:"executionArn"`
	ClientToken  string `json:"clientToken,omitempty"`
}

// RedriveExecutionOutput is the response of RedriveExecution.
type RedriveExecutionOutput struct {
	RedriveDate Timestamp `json:"redriveDate"`
}
