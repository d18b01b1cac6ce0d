package waitqueue

import (
	"context"
	"fmt"

	"github.com/turnstile-sfn/turnstile/asl/machines"
)

// ParkResult says what Park did.
type ParkResult struct {
	// Queued: the execution waits in the queue for a hand-off.
	Queued bool `json:"queued"`
	// Ticket is the execution's place in the lock's order of arrival: the number of enqueues
	// ever made on the lock, its own included. Set when it joined the queue in this call.
	Ticket int64 `json:"ticket,omitempty"`
	// Admitted: the execution holds a slot, and its token was completed.
	Admitted bool `json:"admitted"`
}

// Park is the "Wait In Queue" task of execution, parked on token: it joins the lock's queue,
// keeps its place with the new token if it waits already (its earlier task timed out), or,
// when the execution holds a slot already or may take one now, completes the token at once.
// A free slot with others waiting goes to the oldest of them, not to the caller.
func (q *Queue) Park(ctx context.Context, lock string, limit int, execution, token string) (ParkResult, error) {
	switch {
	case lock == "" || execution == "" || token == "":
		return ParkResult{}, fmt.Errorf("%w: park needs a lock name, an execution and a task token", ErrInvalidRequest)
	case limit < 1:
		return ParkResult{}, fmt.Errorf("%w: park needs a limit of at least 1, got %d", ErrInvalidRequest, limit)
	}
	for range q.attempts {
		ok, out, err := q.update(ctx, lock, enqueueWrite(execution, token, limit))
		if err != nil {
			return ParkResult{}, err
		}
		if ok {
			return ParkResult{Queued: true, Ticket: counterOf(out.Attributes, machines.AttributeQueueTickets)}, nil
		}
		st, err := q.read(ctx, lock)
		if err != nil {
			return ParkResult{}, err
		}
		res, done, err := q.parkAfterRead(ctx, lock, limit, execution, token, st)
		if err != nil || done {
			return res, err
		}
	}
	return ParkResult{}, fmt.Errorf("%w: park %s on %q: the lock changed under %d attempts", ErrBusy, execution, lock, q.attempts)
}

// parkAfterRead decides, from a read made after the enqueue's condition failed, what the
// waiter does; done is false when the lock changed in between and Park must try again.
func (q *Queue) parkAfterRead(ctx context.Context, lock string, limit int, execution, token string, st lockState) (ParkResult, bool, error) {
	admitted := func(admission int64) (ParkResult, bool, error) {
		if err := q.wake(ctx, token, Wake{GrantedBy: execution, Admission: admission}); err != nil {
			return ParkResult{}, true, fmt.Errorf("%w: complete the task of %s: %w", ErrBusy, execution, err)
		}
		return ParkResult{Admitted: true}, true, nil
	}
	var w write
	switch {
	case st.holders[execution]:
		// Handed a slot (its wake-up was lost), or its acquire landed although its reply did not.
		return admitted(0)
	case st.count < limit && len(st.queue) > 0:
		// A free slot while executions wait (the limit was raised, or a release raced): the
		// oldest takes it, which may be the caller.
		head := st.queue[0]
		ok, out, err := q.update(ctx, lock, admitHeadWrite(head, q.timestamp(), limit))
		if err != nil || !ok {
			return ParkResult{}, false, err
		}
		admission := counterOf(out.Attributes, machines.AttributeQueueAdmissions)
		if head == execution {
			return admitted(admission)
		}
		dead, err := q.wakeOrFindDead(ctx, head, st.tokens[head], Wake{GrantedBy: head, Admission: admission})
		if err == nil && dead {
			_, err = q.Release(ctx, lock, head, limit)
		}
		return ParkResult{}, false, err
	case st.position(execution) >= 0:
		w = refreshTokenWrite(execution, token)
	case st.count < limit:
		w = acquireWrite(execution, q.timestamp(), limit)
	default:
		return ParkResult{}, false, nil
	}
	ok, _, err := q.update(ctx, lock, w)
	switch {
	case err != nil || !ok:
		return ParkResult{}, false, err
	case w.what == "acquire":
		return admitted(0)
	}
	return ParkResult{Queued: true}, true, nil
}
