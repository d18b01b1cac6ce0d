package emulator

import (
	"fmt"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/emulator/intrinsic"
	"github.com/turnstile-sfn/turnstile/emulator/jsonvalue"
)

// The input and output processing of a state, in AWS's order: InputPath, Parameters (or
// ItemSelector), the state's work, ResultSelector, ResultPath, OutputPath.

// applyInputPath selects the effective input: absent is "$", null is {}.
func (r *runner) applyInputPath(s *stateRun, input any) (any, error) {
	return r.selectPath(s, s.node.inputPath, input)
}

// applyOutputPath selects the state's output from the combined result.
func (r *runner) applyOutputPath(s *stateRun, value any) (any, error) {
	return r.selectPath(s, s.node.outputPath, value)
}

func (r *runner) selectPath(s *stateRun, p *optionalPath, value any) (any, error) {
	switch {
	case p == nil:
		return value, nil
	case p.null:
		return jsonvalue.NewObject(0), nil
	}
	v, ok := p.path.Get(value, r.pathRoot(s, p.path))
	if !ok {
		return nil, s.invalidPathError(p.path)
	}
	return v, nil
}

// applyParameters evaluates the Parameters template against the effective input; without
// Parameters the effective input passes through.
func (r *runner) applyParameters(s *stateRun, effective any) (any, error) {
	if s.node.jsonata != nil {
		return r.jsonataArguments(s, effective)
	}
	return r.evaluateTemplate(s, s.node.parameters, effective)
}

// applyResultSelector reshapes a successful result.
func (r *runner) applyResultSelector(s *stateRun, result any) (any, error) {
	return r.evaluateTemplate(s, s.node.resultSelector, result)
}

func (r *runner) evaluateTemplate(s *stateRun, t *payloadTemplate, input any) (any, error) {
	if t == nil {
		return input, nil
	}
	scope := &templateScope{
		input:         input,
		contextObject: func() any { return r.contextObject(s) },
		env:           intrinsic.Env{Rand: r.rng},
		state:         s,
		variables:     r.vars,
	}
	return t.evaluate(scope)
}

// applyResultPath combines the state's raw input with its result: absent is "$" (the result
// replaces the input), null discards the result.
func (r *runner) applyResultPath(s *stateRun, p *optionalPath, rawInput, result any) (any, error) {
	switch {
	case p == nil:
		return result, nil
	case p.null:
		return rawInput, nil
	case p.path.IsRoot():
		return result, nil
	}
	out, err := p.path.Set(rawInput, result)
	if err != nil {
		return nil, &failure{name: asl.ErrorResultPathMatchFail,
			cause: fmt.Sprintf("Unable to apply ResultPath '%s' to input '%s'", p.path.Text, encodeJSON(rawInput))}
	}
	return out, nil
}

// finishResult applies Assign, ResultPath and OutputPath to a state's result (Assign and Output
// in a JSONata state).
func (r *runner) finishResult(s *stateRun, rawInput, result any) (any, error) {
	if s.node.jsonata != nil {
		return r.jsonataFinish(s, rawInput, result, true)
	}
	if err := r.jsonPathAssign(s, result); err != nil {
		return nil, err
	}
	combined, err := r.applyResultPath(s, s.node.resultPath, rawInput, result)
	if err != nil {
		return nil, err
	}
	return r.applyOutputPath(s, combined)
}
