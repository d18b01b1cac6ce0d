package handoff

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/aws/aws-lambda-go/lambda/messages"

	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/lock"
	"github.com/turnstile-sfn/turnstile/metrics"
)

// Request is the function's payload, as the state machines send it.
type Request struct {
	// Action is machines.HandOffActionPark, HandOffActionRelease or HandOffActionLeave.
	Action string `json:"action"`
	// LockName is the lock's name.
	LockName string `json:"lockName"`
	// Limit is the lock's limit.
	Limit int `json:"limit"`
	// ExecutionArn is the execution that parks, releases or leaves.
	ExecutionArn string `json:"executionArn"`
	// Ticket is the execution's ticket (park and leave).
	Ticket int64 `json:"ticket,omitempty"`
	// Priority is the execution's priority (park and leave), lock.MinPriority to
	// lock.MaxPriority, sent by a semaphore with priorities: the execution waits under
	// lock.Place(Ticket, *Priority, PriorityAgeing). Nil without priorities: it waits under
	// its ticket.
	Priority *int `json:"priority,omitempty"`
	// PriorityAgeing is the ageing step of lock.Place, sent with Priority.
	PriorityAgeing int64 `json:"priorityAgeing,omitempty"`
	// Weight is how many slots the execution takes (park only), sent by a semaphore with
	// weighted permits: a whole number from 1 to the limit. Empty means 1.
	Weight json.Number `json:"weight,omitempty"`
	// TaskToken is the parked task's token (park only).
	TaskToken string `json:"taskToken,omitempty"`
	// RetryCount is the park task's $$.State.RetryCount: above 0, the execution parks again.
	RetryCount int `json:"retryCount,omitempty"`
	// IfHeld asks a release to read first whether the execution holds a slot (the cleanup
	// releases for executions whose own release may have run).
	IfHeld bool `json:"ifHeld,omitempty"`
}

// Response is what the function returns: the result of the action it ran.
type Response struct {
	// Park is set for a park.
	Park *lock.ParkResult `json:"park,omitempty"`
	// Release is set for a release or a leave.
	Release *lock.ReleaseResult `json:"release,omitempty"`
}

// Handler serves the hand-off function's invocations.
type Handler struct {
	locks   *lock.Client
	metrics *metrics.Logger
}

// New returns the Handler over the locks of one table.
func New(locks *lock.Client, opts ...Option) *Handler {
	h := &Handler{locks: locks}
	for _, o := range opts {
		o(h)
	}
	return h
}

// Handle runs one request. Its errors carry the state machine error names of lock.ErrorName
// (Turnstile.QueueBusy, Turnstile.LockTableError, Turnstile.InvalidHandOffRequest), so the
// machines can retry or catch them by name.
func (h *Handler) Handle(ctx context.Context, req Request) (Response, error) {
	var res Response
	start := h.metrics.Now()
	place, err := req.place()
	if err != nil {
		return Response{}, named(err)
	}
	weight, err := req.weight()
	if err != nil {
		return Response{}, named(err)
	}
	switch req.Action {
	case machines.HandOffActionPark:
		var p lock.ParkResult
		p, err = h.locks.Park(ctx, lock.ParkRequest{
			Lock: req.LockName, Limit: req.Limit, Execution: req.ExecutionArn,
			Ticket: place, Token: req.TaskToken, Again: req.RetryCount > 0, Weight: weight,
		})
		res.Park = &p
	case machines.HandOffActionRelease:
		release := h.locks.Release
		if req.IfHeld {
			release = h.locks.ReleaseIfHeld
		}
		var r lock.ReleaseResult
		r, err = release(ctx, req.LockName, req.ExecutionArn, req.Limit)
		res.Release = &r
	case machines.HandOffActionLeave:
		var r lock.ReleaseResult
		r, err = h.locks.Leave(ctx, req.LockName, req.ExecutionArn, place, req.Limit)
		res.Release = &r
	default:
		err = fmt.Errorf("%w: unknown action %q (want %q, %q or %q)", lock.ErrInvalidRequest, req.Action,
			machines.HandOffActionPark, machines.HandOffActionRelease, machines.HandOffActionLeave)
	}
	if err != nil {
		return Response{}, named(err)
	}
	h.report(req, res, start)
	return res, nil
}

// place is the execution's place in the queue: its ticket, or with a priority lock.Place of it.
func (req Request) place() (int64, error) {
	if req.Priority == nil {
		return req.Ticket, nil
	}
	if err := lock.CheckPriority(*req.Priority, req.PriorityAgeing); err != nil {
		return 0, err
	}
	return lock.Place(req.Ticket, *req.Priority, req.PriorityAgeing), nil
}

// weight is the execution's weight, 0 when the request has none.
func (req Request) weight() (int, error) {
	if req.Weight == "" {
		return 0, nil
	}
	// A whole number written with a fraction (3.0) is that number.
	w, err := strconv.ParseFloat(string(req.Weight), 64)
	if err != nil || w < 1 || w != math.Trunc(w) || w > lock.MaxLimit {
		return 0, fmt.Errorf("%w: weight %s is not a whole number from 1 to %d", lock.ErrInvalidRequest, req.Weight, lock.MaxLimit)
	}
	return int(w), nil
}

// named gives err the error name the state machines know it by, as Lambda reports it.
func named(err error) error {
	name := lock.ErrorName(err)
	if name == "" {
		return err
	}
	return messages.InvokeResponse_Error{Message: err.Error(), Type: name}
}

// ErrMissingTable is returned by TableFromEnv when the lock table is not configured.
var ErrMissingTable = errors.New("handoff: " + machines.EnvHandOffLockTable + " is not set")

// TableFromEnv reads the lock table's name from the environment.
func TableFromEnv(lookup func(string) (string, bool)) (string, error) {
	table, _ := lookup(machines.EnvHandOffLockTable)
	if table == "" {
		return "", ErrMissingTable
	}
	return table, nil
}
