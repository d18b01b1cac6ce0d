package sfnapi

// ExecutionStatus is the status of an execution.
type ExecutionStatus string

// The execution statuses of the Step Functions API.
const (
	StatusRunning        ExecutionStatus = "RUNNING"
	StatusSucceeded      ExecutionStatus = "SUCCEEDED"
	StatusFailed         ExecutionStatus = "FAILED"
	StatusTimedOut       ExecutionStatus = "TIMED_OUT"
	StatusAborted        ExecutionStatus = "ABORTED"
	StatusPendingRedrive ExecutionStatus = "PENDING_REDRIVE"
)

var executionStatuses = []string{
	string(StatusRunning), string(StatusSucceeded), string(StatusFailed),
	string(StatusTimedOut), string(StatusAborted), string(StatusPendingRedrive),
}

// ExecutionRedriveStatus tells whether an execution can be redriven.
type ExecutionRedriveStatus string

// The redrive statuses of the Step Functions API.
const (
	RedriveStatusRedrivable         ExecutionRedriveStatus = "REDRIVABLE"
	RedriveStatusNotRedrivable      ExecutionRedriveStatus = "NOT_REDRIVABLE"
	RedriveStatusRedrivableByMapRun ExecutionRedriveStatus = "REDRIVABLE_BY_MAP_RUN"
)

// ExecutionRedriveFilter selects executions by whether they were redriven.
type ExecutionRedriveFilter string

// The redrive filters of ListExecutions.
const (
	RedriveFilterRedriven    ExecutionRedriveFilter = "REDRIVEN"
	RedriveFilterNotRedriven ExecutionRedriveFilter = "NOT_REDRIVEN"
)

var redriveFilters = []string{string(RedriveFilterRedriven), string(RedriveFilterNotRedriven)}

// IncludedData selects whether DescribeExecution and DescribeStateMachine return the
// execution's input and output (or the definition).
type IncludedData string

// The IncludedData values of the Step Functions API.
const (
	IncludeAllData      IncludedData = "ALL_DATA"
	IncludeMetadataOnly IncludedData = "METADATA_ONLY"
)

var includedDataValues = []string{string(IncludeAllData), string(IncludeMetadataOnly)}

// StateMachineType is the type of a state machine.
type StateMachineType string

// The state machine types of the Step Functions API.
const (
	TypeStandard StateMachineType = "STANDARD"
	TypeExpress  StateMachineType = "EXPRESS"
)

// StateMachineStatus is the status of a state machine.
type StateMachineStatus string

// The state machine statuses of the Step Functions API.
const (
	StateMachineActive   StateMachineStatus = "ACTIVE"
	StateMachineDeleting StateMachineStatus = "DELETING"
)

// LogLevel is the logging level of a state machine.
type LogLevel string

// The log levels of the Step Functions API.
const (
	LogLevelAll   LogLevel = "ALL"
	LogLevelError LogLevel = "ERROR"
	LogLevelFatal LogLevel = "FATAL"
	LogLevelOff   LogLevel = "OFF"
)
