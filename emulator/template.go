package emulator

import (
	"errors"
	"fmt"
	"strings"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/emulator/intrinsic"
	"github.com/turnstile-sfn/turnstile/emulator/jsonpath"
	"github.com/turnstile-sfn/turnstile/emulator/jsonvalue"
)

// payloadTemplate is a compiled payload template (Parameters, ResultSelector, ItemSelector):
// fields whose name ends in ".$" take their value from a path or an intrinsic function call,
// every other value is copied as written.
type payloadTemplate struct {
	// literal is the whole template when it holds no ".$" field.
	literal any
	// fields are the members of an object template, in the order AWS renders them.
	fields []templateField
	// elems are the elements of an array template.
	elems    []*payloadTemplate
	isObject bool
	isArray  bool
	// usesContext reports whether a "$$" path or intrinsic appears anywhere inside.
	usesContext bool
}

// templateField is one member of an object template.
type templateField struct {
	key       string // without ".$"
	path      *jsonpath.Path
	intrinsic *intrinsic.Expr
	value     *payloadTemplate
}

// compileTemplate compiles a payload template (a value of the interpreter's model, members in
// document order); field names the template in errors.
func compileTemplate(field string, t any) (*payloadTemplate, error) {
	switch x := t.(type) {
	case *jsonvalue.Object:
		if !hasDynamicField(x) {
			return &payloadTemplate{literal: x}, nil
		}
		pt := &payloadTemplate{isObject: true}
		for _, k := range x.Keys() {
			e, _ := x.ValueForKey(k)
			key, dynamic := strings.CutSuffix(k, ".$")
			if !dynamic {
				sub, err := compileTemplate(field+"."+k, e)
				if err != nil {
					return nil, err
				}
				pt.usesContext = pt.usesContext || sub.usesContext
				pt.fields = append(pt.fields, templateField{key: k, value: sub})
				continue
			}
			s, _ := e.(string)
			tf := templateField{key: key}
			switch {
			case intrinsic.IsIntrinsic(s):
				expr, err := intrinsic.Parse(s)
				if err != nil {
					var syntax *intrinsic.SyntaxError
					if errors.As(err, &syntax) {
						return nil, fmt.Errorf("%s: %s", field, syntax.DefinitionMessage(k))
					}
					return nil, fmt.Errorf("%s.%s: %w", field, k, err)
				}
				tf.intrinsic = expr
				pt.usesContext = pt.usesContext || strings.Contains(s, "$$")
			default:
				p, err := jsonpath.Compile(s)
				if err != nil {
					return nil, fmt.Errorf("%s: the value for the field '%s' must be a valid JSONPath or a valid intrinsic function call: %w", field, k, err)
				}
				tf.path = p
				pt.usesContext = pt.usesContext || p.Context
			}
			pt.fields = append(pt.fields, tf)
		}
		pt.fields = awsFieldOrder(pt.fields)
		return pt, nil
	case []any:
		if !hasDynamicField(x) {
			return &payloadTemplate{literal: x}, nil
		}
		pt := &payloadTemplate{isArray: true}
		for i, e := range x {
			sub, err := compileTemplate(fmt.Sprintf("%s[%d]", field, i), e)
			if err != nil {
				return nil, err
			}
			pt.usesContext = pt.usesContext || sub.usesContext
			pt.elems = append(pt.elems, sub)
		}
		return pt, nil
	default:
		return &payloadTemplate{literal: t}, nil
	}
}

// awsFieldOrder orders the members of an evaluated object template as Step Functions renders
// them: the fields written as they are first, in document order, then the "name.$" fields in
// the order of a Java HashMap (jsonvalue.HashMapOrder). AWS recorded {"Iterations": 3,
// "Values.$": ...} as {"Iterations":3,"Values":[...]} but {"Iterations.$": ..., "Values.$": ...}
// as {"Values":[...],"Iterations":2}.
func awsFieldOrder(fields []templateField) []templateField {
	out := make([]templateField, 0, len(fields))
	dynamic := map[string]templateField{}
	var keys []string
	for _, f := range fields {
		if f.value != nil {
			out = append(out, f)
			continue
		}
		dynamic[f.key] = f
		keys = append(keys, f.key)
	}
	for _, k := range jsonvalue.HashMapOrder(keys) {
		out = append(out, dynamic[k])
	}
	return out
}

// hasDynamicField reports whether a ".$" field appears anywhere in v.
func hasDynamicField(v any) bool {
	switch x := v.(type) {
	case *jsonvalue.Object:
		for _, k := range x.Keys() {
			e, _ := x.ValueForKey(k)
			if strings.HasSuffix(k, ".$") || hasDynamicField(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if hasDynamicField(e) {
				return true
			}
		}
	}
	return false
}

// templateScope is what a template is evaluated against.
type templateScope struct {
	input         any
	contextObject func() any
	env           intrinsic.Env
	state         *stateRun
	variables     *varScope
	// built is the context object once built: one evaluation reads one context object,
	// however many "$$" paths it has.
	built any
}

// context returns the context object, built on first use.
func (s *templateScope) context() any {
	if s.built == nil {
		s.built = s.contextObject()
	}
	return s.built
}

// evaluate builds the payload. Literal parts are shared with the definition: callers treat values
// as immutable.
func (t *payloadTemplate) evaluate(s *templateScope) (any, error) {
	switch {
	case t.isObject:
		out := jsonvalue.NewObject(len(t.fields))
		for _, f := range t.fields {
			v, err := f.evaluate(s)
			if err != nil {
				return nil, err
			}
			out.SetValueForKey(f.key, v)
		}
		return out, nil
	case t.isArray:
		out := make([]any, len(t.elems))
		for i, e := range t.elems {
			v, err := e.evaluate(s)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	default:
		return t.literal, nil
	}
}

func (f *templateField) evaluate(s *templateScope) (any, error) {
	switch {
	case f.value != nil:
		return f.value.evaluate(s)
	case f.intrinsic != nil:
		v, err := f.intrinsic.Evaluate(s.resolver(), s.env)
		if err != nil {
			var failure *intrinsic.Error
			if errors.As(err, &failure) {
				return nil, stateFailure(failure.ASL(s.state.node.name, s.state.enteredID))
			}
			return nil, s.state.runtimeError(err.Error())
		}
		return jsonvalue.Copy(v), nil
	default:
		var root any
		switch {
		case f.path.Context:
			root = s.context()
		case f.path.Variable != "":
			root, _ = s.variables.lookup(f.path.Variable)
		}
		v, ok := f.path.Get(s.input, root)
		if !ok {
			return nil, s.state.runtimeError(fmt.Sprintf("The JSONPath '%s' specified for the field '%s.$' could not be found in the input '%s'",
				f.path.Text, f.key, encodeJSON(s.input)))
		}
		return v, nil
	}
}

// resolver resolves the JSONPath arguments of intrinsic functions with the same path semantics
// as the rest of the interpreter.
func (s *templateScope) resolver() intrinsic.Resolver {
	return intrinsic.NewVariableResolver(s.input, s.context, s.variables.lookup)
}

// stateFailure wraps an *asl.Error raised while running a state.
func stateFailure(e *asl.Error) error {
	return &failure{name: e.Name, cause: e.Cause}
}
