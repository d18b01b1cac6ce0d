package emulator

import (
	"errors"
	"fmt"

	"github.com/turnstile-sfn/turnstile/emulator/intrinsic"
)

// fail runs a Fail state: it fails the flow with its Error and Cause, read from the state's input
// when ErrorPath or CausePath is set.
func (r *runner) fail(s *stateRun, input any) error {
	if js := s.node.jsonata; js != nil {
		name, err := r.jsonataString(s, input, js.errorName, "Error")
		if err != nil {
			return err
		}
		cause, err := r.jsonataString(s, input, js.cause, "Cause")
		if err != nil {
			return err
		}
		return &failure{name: name, cause: cause}
	}
	name, err := r.failField(s, "ErrorPath", s.node.fail.errorName, input)
	if err != nil {
		return err
	}
	cause, err := r.failField(s, "CausePath", s.node.fail.cause, input)
	if err != nil {
		return err
	}
	return &failure{name: name, cause: cause}
}

func (r *runner) failField(s *stateRun, field string, f *stringOrExpr, input any) (string, error) {
	var (
		v   any
		err error
	)
	switch {
	case f.intrinsic != nil:
		scope := &templateScope{input: input, contextObject: func() any { return r.contextObject(s) }, env: intrinsic.Env{Rand: r.rng}, state: s, variables: r.vars}
		if v, err = f.intrinsic.Evaluate(scope.resolver(), scope.env); err != nil {
			var failure *intrinsic.Error
			if errors.As(err, &failure) {
				return "", stateFailure(failure.ASL(s.node.name, s.enteredID))
			}
			return "", s.runtimeError(err.Error())
		}
	case f.path != nil:
		var ok bool
		if v, ok = f.path.Get(input, r.pathRoot(s, f.path)); !ok {
			return "", s.invalidPathError(f.path)
		}
	default:
		return f.literal, nil
	}
	str, ok := v.(string)
	if !ok {
		return "", s.runtimeError(fmt.Sprintf("The %s field must reference a string value: %s == %s", field, describeExpr(f), encodeJSON(v)))
	}
	return str, nil
}

// describeExpr renders a path or intrinsic field as written.
func describeExpr(f *stringOrExpr) string {
	if f.intrinsic != nil {
		return f.intrinsic.String()
	}
	return f.path.Text
}
