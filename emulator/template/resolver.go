package template

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// noValue is what Ref AWS::NoValue resolves to: the enclosing property or list element is
// removed.
type noValue struct{}

// resolver evaluates intrinsic functions against one stack. It memoizes physical names and
// conditions and detects cycles between them.
type resolver struct {
	stack      stackContext
	tpl        *rawTemplate
	params     map[string]string
	names      map[string]string
	naming     map[string]bool
	conditions map[string]bool
	evaluating map[string]bool
}

func newResolver(tpl *rawTemplate, stack stackContext, params map[string]string) *resolver {
	return &resolver{
		stack:      stack,
		tpl:        tpl,
		params:     params,
		names:      map[string]string{},
		naming:     map[string]bool{},
		conditions: map[string]bool{},
		evaluating: map[string]bool{},
	}
}

// site is the location of a value being resolved, for error messages.
type site struct {
	logicalID string
	path      string
}

// key returns the site of a map entry below s.
func (s site) key(k string) site {
	if s.path == "" {
		return site{s.logicalID, k}
	}
	return site{s.logicalID, s.path + "." + k}
}

// index returns the site of a list element below s.
func (s site) index(i int) site {
	return site{s.logicalID, fmt.Sprintf("%s[%d]", s.path, i)}
}

// fail wraps err with the site's location.
func (s site) fail(err error) error {
	return &ResolveError{LogicalID: s.logicalID, Path: s.path, Err: err}
}

// failf wraps a sentinel error and a message with the site's location.
func (s site) failf(sentinel error, format string, args ...any) error {
	return s.fail(fmt.Errorf("%w: %s", sentinel, fmt.Sprintf(format, args...)))
}

// resolve evaluates every intrinsic function inside v. Map keys and list elements whose value
// is AWS::NoValue are dropped.
func (r *resolver) resolve(s site, v any) (any, error) {
	switch t := v.(type) {
	case map[string]any:
		if len(t) == 1 {
			for name, arg := range t {
				if isIntrinsic(name) {
					return r.intrinsic(s.key(name), name, arg)
				}
			}
		}
		out := make(map[string]any, len(t))
		for _, k := range sortedKeys(t) {
			rv, err := r.resolve(s.key(k), t[k])
			if err != nil {
				return nil, err
			}
			if _, drop := rv.(noValue); !drop {
				out[k] = rv
			}
		}
		return out, nil
	case []any:
		out := make([]any, 0, len(t))
		for i, item := range t {
			rv, err := r.resolve(s.index(i), item)
			if err != nil {
				return nil, err
			}
			if _, drop := rv.(noValue); !drop {
				out = append(out, rv)
			}
		}
		return out, nil
	}
	return v, nil
}

// isIntrinsic reports whether a single-key object's key names an intrinsic function.
func isIntrinsic(key string) bool {
	return key == "Ref" || strings.HasPrefix(key, "Fn::")
}

// resourceIncluded reports whether a resource exists in this deployment: defined, and its
// Condition (if any) true.
func (r *resolver) resourceIncluded(s site, id string) (rawResource, bool, error) {
	res, ok := r.tpl.Resources[id]
	if !ok {
		return rawResource{}, false, nil
	}
	if res.Condition == "" {
		return res, true, nil
	}
	holds, err := r.condition(site{id, "Condition"}, res.Condition)
	if err != nil {
		return rawResource{}, false, err
	}
	return res, holds, nil
}

// ref evaluates {"Ref": name}.
func (r *resolver) ref(s site, name string) (any, error) {
	if name == pseudoNoValue {
		return noValue{}, nil
	}
	if v, ok := r.stack.pseudo(name); ok {
		return v, nil
	}
	if p, ok := r.tpl.Parameters[name]; ok {
		return r.parameter(s, name, p)
	}
	res, included, err := r.resourceIncluded(s, name)
	if err != nil {
		return nil, err
	}
	if !included {
		return nil, s.failf(ErrUnknownReference, "Ref %q: no such resource or parameter in this deployment", name)
	}
	return r.attribute(s, name, res, attrRef)
}

// parameter evaluates a Ref to a template parameter.
func (r *resolver) parameter(s site, name string, p rawParameter) (any, error) {
	value, ok := r.params[name]
	if !ok {
		if p.Default == nil {
			return nil, s.failf(ErrMissingParameter, "parameter %q has no Default; set it in Options.Parameters", name)
		}
		if value, ok = scalarString(p.Default); !ok {
			return nil, s.failf(ErrInvalidTemplate, "parameter %q has a non-scalar Default", name)
		}
	}
	if p.Type == "CommaDelimitedList" || strings.HasPrefix(p.Type, "List<") {
		parts := strings.Split(value, ",")
		out := make([]any, len(parts))
		for i, part := range parts {
			out[i] = strings.TrimSpace(part)
		}
		return out, nil
	}
	return value, nil
}

// getAtt evaluates {"Fn::GetAtt": ["LogicalId", "Attr"]} or {"Fn::GetAtt": "LogicalId.Attr"}.
func (r *resolver) getAtt(s site, arg any) (any, error) {
	var id, attr string
	switch t := arg.(type) {
	case string:
		var ok bool
		if id, attr, ok = strings.Cut(t, "."); !ok {
			return nil, s.failf(ErrInvalidIntrinsic, "Fn::GetAtt %q is not LogicalId.Attribute", t)
		}
	case []any:
		if len(t) != 2 {
			return nil, s.failf(ErrInvalidIntrinsic, "Fn::GetAtt takes [LogicalId, Attribute], got %d elements", len(t))
		}
		resolvedAttr, err := r.resolve(s.index(1), t[1])
		if err != nil {
			return nil, err
		}
		var okID, okAttr bool
		id, okID = t[0].(string)
		attr, okAttr = resolvedAttr.(string)
		if !okID || !okAttr {
			return nil, s.failf(ErrInvalidIntrinsic, "Fn::GetAtt takes two strings")
		}
	default:
		return nil, s.failf(ErrInvalidIntrinsic, "Fn::GetAtt takes a list or a string")
	}
	res, included, err := r.resourceIncluded(s, id)
	if err != nil {
		return nil, err
	}
	if !included {
		return nil, s.failf(ErrUnknownReference, "Fn::GetAtt %s.%s: no such resource in this deployment", id, attr)
	}
	return r.attribute(s, id, res, attr)
}

// scalarString renders a JSON scalar (string, number, boolean) as CloudFormation would.
func scalarString(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, true
	case json.Number:
		return t.String(), true
	case bool:
		return strconv.FormatBool(t), true
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64), true
	case int:
		return strconv.Itoa(t), true
	case int64:
		return strconv.FormatInt(t, 10), true
	}
	return "", false
}
