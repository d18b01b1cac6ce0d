package eventbus

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Step Functions status-change events.
const (
	// SourceStepFunctions is the source of Step Functions events.
	SourceStepFunctions = "aws.states"
	// DetailTypeExecutionStatusChange is the detail-type of execution status changes.
	DetailTypeExecutionStatusChange = "Step Functions Execution Status Change"
)

// Execution statuses, as DescribeExecution and the events report them.
const (
	StatusRunning   = "RUNNING"
	StatusSucceeded = "SUCCEEDED"
	StatusFailed    = "FAILED"
	StatusTimedOut  = "TIMED_OUT"
	StatusAborted   = "ABORTED"
)

// Redrive statuses, as DescribeExecution and the events report them.
const (
	RedriveStatusRedrivable    = "REDRIVABLE"
	RedriveStatusNotRedrivable = "NOT_REDRIVABLE"
)

// ExecutionSnapshot is the state of an execution at the moment its status changes: what
// NewStatusChangeEvent needs to build the event.
type ExecutionSnapshot struct {
	// ExecutionARN identifies the execution (arn:aws:states:region:account:execution:machine:name).
	ExecutionARN string
	// StateMachineARN identifies its state machine.
	StateMachineARN string
	// Name is the execution's name. Default: the last part of ExecutionARN.
	Name string
	// Status is one of RUNNING, SUCCEEDED, FAILED, TIMED_OUT and ABORTED.
	Status string
	// StartDate is when the execution started.
	StartDate time.Time
	// StopDate is when it stopped; zero while it runs.
	StopDate time.Time
	// Input is the execution's JSON input.
	Input string
	// Output is the JSON output of a SUCCEEDED execution; "" otherwise (null in the event).
	Output string
	// Error is the error name of a failed, timed-out or aborted execution ("" for none).
	Error string
	// Cause is the error's cause ("" for none).
	Cause string
	// RedriveCount is the number of times the execution was redriven.
	RedriveCount int
	// RedriveDate is when it was last redriven; zero if never.
	RedriveDate time.Time
	// RedriveStatus overrides the derived redrive status (REDRIVABLE for FAILED, TIMED_OUT and
	// ABORTED, NOT_REDRIVABLE otherwise), e.g. for an execution past its redrive window.
	RedriveStatus string
	// RedriveStatusReason overrides the derived reason of a NOT_REDRIVABLE status.
	RedriveStatusReason string
	// StateMachineVersionARN is the version the execution was started with ("" for none).
	StateMachineVersionARN string
	// StateMachineAliasARN is the alias the execution was started with ("" for none).
	StateMachineAliasARN string
}

// ExecutionStatusChange is the detail of a "Step Functions Execution Status Change" event:
// the fields of DescribeExecution, with dates in epoch milliseconds and null where a value is
// absent. Field order follows the AWS documentation's examples.
type ExecutionStatusChange struct {
	// ExecutionARN identifies the execution.
	ExecutionARN string `json:"executionArn"`
	// StateMachineARN identifies its state machine.
	StateMachineARN string `json:"stateMachineArn"`
	// Name is the execution's name.
	Name string `json:"name"`
	// Status is the execution's status when the event was sent.
	Status string `json:"status"`
	// StartDate is the start time in epoch milliseconds.
	StartDate int64 `json:"startDate"`
	// StopDate is the stop time in epoch milliseconds; null while running.
	StopDate *int64 `json:"stopDate"`
	// Input is the execution's JSON input.
	Input string `json:"input"`
	// Output is the JSON output of a succeeded execution; null otherwise.
	Output *string `json:"output"`
	// StateMachineVersionARN is the version started; null if none.
	StateMachineVersionARN *string `json:"stateMachineVersionArn"`
	// StateMachineAliasARN is the alias started; null if none.
	StateMachineAliasARN *string `json:"stateMachineAliasArn"`
	// RedriveCount is the number of redrives so far.
	RedriveCount int `json:"redriveCount"`
	// RedriveDate is the last redrive in epoch milliseconds; null if never redriven.
	RedriveDate *int64 `json:"redriveDate"`
	// RedriveStatus is REDRIVABLE or NOT_REDRIVABLE.
	RedriveStatus string `json:"redriveStatus"`
	// RedriveStatusReason explains NOT_REDRIVABLE; null otherwise.
	RedriveStatusReason *string `json:"redriveStatusReason"`
	// InputDetails says whether the input was included.
	InputDetails *DataDetails `json:"inputDetails"`
	// OutputDetails says whether the output was included; null without output.
	OutputDetails *DataDetails `json:"outputDetails"`
	// Error is the error name of a failed, timed-out or aborted execution; null if none.
	Error *string `json:"error"`
	// Cause is the error's cause; null if none.
	Cause *string `json:"cause"`
}

// DataDetails says whether the input or output was included in the event (it is left out
// above EventBridge's size quota; the emulator always includes it).
type DataDetails struct {
	// Included is true when the data is in the event.
	Included bool `json:"included"`
}

// NewStatusChangeEvent builds the "Step Functions Execution Status Change" event Step
// Functions sends when an execution's status changes, with the given event ID and time. The
// account and region of the envelope come from the execution's ARN.
func NewStatusChangeEvent(id string, at time.Time, exec ExecutionSnapshot) (Event, error) {
	detail, err := statusChangeDetail(exec)
	if err != nil {
		return Event{}, err
	}
	account, region, _ := arnAccountRegion(exec.ExecutionARN, "states")
	body, err := json.Marshal(detail)
	if err != nil {
		return Event{}, fmt.Errorf("eventbus: %w: %v", ErrInvalidExecution, err)
	}
	return Event{
		Version:    EventVersion,
		ID:         id,
		DetailType: DetailTypeExecutionStatusChange,
		Source:     SourceStepFunctions,
		Account:    account,
		Time:       FormatEventTime(at),
		Region:     region,
		Resources:  []string{exec.ExecutionARN},
		Detail:     body,
	}, nil
}

// statusChangeDetail validates a snapshot and derives the event's detail from it.
func statusChangeDetail(exec ExecutionSnapshot) (ExecutionStatusChange, error) {
	if _, _, ok := arnAccountRegion(exec.ExecutionARN, "states"); !ok || !strings.Contains(exec.ExecutionARN, ":execution:") {
		return ExecutionStatusChange{}, fmt.Errorf("eventbus: %w: execution ARN %q is malformed", ErrInvalidExecution, exec.ExecutionARN)
	}
	if exec.StateMachineARN == "" {
		return ExecutionStatusChange{}, fmt.Errorf("eventbus: %w: no state machine ARN", ErrInvalidExecution)
	}
	redriveStatus, reason, err := deriveRedriveStatus(exec.Status)
	if err != nil {
		return ExecutionStatusChange{}, err
	}
	if exec.RedriveStatus != "" {
		redriveStatus, reason = exec.RedriveStatus, exec.RedriveStatusReason
	}
	name := exec.Name
	if name == "" {
		name = exec.ExecutionARN[strings.LastIndex(exec.ExecutionARN, ":")+1:]
	}
	d := ExecutionStatusChange{
		ExecutionARN:           exec.ExecutionARN,
		StateMachineARN:        exec.StateMachineARN,
		Name:                   name,
		Status:                 exec.Status,
		StartDate:              exec.StartDate.UnixMilli(),
		StopDate:               epochMillis(exec.StopDate),
		Input:                  exec.Input,
		InputDetails:           &DataDetails{Included: true},
		StateMachineVersionARN: nonEmpty(exec.StateMachineVersionARN),
		StateMachineAliasARN:   nonEmpty(exec.StateMachineAliasARN),
		RedriveCount:           exec.RedriveCount,
		RedriveDate:            epochMillis(exec.RedriveDate),
		RedriveStatus:          redriveStatus,
		RedriveStatusReason:    nonEmpty(reason),
		Error:                  nonEmpty(exec.Error),
		Cause:                  nonEmpty(exec.Cause),
	}
	if exec.Status == StatusSucceeded && exec.Output != "" {
		d.Output, d.OutputDetails = &exec.Output, &DataDetails{Included: true}
	}
	return d, nil
}

// deriveRedriveStatus gives the redrive status DescribeExecution reports for a status.
func deriveRedriveStatus(status string) (redriveStatus, reason string, err error) {
	switch status {
	case StatusRunning, StatusSucceeded:
		return RedriveStatusNotRedrivable, "Execution is " + status + " and cannot be redriven", nil
	case StatusFailed, StatusTimedOut, StatusAborted:
		return RedriveStatusRedrivable, "", nil
	}
	return "", "", fmt.Errorf("eventbus: %w: unknown status %q", ErrInvalidExecution, status)
}

// epochMillis renders a time as epoch milliseconds, or nil (JSON null) for the zero time.
func epochMillis(t time.Time) *int64 {
	if t.IsZero() {
		return nil
	}
	ms := t.UnixMilli()
	return &ms
}

// nonEmpty returns a pointer to s, or nil (JSON null) for "".
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
