package handoff

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-lambda-go/lambda/messages"

	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/internal/waitqueue"
)

// Request is the function's payload, as the state machines send it.
type Request struct {
	// Action is machines.HandOffActionPark or machines.HandOffActionRelease.
	Action string `json:"action"`
	// LockName is the lock's name.
	LockName string `json:"lockName"`
	// Limit is the lock's limit.
	Limit int `json:"limit"`
	// ExecutionArn is the execution that parks or releases.
	ExecutionArn string `json:"executionArn"`
	// TaskToken is the parked task's token (park only).
	TaskToken string `json:"taskToken,omitempty"`
}

// Response is what the function returns: the result of the action it ran.
type Response struct {
	// Park is set for a park.
	Park *waitqueue.ParkResult `json:"park,omitempty"`
	// Release is set for a release.
	Release *waitqueue.ReleaseResult `json:"release,omitempty"`
}

// Handler serves the hand-off function's invocations.
type Handler struct{ queue *waitqueue.Queue }

// New returns the Handler over q.
func New(q *waitqueue.Queue) *Handler { return &Handler{queue: q} }

// Handle runs one request. Its errors carry the state machine error names of
// waitqueue.ErrorName (Turnstile.QueueBusy, Turnstile.LockTableError,
// Turnstile.InvalidHandOffRequest), so the machines can retry or catch them by name.
func (h *Handler) Handle(ctx context.Context, req Request) (Response, error) {
	var res Response
	var err error
	switch req.Action {
	case machines.HandOffActionPark:
		var p waitqueue.ParkResult
		p, err = h.queue.Park(ctx, req.LockName, req.Limit, req.ExecutionArn, req.TaskToken)
		res.Park = &p
	case machines.HandOffActionRelease:
		var r waitqueue.ReleaseResult
		r, err = h.queue.Release(ctx, req.LockName, req.ExecutionArn, req.Limit)
		res.Release = &r
	default:
		err = fmt.Errorf("%w: unknown action %q (want %q or %q)", waitqueue.ErrInvalidRequest, req.Action, machines.HandOffActionPark, machines.HandOffActionRelease)
	}
	if err != nil {
		return Response{}, named(err)
	}
	return res, nil
}

// named gives err the error name the state machines know it by, as Lambda reports it.
func named(err error) error {
	name := waitqueue.ErrorName(err)
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
