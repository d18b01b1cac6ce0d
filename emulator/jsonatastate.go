package emulator

import (
	"fmt"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/emulator/jsonvalue"
	"github.com/turnstile-sfn/turnstile/emulator/sfnapi"
)

// jsonataSpec holds the compiled JSONata fields of a JSONata state (templates, see
// compileJSONataTemplate). nil fields are absent.
type jsonataSpec struct {
	output, arguments   any
	items, itemSelector any
	maxConcurrency      any
	// toleratedFailureCount and toleratedFailurePercentage: see failureTolerance.
	toleratedFailureCount, toleratedFailurePercentage any
	seconds, timestamp                                any
	errorName, cause                                  any
}

// assignSpec is a compiled Assign field: a JSONata template in a JSONata state, a payload
// template (".$" keys) in a JSONPath one.
type assignSpec struct {
	jsonata  any
	jsonPath *payloadTemplate
}

// jsonataTemplate compiles a JSONata field read from the raw definition; nil when absent.
func (c *compiler) jsonataTemplate(scope, field string, raw any) any {
	if raw == nil {
		return nil
	}
	t, err := compileJSONataTemplate(raw)
	if err != nil {
		c.fail(asl.ErrInvalidDefinition, scope, field, err.Error())
		return nil
	}
	return t
}

// assign compiles an Assign field (raw: its value in the definition) for the query language.
func (c *compiler) assign(scope, field string, jsonataState bool, raw any) *assignSpec {
	if raw == nil {
		return nil
	}
	if _, ok := raw.(*jsonvalue.Object); !ok {
		c.fail(asl.ErrInvalidDefinition, scope, field, "must be an object mapping variable names to values")
		return nil
	}
	if jsonataState {
		return &assignSpec{jsonata: c.jsonataTemplate(scope, field, raw)}
	}
	return &assignSpec{jsonPath: c.template(scope, field, raw)}
}

// jsonataState compiles the JSONata fields of a state.
func (c *compiler) jsonataState(scope string, s asl.State, raw any) *jsonataSpec {
	js := &jsonataSpec{output: c.jsonataTemplate(scope, "Output", member(raw, "Output"))}
	switch x := s.(type) {
	case *asl.Task:
		js.arguments = c.jsonataTemplate(scope, "Arguments", member(raw, "Arguments"))
		if x.TimeoutSecondsExpression != "" {
			c.fail(asl.ErrUnsupported, scope, "TimeoutSeconds", "a JSONata expression in TimeoutSeconds is not supported by the emulator yet: use a number")
		}
		if x.HeartbeatSecondsExpression != "" {
			c.fail(asl.ErrUnsupported, scope, "HeartbeatSeconds", "a JSONata expression in HeartbeatSeconds is not supported by the emulator yet: use a number")
		}
	case *asl.Parallel:
		js.arguments = c.jsonataTemplate(scope, "Arguments", member(raw, "Arguments"))
	case *asl.Map:
		js.items = c.jsonataTemplate(scope, "Items", member(raw, "Items"))
		js.itemSelector = c.jsonataTemplate(scope, "ItemSelector", member(raw, "ItemSelector"))
		js.maxConcurrency = c.jsonataTemplate(scope, "MaxConcurrency", member(raw, "MaxConcurrency"))
		js.toleratedFailureCount = c.jsonataTemplate(scope, "ToleratedFailureCount", member(raw, "ToleratedFailureCount"))
		js.toleratedFailurePercentage = c.jsonataTemplate(scope, "ToleratedFailurePercentage", member(raw, "ToleratedFailurePercentage"))
	case *asl.Wait:
		js.seconds = c.jsonataTemplate(scope, "Seconds", member(raw, "Seconds"))
		js.timestamp = c.jsonataTemplate(scope, "Timestamp", member(raw, "Timestamp"))
	case *asl.Fail:
		js.errorName = c.jsonataTemplate(scope, "Error", member(raw, "Error"))
		js.cause = c.jsonataTemplate(scope, "Cause", member(raw, "Cause"))
	}
	return js
}

// evaluateAssign evaluates a state's (or a rule's, or a catcher's) Assign and keeps the values
// in s.assigned, to be set when the state exits. env is the JSONata environment; input is what
// "$" means in a JSONPath state's Assign.
func (r *runner) evaluateAssign(s *stateRun, a *assignSpec, env *jsonataEnv, input any) error {
	if a == nil {
		return nil
	}
	var (
		v   any
		err error
	)
	if a.jsonPath != nil {
		v, err = r.evaluateTemplate(s, a.jsonPath, input)
	} else {
		v, err = env.evaluate(a.jsonata, "Assign")
	}
	if err != nil {
		return err
	}
	if o, ok := v.(*jsonvalue.Object); ok && o.Len() > 0 {
		s.assigned = o
	}
	return nil
}

// jsonataFinish ends a JSONata state: it evaluates Assign and Output with $states.input and,
// when hasResult, $states.result. Without Output the state's output is its result, or its
// input when it has none.
func (r *runner) jsonataFinish(s *stateRun, input, result any, hasResult bool) (any, error) {
	env := r.newJSONataEnv(s, input)
	out := input
	if hasResult {
		env = env.with("result", result)
		out = result
	}
	if err := r.evaluateAssign(s, s.node.assign, env, nil); err != nil {
		return nil, err
	}
	if s.node.jsonata.output == nil {
		return out, nil
	}
	return env.evaluate(s.node.jsonata.output, "Output")
}

// jsonPathAssign evaluates the Assign of a JSONPath state, "$" being value.
func (r *runner) jsonPathAssign(s *stateRun, value any) error {
	return r.evaluateAssign(s, s.node.assign, nil, value)
}

// jsonataArguments evaluates a JSONata Task's or Parallel's Arguments; without them the input
// passes on.
func (r *runner) jsonataArguments(s *stateRun, input any) (any, error) {
	if s.node.jsonata.arguments == nil {
		return input, nil
	}
	return r.newJSONataEnv(s, input).evaluate(s.node.jsonata.arguments, "Arguments")
}

// jsonataItems evaluates a JSONata Map's Items (default: the state input), which must give an
// array.
func (r *runner) jsonataItems(s *stateRun, input any) ([]any, error) {
	t := s.node.jsonata.items
	if t == nil {
		items, ok := input.([]any)
		if !ok {
			return nil, r.queryFailure(s, "", "Map state input must be an array but was: "+encodeJSON(input))
		}
		return items, nil
	}
	v, err := r.newJSONataEnv(s, input).evaluate(t, "Items")
	if err != nil {
		return nil, err
	}
	items, ok := v.([]any)
	if !ok {
		text := "Items"
		if x, isExpr := t.(*jsonataExpr); isExpr {
			text = x.text
		}
		return nil, r.queryFailure(s, "Items", fmt.Sprintf("The JSONata expression '%s' specified for the field 'Items' returned an unexpected result type. Expected 'array', but was '%s' for value: %s",
			text, jsonTypeName(v), encodeJSON(v)))
	}
	return items, nil
}

// queryFailure records an EvaluationFailed event (location: the field, empty when the failure is
// not one field's) and returns the States.QueryEvaluationError failure of the state.
func (r *runner) queryFailure(s *stateRun, location, msg string) error {
	f := s.runtimeError(msg).(*failure)
	f.name = asl.ErrorQueryEvaluation
	r.emit(sfnapi.EventEvaluationFailed, func(ev *HistoryEvent) {
		ev.EvaluationFailedEventDetails = &sfnapi.EvaluationFailedEventDetails{State: s.node.name, Error: f.name, Cause: f.cause, Location: location}
	})
	return f
}

// jsonTypeName names a value's JSON type as AWS's causes do.
func jsonTypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case *jsonvalue.Object:
		return "object"
	case []any:
		return "array"
	}
	return "number"
}

// jsonataInteger evaluates a JSONata field that must give a non-negative integer (Seconds,
// MaxConcurrency).
func (r *runner) jsonataInteger(s *stateRun, input, t any, field string) (int64, error) {
	v, err := r.newJSONataEnv(s, input).evaluate(t, field)
	if err != nil {
		return 0, err
	}
	n, ok := toInteger(v)
	if !ok || n < 0 {
		return 0, r.queryFailure(s, field, fmt.Sprintf("The %s field must be a non-negative integer, but was: %s", field, encodeJSON(v)))
	}
	return n, nil
}

// jsonataString evaluates a Fail state's Error or Cause.
func (r *runner) jsonataString(s *stateRun, input, t any, field string) (string, error) {
	if t == nil {
		return "", nil
	}
	v, err := r.newJSONataEnv(s, input).evaluate(t, field)
	if err != nil {
		return "", err
	}
	str, ok := v.(string)
	if !ok {
		return "", r.queryFailure(s, field, fmt.Sprintf("The %s field must be a string, but was: %s", field, encodeJSON(v)))
	}
	return str, nil
}

// jsonataCondition evaluates a Choice rule's Condition, which must give a boolean.
func (r *runner) jsonataCondition(s *stateRun, rule *choiceRule, input any, index int) (bool, error) {
	field := fmt.Sprintf("Choices[%d].Condition", index)
	v, err := r.newJSONataEnv(s, input).evaluate(rule.condition, field)
	if err != nil {
		return false, err
	}
	b, ok := v.(bool)
	if !ok {
		x, _ := rule.condition.(*jsonataExpr) // a literal Condition is a boolean: the validator checks it
		return false, r.queryFailure(s, field, fmt.Sprintf("The JSONata expression '%s' specified for the field 'Condition' returned an unexpected result type. Expected 'boolean', but was '%s' for value: %s",
			x.text, jsonTypeName(v), encodeJSON(v)))
	}
	return b, nil
}

// catchOutput computes the output of a matching catcher: in a JSONata state its Output (default:
// the error output) with $states.errorOutput; in a JSONPath state the error output placed by
// ResultPath. The catcher's Assign is evaluated too.
func (r *runner) catchOutput(s *stateRun, c *catcher, rawInput any, f *failure) (any, error) {
	errOut := f.errorOutput()
	if s.node.jsonata == nil {
		if err := r.evaluateAssign(s, c.assign, nil, errOut); err != nil {
			return nil, err
		}
		return r.applyResultPath(s, c.resultPath, rawInput, errOut)
	}
	env := r.newJSONataEnv(s, rawInput).with("errorOutput", errOut)
	if err := r.evaluateAssign(s, c.assign, env, nil); err != nil {
		return nil, err
	}
	if c.output == nil {
		return errOut, nil
	}
	return env.evaluate(c.output, "Output")
}
