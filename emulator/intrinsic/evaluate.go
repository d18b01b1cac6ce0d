package intrinsic

import (
	"errors"

	"github.com/turnstile-sfn/turnstile/asl"
)

// Evaluate evaluates the expression: JSONPath arguments through resolve, then the functions,
// innermost first. A failure AWS would report is an *Error (see its doc comment for how the
// interpreter must wrap it); ErrNoResolver and ErrNoRandomSource report a caller's mistake.
// The result may share slices and maps with values the Resolver returned (States.Array and
// States.ArrayGetItem return argument values as they are): callers must not mutate it in place.
func (e *Expr) Evaluate(resolve Resolver, env Env) (any, error) {
	v, err := e.root.evaluate(resolve, env)
	if err == nil {
		return v, nil
	}
	var f *failure
	if errors.As(err, &f) {
		return nil, &Error{
			Name:    asl.ErrorRuntime,
			Message: "The function '" + e.source + "' had the following error: " + f.detail,
			Err:     f.err,
		}
	}
	return nil, err
}

// evaluate evaluates the arguments left to right, then checks the argument count and applies
// the function.
func (c *call) evaluate(resolve Resolver, env Env) (any, error) {
	args := make([]any, len(c.args))
	for i := range c.args {
		v, err := c.args[i].evaluate(resolve, env)
		if err != nil {
			return nil, err
		}
		args[i] = v
	}
	if len(args) < c.fn.minArgs || c.fn.maxArgs >= 0 && len(args) > c.fn.maxArgs {
		return nil, invalidArguments(c.fn)
	}
	v, err := c.fn.apply(invocation{call: c, args: args, env: env})
	if errors.Is(err, ErrInvalidArguments) {
		return nil, invalidArguments(c.fn)
	}
	return v, err
}

func invalidArguments(fn *function) error {
	return &failure{detail: "Invalid arguments in " + fn.name, err: ErrInvalidArguments}
}

// evaluate returns the argument's value.
func (a *argument) evaluate(resolve Resolver, env Env) (any, error) {
	switch a.kind {
	case pathArgument:
		if resolve == nil {
			return nil, ErrNoResolver
		}
		v, err := resolve(a.path)
		if err == nil {
			return v, nil
		}
		var missing *NotFoundError
		if errors.As(err, &missing) {
			return nil, &failure{
				detail: "The JsonPath argument for the field '" + contextPathAsInputPath(a.path) +
					"' could not be found in the input '" + string(appendJSON(nil, missing.Input)) + "'",
				err: err,
			}
		}
		return nil, &failure{detail: err.Error(), err: err}
	case callArgument:
		return a.nested.evaluate(resolve, env)
	default:
		return a.value, nil
	}
}
