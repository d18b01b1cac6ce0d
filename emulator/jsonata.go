package emulator

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"

	jsonata "github.com/xiatechs/jsonata-go"
	"github.com/xiatechs/jsonata-go/jtypes"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/emulator/intrinsic"
	"github.com/turnstile-sfn/turnstile/emulator/jsonvalue"
)

// JSONata evaluation. A JSONata state's fields are templates: JSON values in which every string
// "{% ... %}" is a JSONata expression. Expressions see the reserved variable $states (input,
// result, errorOutput, context) and the workflow variables in scope.

// jsonataExpr is one compiled "{% %}" expression.
type jsonataExpr struct {
	text string // the expression without the {% %} delimiters, trimmed
}

// compileExpression checks the syntax of a "{% %}" string and returns its expression.
func compileExpression(s string) (*jsonataExpr, error) {
	text := strings.TrimSpace(s[2 : len(s)-2])
	if _, err := jsonata.Compile(text); err != nil {
		return nil, fmt.Errorf("the JSONata expression '%s' is invalid: %v", text, err)
	}
	return &jsonataExpr{text: text}, nil
}

// compileJSONataTemplate turns a field's value (in the interpreter's model) into a template whose
// "{% %}" strings are *jsonataExpr.
func compileJSONataTemplate(v any) (any, error) {
	switch x := v.(type) {
	case string:
		if asl.IsExpression(x) {
			return compileExpression(x)
		}
		return x, nil
	case *jsonvalue.Object:
		out := jsonvalue.NewObject(x.Len())
		for _, k := range x.Keys() {
			e, _ := x.ValueForKey(k)
			c, err := compileJSONataTemplate(e)
			if err != nil {
				return nil, err
			}
			out.SetValueForKey(k, c)
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			c, err := compileJSONataTemplate(e)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	}
	return v, nil
}

// jsonataEnv is what an evaluation sees: $states and the variables.
type jsonataEnv struct {
	r      *runner
	s      *stateRun
	states map[string]any // $states, in the generic representation
}

// newJSONataEnv returns the environment of a state visit with $states.input and
// $states.context set.
func (r *runner) newJSONataEnv(s *stateRun, input any) *jsonataEnv {
	return &jsonataEnv{r: r, s: s, states: map[string]any{
		"input":   toJSONata(input),
		"context": toJSONata(r.contextObject(s)),
	}}
}

// with returns a copy of the environment with $states.<key> set to v.
func (e *jsonataEnv) with(key string, v any) *jsonataEnv {
	states := make(map[string]any, len(e.states)+1)
	for k, x := range e.states {
		states[k] = x
	}
	states[key] = toJSONata(v)
	return &jsonataEnv{r: e.r, s: e.s, states: states}
}

// evaluate evaluates a template; location names the field for error causes ("Output/result").
func (e *jsonataEnv) evaluate(t any, location string) (any, error) {
	switch x := t.(type) {
	case *jsonataExpr:
		return e.eval(x, location)
	case *jsonvalue.Object:
		out := jsonvalue.NewObject(x.Len())
		for _, k := range x.Keys() {
			v, _ := x.ValueForKey(k)
			ev, err := e.evaluate(v, location+"/"+k)
			if err != nil {
				return nil, err
			}
			out.SetValueForKey(k, ev)
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, v := range x {
			ev, err := e.evaluate(v, fmt.Sprintf("%s[%d]", location, i))
			if err != nil {
				return nil, err
			}
			out[i] = ev
		}
		return out, nil
	}
	return jsonvalue.Copy(t), nil
}

// eval evaluates one expression. An undefined result or an evaluation error is a
// States.QueryEvaluationError, recorded with an EvaluationFailed event.
func (e *jsonataEnv) eval(x *jsonataExpr, location string) (any, error) {
	v, err := e.evalRaw(x)
	switch {
	case errors.Is(err, jsonata.ErrUndefined):
		return nil, e.queryError(location, fmt.Sprintf("The JSONata expression '%s' specified for the field '%s' returned nothing (undefined).", x.text, location))
	case err != nil:
		return nil, e.queryError(location, fmt.Sprintf("The JSONata expression '%s' specified for the field '%s' threw an error during evaluation: %v", x.text, location, err))
	}
	out, ok := fromJSONata(v)
	if !ok {
		return nil, e.queryError(location, fmt.Sprintf("The JSONata expression '%s' specified for the field '%s' returned an unsupported result type.", x.text, location))
	}
	return out, nil
}

// evalRaw evaluates an expression and returns the library's result. Each evaluation compiles
// the expression again: a compiled expression holds its variables, and concurrent Map
// iterations evaluate the same field with different ones.
func (e *jsonataEnv) evalRaw(x *jsonataExpr) (any, error) {
	expr, err := jsonata.Compile(x.text)
	if err != nil {
		return nil, err
	}
	vars := e.r.vars.all()
	vars["states"] = e.states
	if err := expr.RegisterVars(vars); err != nil {
		return nil, err
	}
	if err := expr.RegisterExts(e.extensions()); err != nil {
		return nil, err
	}
	return expr.Eval(e.states["input"])
}

// queryError records an EvaluationFailed event and returns the States.QueryEvaluationError
// failure of the state.
func (e *jsonataEnv) queryError(location, msg string) error {
	return e.r.queryFailure(e.s, location, msg)
}

// fromJSONata converts a JSONata result into the interpreter's model: objects with their members
// in name order, integral numbers as int64. It reports false for values JSON cannot hold
// (functions).
func fromJSONata(v any) (any, bool) {
	switch x := v.(type) {
	case nil, string, bool, int64:
		return v, true
	case *any:
		if x == nil {
			return nil, true
		}
		return fromJSONata(*x)
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x), true
		}
		return x, true
	case int:
		return int64(x), true
	case map[string]any:
		generic := make(map[string]any, len(x))
		for k, e := range x {
			c, ok := fromJSONata(e)
			if !ok {
				return nil, false
			}
			generic[k] = c
		}
		return jsonvalue.FromGeneric(generic), true
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			c, ok := fromJSONata(e)
			if !ok {
				return nil, false
			}
			out[i] = c
		}
		return out, true
	case *jsonvalue.Object:
		return x, true
	}
	rv := reflect.ValueOf(v)
	if jtypes.IsCallable(rv) {
		return nil, false
	}
	// Other Go values (typed slices and maps the library builds): a JSON round trip.
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return nil, false
	}
	return fromJSONata(generic)
}

// jsonataNull is JSON null as the JSONata library represents it; a nil interface is undefined.
var jsonataNull *any

// toJSONata converts a value of the interpreter's model into the generic representation the
// JSONata library evaluates, null as jsonataNull.
func toJSONata(v any) any {
	switch x := v.(type) {
	case nil:
		return jsonataNull
	case *jsonvalue.Object:
		out := make(map[string]any, x.Len())
		for _, k := range x.Keys() {
			e, _ := x.ValueForKey(k)
			out[k] = toJSONata(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = toJSONata(e)
		}
		return out
	}
	return v
}

// extensions returns the functions Step Functions adds to JSONata. $hash and $uuid are the
// intrinsic functions States.Hash and States.UUID (the latter drawing from the flow's seeded
// source, so that a run can be replayed).
func (e *jsonataEnv) extensions() map[string]jsonata.Extension {
	return map[string]jsonata.Extension{
		"partition": {Func: jsonataPartition},
		"range":     {Func: jsonataRange},
		"parse":     {Func: jsonataParse},
		"hash": {Func: func(data, algorithm string) (any, error) {
			return e.intrinsic("States.Hash($.data, $.algorithm)", jsonvalue.Of("data", data, "algorithm", algorithm))
		}},
		"uuid": {Func: func() (any, error) { return e.intrinsic("States.UUID()", nil) }},
	}
}

// intrinsic evaluates an intrinsic function call whose path arguments read input.
func (e *jsonataEnv) intrinsic(call string, input any) (any, error) {
	expr, err := intrinsic.Parse(call)
	if err != nil {
		return nil, err
	}
	return expr.Evaluate(intrinsic.NewResolver(input, nil), intrinsic.Env{Rand: e.r.rng})
}

// jsonataPartition splits an array into chunks of size elements: $partition([1,2,3], 2) is
// [[1,2],[3]].
func jsonataPartition(arr []any, size float64) ([]any, error) {
	n := int(size)
	if n <= 0 || float64(n) != size {
		return nil, fmt.Errorf("the chunk size of $partition must be a positive integer, got %v", size)
	}
	out := []any{}
	for i := 0; i < len(arr); i += n {
		out = append(out, arr[i:min(i+n, len(arr))])
	}
	return out, nil
}

// jsonataRange returns the numbers from start to end (inclusive) by step.
func jsonataRange(start, end, step float64) (any, error) {
	if step == 0 {
		return nil, errors.New("the step of $range must not be 0")
	}
	out := []any{}
	for v := start; (step > 0 && v <= end) || (step < 0 && v >= end); v += step {
		out = append(out, v)
		if len(out) > 1000 {
			return nil, errors.New("$range returns at most 1000 elements")
		}
	}
	if len(out) == 1 {
		// A one-element sequence is its element in JSONata; AWS's $range(1, 9, 9) returns 1.
		return out[0], nil
	}
	return out, nil
}

// jsonataParse parses a JSON text.
func jsonataParse(text string) (any, error) {
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return nil, fmt.Errorf("$parse: %v", err)
	}
	return v, nil
}
