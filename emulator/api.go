package emulator

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/turnstile-sfn/turnstile/emulator/jsonvalue"
	"github.com/turnstile-sfn/turnstile/emulator/sfnapi"
)

// ExecutionStart is what StartExecution returns.
type ExecutionStart struct {
	ExecutionArn string
	StartDate    time.Time
}

// ExecutionDescription is what DescribeExecution returns.
type ExecutionDescription struct {
	ExecutionArn    string
	StateMachineArn string
	Name            string
	Status          ExecutionStatus
	StartDate       time.Time
	// StopDate is nil while the execution runs.
	StopDate *time.Time
	Input    string
	// Output is set once the execution succeeded.
	Output *string
	// Error and Cause are set when the execution failed, timed out or was aborted with them.
	Error *string
	Cause *string
	// RedriveCount counts the redrives; RedriveDate is the time of the last one.
	RedriveCount        int
	RedriveDate         *time.Time
	RedriveStatus       string
	RedriveStatusReason string
}

// ExecutionListItem is one execution in a ListExecutions page.
type ExecutionListItem struct {
	ExecutionArn    string
	StateMachineArn string
	Name            string
	Status          ExecutionStatus
	StartDate       time.Time
	StopDate        *time.Time
	RedriveCount    int
	RedriveDate     *time.Time
}

// ListExecutionsInput selects the executions ListExecutions returns.
type ListExecutionsInput struct {
	// StateMachineArn is the machine whose executions are listed. Required.
	StateMachineArn string
	// StatusFilter keeps only the executions with this status; empty keeps all.
	StatusFilter ExecutionStatus
	// MaxResults is the page size; 0 means 100, AWS's maximum.
	MaxResults int
	// NextToken continues a previous listing.
	NextToken string
}

// StartExecution starts an execution of a state machine. name is optional (a UUID is drawn from
// the seeded source); input is JSON text, "{}" when empty. Starting a running execution's name
// again with the same input returns it again; any other reuse of a name fails with
// ExecutionAlreadyExists, as on AWS. Other errors: StateMachineDoesNotExist, InvalidName,
// InvalidExecutionInput.
func (em *Emulator) StartExecution(_ context.Context, stateMachineArn, name, input string) (ExecutionStart, error) {
	sm, err := em.machine(stateMachineArn)
	if err != nil {
		return ExecutionStart{}, err
	}
	if name == "" {
		name = em.newUUID()
	} else if err := validateName(name); err != nil {
		return ExecutionStart{}, err
	}
	if strings.TrimSpace(input) == "" {
		input = "{}"
	}
	if len(input) > MaxPayloadBytes {
		return ExecutionStart{}, apiError(ErrInvalidExecutionInput, "Invalid Execution Input: the input exceeds the maximum size of %d bytes", MaxPayloadBytes)
	}
	value, err := jsonvalue.Decode([]byte(input))
	if err != nil {
		return ExecutionStart{}, apiError(ErrInvalidExecutionInput, "Invalid Execution Input: %v", err)
	}
	arn := fmt.Sprintf("arn:aws:states:%s:%s:execution:%s:%s", em.opts.Region, em.opts.Account, sm.name, name)
	if !em.begin() {
		return ExecutionStart{}, ErrClosed
	}
	em.mu.Lock()
	if old, ok := em.executions[arn]; ok {
		em.mu.Unlock()
		em.wg.Done()
		old.mu.Lock()
		defer old.mu.Unlock()
		if old.status == StatusRunning && old.inputJSON == input {
			return ExecutionStart{ExecutionArn: arn, StartDate: old.startDate}, nil
		}
		return ExecutionStart{}, apiError(ErrExecutionAlreadyExists, "Execution Already Exists: '%s'", arn)
	}
	ex := &execution{em: em, sm: sm, arn: arn, name: name, input: value, inputJSON: input, status: StatusRunning,
		events: make([]HistoryEvent, 0, min(sm.historyLength.Load(), maxHistoryCapacityHint))}
	em.executions[arn] = ex
	ex.mu.Lock()
	em.mu.Unlock()

	ex.startRunLocked(nil)
	ex.startDate = ex.em.clock.Now()
	ex.appendLocked(0, ex.startDate, sfnapi.EventExecutionStarted, func(e *HistoryEvent) {
		e.ExecutionStartedEventDetails = &sfnapi.ExecutionStartedEventDetails{Input: input, InputDetails: untruncated(), RoleArn: sm.roleArn}
	})
	// Published under ex.mu, so that the run's own changes come after this one.
	em.status.publish(ex.statusChangeLocked())
	start := ExecutionStart{ExecutionArn: arn, StartDate: ex.startDate}
	ex.mu.Unlock()
	return start, nil
}

// execution looks an execution up by ARN.
func (em *Emulator) execution(arn string) (*execution, error) {
	if !strings.HasPrefix(arn, "arn:") {
		return nil, apiError(ErrInvalidArn, "Invalid Arn: '%s'", arn)
	}
	em.mu.Lock()
	defer em.mu.Unlock()
	if em.closed {
		return nil, ErrClosed
	}
	ex, ok := em.executions[arn]
	if !ok {
		return nil, apiError(ErrExecutionDoesNotExist, "Execution Does Not Exist: '%s'", arn)
	}
	return ex, nil
}

// DescribeExecution returns the current state of an execution.
func (em *Emulator) DescribeExecution(_ context.Context, executionArn string) (ExecutionDescription, error) {
	ex, err := em.execution(executionArn)
	if err != nil {
		return ExecutionDescription{}, err
	}
	ex.mu.Lock()
	defer ex.mu.Unlock()
	return ex.describeLocked(), nil
}

func (ex *execution) describeLocked() ExecutionDescription {
	return ex.statusChangeLocked().ExecutionDescription
}

// ListExecutions lists a state machine's executions, newest first, a page at a time; the second
// result is the token of the next page (empty on the last one).
func (em *Emulator) ListExecutions(_ context.Context, in ListExecutionsInput) ([]ExecutionListItem, string, error) {
	sm, err := em.machine(in.StateMachineArn)
	if err != nil {
		return nil, "", err
	}
	em.mu.Lock()
	var all []*execution
	for _, ex := range em.executions {
		if ex.sm == sm {
			all = append(all, ex)
		}
	}
	em.mu.Unlock()
	var items []ExecutionListItem
	for _, ex := range all {
		ex.mu.Lock()
		d := ex.describeLocked()
		ex.mu.Unlock()
		if in.StatusFilter != "" && d.Status != in.StatusFilter {
			continue
		}
		items = append(items, ExecutionListItem{
			ExecutionArn: d.ExecutionArn, StateMachineArn: d.StateMachineArn, Name: d.Name, Status: d.Status,
			StartDate: d.StartDate, StopDate: d.StopDate, RedriveCount: d.RedriveCount, RedriveDate: d.RedriveDate,
		})
	}
	sort.Slice(items, func(i, j int) bool {
		if !items[i].StartDate.Equal(items[j].StartDate) {
			return items[i].StartDate.After(items[j].StartDate)
		}
		return items[i].ExecutionArn < items[j].ExecutionArn
	})
	offset := 0
	if in.NextToken != "" {
		if offset, err = strconv.Atoi(in.NextToken); err != nil || offset < 0 || offset > len(items) {
			return nil, "", apiError(ErrInvalidToken, "Invalid Token: '%s'", in.NextToken)
		}
	}
	size := in.MaxResults
	if size <= 0 || size > 1000 {
		size = 100
	}
	end := min(offset+size, len(items))
	next := ""
	if end < len(items) {
		next = strconv.Itoa(end)
	}
	return items[offset:end], next, nil
}

// GetExecutionHistory returns a copy of an execution's history, oldest event first.
func (em *Emulator) GetExecutionHistory(_ context.Context, executionArn string) ([]HistoryEvent, error) {
	ex, err := em.execution(executionArn)
	if err != nil {
		return nil, err
	}
	ex.mu.Lock()
	defer ex.mu.Unlock()
	return append([]HistoryEvent(nil), ex.events...), nil
}

// StopExecution aborts a running execution with an optional error and cause, and returns its
// stop date. Stopping an execution that has already ended changes nothing.
func (em *Emulator) StopExecution(_ context.Context, executionArn, errName, cause string) (time.Time, error) {
	ex, err := em.execution(executionArn)
	if err != nil {
		return time.Time{}, err
	}
	ex.finish(terminal{status: StatusAborted, errName: errName, cause: cause, reason: errAborted})
	ex.mu.Lock()
	defer ex.mu.Unlock()
	return ex.stopDate, nil
}

// Wait blocks until the execution is no longer RUNNING (or ctx ends) and returns its
// description. It is meant for tests and tools.
func (em *Emulator) Wait(ctx context.Context, executionArn string) (ExecutionDescription, error) {
	return em.waitFor(ctx, executionArn, func(ctx context.Context, ex *execution, run *executionRun) error {
		select {
		case <-run.done:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
}

// awaitEnd is Wait for a goroutine of the emulator, which holds a busy token of the clock.
func (em *Emulator) awaitEnd(ctx context.Context, executionArn string) (ExecutionDescription, error) {
	return em.waitFor(ctx, executionArn, func(ctx context.Context, ex *execution, run *executionRun) error {
		return ex.awaitRun(ctx, run)
	})
}

// waitFor returns the execution's description once it is no longer running; block waits for
// the end of a run.
func (em *Emulator) waitFor(ctx context.Context, executionArn string, block func(context.Context, *execution, *executionRun) error) (ExecutionDescription, error) {
	ex, err := em.execution(executionArn)
	if err != nil {
		return ExecutionDescription{}, err
	}
	for {
		ex.mu.Lock()
		run, status := ex.run, ex.status
		d := ex.describeLocked()
		ex.mu.Unlock()
		if status != StatusRunning {
			return d, nil
		}
		if err := block(ctx, ex, run); err != nil {
			return ExecutionDescription{}, err
		}
	}
}
