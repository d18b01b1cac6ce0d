package semcheck

import (
	"errors"
	"fmt"
	"strings"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/emulator/intrinsic"
	"github.com/turnstile-sfn/turnstile/emulator/jsonvalue"
)

// ErrMachine reports a semaphore machine whose lock tasks LockClient cannot take: the machine
// changed shape (a task renamed, or a path the client does not resolve); update the client.
var ErrMachine = errors.New("semcheck: the Poll machine's lock tasks cannot be read")

// pollTasks are the resources and Parameters of the Poll machine's lock tasks, as rendered by
// machines.Semaphore, with the paths ("key.$" fields) still to resolve per request.
type pollTasks struct {
	acquire, checkHolder, release task
}

// task is one Task state's resource and Parameters template.
type task struct {
	resource string
	params   map[string]any
}

// workArn is the work of the machine rendered for its lock tasks; the client never runs it.
const workArn = "arn:aws:lambda:us-east-1:123456789012:function:semcheck-work"

// renderPollTasks renders the Poll semaphore machine of table and limit and takes its acquire,
// read-back and release tasks.
func renderPollTasks(table, lockName string, limit int) (pollTasks, error) {
	m, err := machines.Semaphore(machines.SemaphoreOptions{
		LockName: lockName, Limit: limit, TableName: table,
		Work: machines.LambdaWork(workArn), WaitStrategy: machines.WaitPoll,
	})
	if err != nil {
		return pollTasks{}, fmt.Errorf("%w: %w", ErrMachine, err)
	}
	get := func(name string) (task, error) {
		t, ok := m.States.Get(name).(*asl.Task)
		if !ok {
			return task{}, fmt.Errorf("%w: no Task state %q", ErrMachine, name)
		}
		params, ok := t.Parameters.(map[string]any)
		if !ok {
			return task{}, fmt.Errorf("%w: the Parameters of %q are %T, want an object", ErrMachine, name, t.Parameters)
		}
		return task{resource: t.Resource, params: params}, nil
	}
	var ts pollTasks
	if ts.acquire, err = get(machines.StateAcquireSlot); err != nil {
		return pollTasks{}, err
	}
	if ts.checkHolder, err = get(machines.StateCheckHolder); err != nil {
		return pollTasks{}, err
	}
	if ts.release, err = get(machines.StateReleaseSlot); err != nil {
		return pollTasks{}, err
	}
	return ts, nil
}

// resolver evaluates the paths of the lock tasks' Parameters for one execution: the state
// input {"lockName": …} and the context object's Execution.Id and State.EnteredTime, with the
// emulator's own JSONPath and intrinsic function evaluation.
type resolver struct {
	resolve intrinsic.Resolver
}

// enteredTime is the $$.State.EnteredTime the client's requests carry.
const enteredTime = "2026-01-01T00:00:00.000Z"

func newResolver(lockName, execution string) resolver {
	input := jsonvalue.FromGeneric(map[string]any{"lockName": lockName})
	context := jsonvalue.FromGeneric(map[string]any{
		"Execution": map[string]any{"Id": execution},
		"State":     map[string]any{"EnteredTime": enteredTime},
	})
	return resolver{resolve: intrinsic.NewResolver(input, func() any { return context })}
}

// apply returns template with every "key.$" field replaced by "key" and its value.
func (r resolver) apply(template any) (any, error) {
	switch t := template.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, v := range t {
			name, isPath := strings.CutSuffix(k, ".$")
			if !isPath {
				resolved, err := r.apply(v)
				if err != nil {
					return nil, err
				}
				out[k] = resolved
				continue
			}
			text, _ := v.(string)
			value, err := r.value(text)
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %w", ErrMachine, k, err)
			}
			out[name] = value
		}
		return out, nil
	case []any:
		out := make([]any, len(t))
		for i, v := range t {
			resolved, err := r.apply(v)
			if err != nil {
				return nil, err
			}
			out[i] = resolved
		}
		return out, nil
	default:
		return template, nil
	}
}

// value evaluates one path or intrinsic function call.
func (r resolver) value(text string) (any, error) {
	if !intrinsic.IsIntrinsic(text) {
		v, err := r.resolve(text)
		return jsonvalue.ToGeneric(v), err
	}
	expr, err := intrinsic.Parse(text)
	if err != nil {
		return nil, err
	}
	v, err := expr.Evaluate(r.resolve, intrinsic.Env{})
	return jsonvalue.ToGeneric(v), err
}
