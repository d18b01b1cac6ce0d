package soak

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/turnstile-sfn/turnstile/emulator/eventbus"
)

// ARNs of the soak's imaginary semaphore machine and its executions (the holders).
const (
	stateMachineArn = "arn:aws:states:us-east-1:123456789012:stateMachine:Soak"
	executionPrefix = "arn:aws:states:us-east-1:123456789012:execution:Soak:"
)

// cleanupPattern is the Cleanup construct's rule: the semaphore machine's executions that
// ended without releasing.
const cleanupPattern = `{
	"source": ["aws.states"],
	"detail-type": ["Step Functions Execution Status Change"],
	"detail": {"stateMachineArn": ["` + stateMachineArn + `"], "status": ["FAILED", "TIMED_OUT", "ABORTED"]}
}`

// maxEventDelay bounds the seeded delay of each delivered copy of an event, so that copies
// arrive out of order.
const maxEventDelay = 2 * time.Millisecond

// cleanupRule is the rule that starts the cleanup for a status-change event: release confirms
// that the execution is not running any more and releases its holder.
func cleanupRule(release func(ctx context.Context, executionArn string) error) (eventbus.Rule, error) {
	pattern, err := eventbus.CompilePattern(cleanupPattern)
	if err != nil {
		return eventbus.Rule{}, fmt.Errorf("soak: cleanup pattern: %w", err)
	}
	invoke := func(ctx context.Context, event eventbus.Event) error {
		var detail eventbus.ExecutionStatusChange
		if err := json.Unmarshal(event.Detail, &detail); err != nil {
			return eventbus.Permanent(fmt.Errorf("soak: cleanup event detail: %w", err))
		}
		return release(ctx, detail.ExecutionARN)
	}
	return eventbus.Rule{
		Name:    "Cleanup",
		Pattern: pattern,
		Targets: []eventbus.Target{{ID: "CleanupMachine", Invoke: invoke}},
	}, nil
}

// failedEvent is the status-change event of a crashed execution.
func failedEvent(ids *eventbus.IDSource, executionArn string) (eventbus.Event, error) {
	now := time.Now()
	return eventbus.NewStatusChangeEvent(ids.NewID(), now, eventbus.ExecutionSnapshot{
		ExecutionARN:    executionArn,
		StateMachineARN: stateMachineArn,
		Status:          eventbus.StatusFailed,
		StartDate:       now,
		StopDate:        now,
		Input:           "{}",
		Error:           "Soak.Crash",
		Cause:           "the soak crashed the client",
	})
}
