package stack

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/turnstile-sfn/turnstile/emulator"
	"github.com/turnstile-sfn/turnstile/emulator/sfnapi"
	"github.com/turnstile-sfn/turnstile/emulator/template"
)

// backend serves the Step Functions API (sfnapi) from the emulator: it translates requests,
// replies and errors between the wire shapes and the emulator's Go API.
type backend struct {
	em       *emulator.Emulator
	machines []template.StateMachine // for ListStateMachines, in the template's order
}

var _ sfnapi.Backend = (*backend)(nil)

func newBackend(em *emulator.Emulator, machines []template.StateMachine) *backend {
	return &backend{em: em, machines: machines}
}

// apiError translates the emulator's API errors to the wire's; others pass unchanged (the
// server reports them as internal failures).
func apiError(err error) error {
	var e *emulator.APIError
	if errors.As(err, &e) {
		return &sfnapi.APIError{Code: sfnapi.ErrorCode(e.Code), Message: e.Message, Err: err}
	}
	return err
}

// timestamp converts an optional time; nil gives the zero Timestamp, which is left out.
func timestamp(t *time.Time) sfnapi.Timestamp {
	if t == nil {
		return sfnapi.Timestamp{}
	}
	return sfnapi.NewTimestamp(*t)
}

// StartExecution starts an execution.
func (b *backend) StartExecution(ctx context.Context, in *sfnapi.StartExecutionInput) (*sfnapi.StartExecutionOutput, error) {
	out, err := b.em.StartExecution(ctx, in.StateMachineArn, in.Name, in.Input)
	if err != nil {
		return nil, apiError(err)
	}
	return &sfnapi.StartExecutionOutput{ExecutionArn: out.ExecutionArn, StartDate: sfnapi.NewTimestamp(out.StartDate)}, nil
}

// DescribeExecution describes an execution.
func (b *backend) DescribeExecution(ctx context.Context, in *sfnapi.DescribeExecutionInput) (*sfnapi.DescribeExecutionOutput, error) {
	d, err := b.em.DescribeExecution(ctx, in.ExecutionArn)
	if err != nil {
		return nil, apiError(err)
	}
	included := &sfnapi.CloudWatchEventsExecutionDataDetails{Included: true}
	out := &sfnapi.DescribeExecutionOutput{
		ExecutionArn:        d.ExecutionArn,
		StateMachineArn:     d.StateMachineArn,
		Name:                d.Name,
		Status:              sfnapi.ExecutionStatus(d.Status),
		StartDate:           sfnapi.NewTimestamp(d.StartDate),
		StopDate:            timestamp(d.StopDate),
		Input:               d.Input,
		InputDetails:        included,
		Output:              deref(d.Output),
		Error:               deref(d.Error),
		Cause:               deref(d.Cause),
		RedriveCount:        int32(d.RedriveCount),
		RedriveDate:         timestamp(d.RedriveDate),
		RedriveStatus:       sfnapi.ExecutionRedriveStatus(d.RedriveStatus),
		RedriveStatusReason: d.RedriveStatusReason,
	}
	if d.Output != nil {
		out.OutputDetails = included
	}
	return out, nil
}

// ListExecutions lists executions, newest first, a page at a time.
func (b *backend) ListExecutions(ctx context.Context, in *sfnapi.ListExecutionsInput) (*sfnapi.ListExecutionsOutput, error) {
	if in.MapRunArn != "" || in.RedriveFilter != "" {
		return nil, sfnapi.ValidationException("the emulator does not support mapRunArn or redriveFilter")
	}
	items, next, err := b.em.ListExecutions(ctx, emulator.ListExecutionsInput{
		StateMachineArn: in.StateMachineArn,
		StatusFilter:    emulator.ExecutionStatus(in.StatusFilter),
		MaxResults:      int(in.MaxResults),
		NextToken:       in.NextToken,
	})
	if err != nil {
		return nil, apiError(err)
	}
	out := &sfnapi.ListExecutionsOutput{Executions: make([]sfnapi.ExecutionListItem, len(items)), NextToken: next}
	for i, e := range items {
		out.Executions[i] = sfnapi.ExecutionListItem{
			ExecutionArn:    e.ExecutionArn,
			StateMachineArn: e.StateMachineArn,
			Name:            e.Name,
			Status:          sfnapi.ExecutionStatus(e.Status),
			StartDate:       sfnapi.NewTimestamp(e.StartDate),
			StopDate:        timestamp(e.StopDate),
			RedriveCount:    int32(e.RedriveCount),
			RedriveDate:     timestamp(e.RedriveDate),
		}
	}
	return out, nil
}

// GetExecutionHistory returns a page of an execution's history.
func (b *backend) GetExecutionHistory(ctx context.Context, in *sfnapi.GetExecutionHistoryInput) (*sfnapi.GetExecutionHistoryOutput, error) {
	events, err := b.em.GetExecutionHistory(ctx, in.ExecutionArn)
	if err != nil {
		return nil, apiError(err)
	}
	if in.ReverseOrder {
		for i, j := 0, len(events)-1; i < j; i, j = i+1, j-1 {
			events[i], events[j] = events[j], events[i]
		}
	}
	scope := in.ExecutionArn + "|" + strconv.FormatBool(in.ReverseOrder)
	page, next, err := sfnapi.Paginate(scope, events, in.MaxResults, in.NextToken, func(e sfnapi.HistoryEvent) string {
		return strconv.FormatInt(e.ID, 10)
	})
	if err != nil {
		return nil, err
	}
	return &sfnapi.GetExecutionHistoryOutput{Events: page, NextToken: next}, nil
}

// StopExecution aborts an execution.
func (b *backend) StopExecution(ctx context.Context, in *sfnapi.StopExecutionInput) (*sfnapi.StopExecutionOutput, error) {
	at, err := b.em.StopExecution(ctx, in.ExecutionArn, in.Error, in.Cause)
	if err != nil {
		return nil, apiError(err)
	}
	return &sfnapi.StopExecutionOutput{StopDate: sfnapi.NewTimestamp(at)}, nil
}

// RedriveExecution redrives a failed, timed-out or aborted execution.
func (b *backend) RedriveExecution(ctx context.Context, in *sfnapi.RedriveExecutionInput) (*sfnapi.RedriveExecutionOutput, error) {
	at, err := b.em.RedriveExecution(ctx, in.ExecutionArn)
	if err != nil {
		return nil, apiError(err)
	}
	return &sfnapi.RedriveExecutionOutput{RedriveDate: sfnapi.NewTimestamp(at)}, nil
}

// SendTaskSuccess completes a callback task.
func (b *backend) SendTaskSuccess(ctx context.Context, in *sfnapi.SendTaskSuccessInput) (*sfnapi.SendTaskSuccessOutput, error) {
	if err := b.em.SendTaskSuccess(ctx, in.TaskToken, in.Output); err != nil {
		return nil, apiError(err)
	}
	return &sfnapi.SendTaskSuccessOutput{}, nil
}

// SendTaskFailure fails a callback task.
func (b *backend) SendTaskFailure(ctx context.Context, in *sfnapi.SendTaskFailureInput) (*sfnapi.SendTaskFailureOutput, error) {
	if err := b.em.SendTaskFailure(ctx, in.TaskToken, in.Error, in.Cause); err != nil {
		return nil, apiError(err)
	}
	return &sfnapi.SendTaskFailureOutput{}, nil
}

// SendTaskHeartbeat keeps a callback task alive.
func (b *backend) SendTaskHeartbeat(ctx context.Context, in *sfnapi.SendTaskHeartbeatInput) (*sfnapi.SendTaskHeartbeatOutput, error) {
	if err := b.em.SendTaskHeartbeat(ctx, in.TaskToken); err != nil {
		return nil, apiError(err)
	}
	return &sfnapi.SendTaskHeartbeatOutput{}, nil
}

// DescribeStateMachine describes a state machine.
func (b *backend) DescribeStateMachine(ctx context.Context, in *sfnapi.DescribeStateMachineInput) (*sfnapi.DescribeStateMachineOutput, error) {
	d, err := b.em.DescribeStateMachine(ctx, in.StateMachineArn)
	if err != nil {
		return nil, apiError(err)
	}
	return &sfnapi.DescribeStateMachineOutput{
		StateMachineArn: d.StateMachineArn,
		Name:            d.Name,
		Status:          sfnapi.StateMachineStatus("ACTIVE"),
		Definition:      d.Definition,
		RoleArn:         d.RoleArn,
		Type:            sfnapi.StateMachineType(d.Type),
		CreationDate:    sfnapi.NewTimestamp(d.CreationDate),
	}, nil
}

// ListStateMachines lists the stack's state machines, a page at a time.
func (b *backend) ListStateMachines(ctx context.Context, in *sfnapi.ListStateMachinesInput) (*sfnapi.ListStateMachinesOutput, error) {
	page, next, err := sfnapi.Paginate("machines", b.machines, in.MaxResults, in.NextToken, func(m template.StateMachine) string { return m.ARN })
	if err != nil {
		return nil, err
	}
	out := &sfnapi.ListStateMachinesOutput{StateMachines: make([]sfnapi.StateMachineListItem, 0, len(page)), NextToken: next}
	for _, m := range page {
		d, err := b.em.DescribeStateMachine(ctx, m.ARN)
		if err != nil {
			return nil, apiError(err)
		}
		out.StateMachines = append(out.StateMachines, sfnapi.StateMachineListItem{
			StateMachineArn: d.StateMachineArn, Name: d.Name, Type: sfnapi.StateMachineType(d.Type), CreationDate: sfnapi.NewTimestamp(d.CreationDate),
		})
	}
	return out, nil
}
