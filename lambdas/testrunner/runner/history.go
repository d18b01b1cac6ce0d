package runner

import (
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/lock"
)

// Trace is what one execution's history says about it.
type Trace struct {
	// ExecutionArn identifies the execution.
	ExecutionArn string `json:"executionArn"`
	// Key is the lock key the runner gave the execution (Config.Keys), or "".
	Key string `json:"key,omitempty"`
	// Status is the final status: SUCCEEDED, FAILED, TIMED_OUT or ABORTED.
	Status string `json:"status"`
	// Error is the error name of a failed execution.
	Error string `json:"error,omitempty"`
	// Started and Ended bound the execution.
	Started time.Time `json:"started"`
	Ended   time.Time `json:"ended"`
	// WorkStarted and WorkEnded bound the work step; zero when the work never started.
	WorkStarted time.Time `json:"workStarted,omitzero"`
	WorkEnded   time.Time `json:"workEnded,omitzero"`
	// Released is when the release step finished; zero when it did not run.
	Released time.Time `json:"released,omitzero"`
	// Transitions counts the billed state transitions: states entered plus task retries.
	Transitions int `json:"transitions"`
	// DynamoDBRequests counts the DynamoDB requests the execution's tasks made.
	DynamoDBRequests int `json:"dynamodbRequests"`
	// LockName and Ticket are set for an execution that parked (Callback strategy): its lock
	// and its place in the order of arrival.
	LockName string `json:"lockName,omitempty"`
	Ticket   int64  `json:"ticket,omitempty"`
	// Priority is the priority the execution parked with (a semaphore with priorities), and
	// Place its place in the queue: lock.Place of its ticket, or without a priority the ticket.
	Priority *int  `json:"priority,omitempty"`
	Place    int64 `json:"place,omitempty"`
	// Weight is the weight the execution parked with (weighted permits); 0 for none, one slot.
	Weight int `json:"weight,omitempty"`
	// Queued is when the execution joined the wait queue (its first park answered "queued");
	// zero when it never waited in it.
	Queued time.Time `json:"queued,omitzero"`
	// Admitted is when a queued execution was given a slot handed to it by another: the time
	// its wake-up names (lock.Wake.HeldSince, the lock's grant), else the wake-up's own.
	Admitted time.Time `json:"admitted,omitzero"`
}

// Worked reports whether the execution entered the work step.
func (t *Trace) Worked() bool { return !t.WorkStarted.IsZero() }

// traceOf reads one execution's history, in event order, with the work and release states named.
func traceOf(arn string, events []types.HistoryEvent, workState string, releaseStates []string) *Trace {
	t := &Trace{ExecutionArn: arn, Transitions: Transitions(events)}
	current := ""
	for _, e := range events {
		at := time.Time{}
		if e.Timestamp != nil {
			at = *e.Timestamp
		}
		typ := string(e.Type)
		switch {
		case e.Type == types.HistoryEventTypeExecutionStarted:
			t.Started = at
		case strings.HasSuffix(typ, "StateEntered"):
			current = enteredName(e)
			if current == workState && t.WorkStarted.IsZero() {
				t.WorkStarted = at
			}
		case strings.HasSuffix(typ, "StateExited"):
			name := exitedName(e)
			switch {
			case name == workState && t.WorkEnded.IsZero():
				t.WorkEnded = at
			case slices.Contains(releaseStates, name) && !t.WorkStarted.IsZero():
				t.Released = at
			}
		case e.Type == types.HistoryEventTypeParallelStateFailed || e.Type == types.HistoryEventTypeParallelStateAborted:
			// A failed work step has no Exited event; the last Parallel failure ends it.
			if !t.WorkStarted.IsZero() && t.WorkEnded.IsZero() {
				t.WorkEnded = at
			}
		case e.Type == types.HistoryEventTypeTaskSubmitted && current == machines.StateWaitInQueue:
			if d := e.TaskSubmittedEventDetails; d != nil && t.Queued.IsZero() && readPark(d.Output).Payload.Park.Queued {
				t.Queued = at
			}
		case e.Type == types.HistoryEventTypeTaskSucceeded && current == machines.StateWaitInQueue:
			if d := e.TaskSucceededEventDetails; d != nil && !t.Queued.IsZero() {
				if p := readPark(d.Output); p.GrantedBy != arn {
					t.Admitted = at
					if granted, err := time.Parse(time.RFC3339Nano, p.HeldSince); err == nil {
						t.Admitted = granted
					}
				}
			}
		case e.Type == types.HistoryEventTypeTaskScheduled:
			if d := e.TaskScheduledEventDetails; d != nil && current == machines.StateWaitInQueue && d.Parameters != nil {
				p := readPark(d.Parameters).Payload
				t.LockName, t.Ticket, t.Priority, t.Place, t.Weight = p.LockName, p.Ticket, p.Priority, p.Ticket, p.Weight
				if p.Priority != nil {
					t.Place = lock.Place(p.Ticket, *p.Priority, p.PriorityAgeing)
				}
			}
			// resourceType is "dynamodb" for optimized integrations, "aws-sdk:dynamodb" for SDK ones.
			if d := e.TaskScheduledEventDetails; d != nil && d.ResourceType != nil && strings.HasSuffix(*d.ResourceType, "dynamodb") {
				t.DynamoDBRequests++
			}
		case e.Type == types.HistoryEventTypeExecutionSucceeded:
			t.Status, t.Ended = "SUCCEEDED", at
		case e.Type == types.HistoryEventTypeExecutionFailed:
			t.Status, t.Ended = "FAILED", at
			if d := e.ExecutionFailedEventDetails; d != nil && d.Error != nil {
				t.Error = *d.Error
			}
		case e.Type == types.HistoryEventTypeExecutionTimedOut:
			t.Status, t.Ended, t.Error = "TIMED_OUT", at, "States.Timeout"
		case e.Type == types.HistoryEventTypeExecutionAborted:
			t.Status, t.Ended, t.Error = "ABORTED", at, "Aborted"
		}
	}
	if t.Worked() && t.WorkEnded.IsZero() {
		t.WorkEnded = t.Ended
	}
	return t
}

// Transitions counts the billed state transitions of one execution's history: every state
// entered, plus every task attempt after the first (a retry is billed as a transition).
func Transitions(events []types.HistoryEvent) int {
	entered, taskEntries, taskSchedules := 0, 0, 0
	for _, e := range events {
		switch {
		case strings.HasSuffix(string(e.Type), "StateEntered"):
			entered++
			if e.Type == types.HistoryEventTypeTaskStateEntered {
				taskEntries++
			}
		case e.Type == types.HistoryEventTypeTaskScheduled:
			taskSchedules++
		}
	}
	return entered + max(taskSchedules-taskEntries, 0)
}

func enteredName(e types.HistoryEvent) string {
	if d := e.StateEnteredEventDetails; d != nil && d.Name != nil {
		return *d.Name
	}
	return ""
}

func exitedName(e types.HistoryEvent) string {
	if d := e.StateExitedEventDetails; d != nil && d.Name != nil {
		return *d.Name
	}
	return ""
}
