package template

import "reflect"

// condition evaluates a named condition of the Conditions section (memoized).
func (r *resolver) condition(s site, name string) (bool, error) {
	if holds, done := r.conditions[name]; done {
		return holds, nil
	}
	def, ok := r.tpl.Conditions[name]
	if !ok {
		return false, s.failf(ErrUnknownReference, "condition %q is not defined", name)
	}
	if r.evaluating[name] {
		return false, s.failf(ErrCircularReference, "condition %q depends on itself", name)
	}
	r.evaluating[name] = true
	holds, err := r.conditionExpr(site{path: "Conditions." + name}, def)
	delete(r.evaluating, name)
	if err != nil {
		return false, err
	}
	r.conditions[name] = holds
	return holds, nil
}

// conditionExpr evaluates a condition function: Fn::Equals, Fn::Not, Fn::And, Fn::Or or a
// {"Condition": name} reference.
func (r *resolver) conditionExpr(s site, expr any) (bool, error) {
	m, isObject := expr.(map[string]any)
	if !isObject || len(m) != 1 {
		return false, s.failf(ErrInvalidIntrinsic, "a condition must be one condition function")
	}
	var fn string
	var arg any
	for fn, arg = range m {
	}
	s = s.key(fn)
	switch fn {
	case "Condition":
		name, ok := arg.(string)
		if !ok {
			return false, s.failf(ErrInvalidIntrinsic, "Condition takes a condition name")
		}
		return r.condition(s, name)
	case "Fn::Equals":
		args, err := r.args(s, fn, arg, 2)
		if err != nil {
			return false, err
		}
		return valuesEqual(args[0], args[1]), nil
	case "Fn::Not":
		list, ok := arg.([]any)
		if !ok || len(list) != 1 {
			return false, s.failf(ErrInvalidIntrinsic, "Fn::Not takes a list of one condition")
		}
		holds, err := r.conditionExpr(s.index(0), list[0])
		return !holds, err
	case "Fn::And", "Fn::Or":
		list, ok := arg.([]any)
		if !ok || len(list) == 0 {
			return false, s.failf(ErrInvalidIntrinsic, "%s takes a list of conditions", fn)
		}
		wantAll := fn == "Fn::And"
		for i, item := range list {
			holds, err := r.conditionExpr(s.index(i), item)
			if err != nil {
				return false, err
			}
			if holds != wantAll {
				return holds, nil
			}
		}
		return wantAll, nil
	}
	return false, s.failf(ErrUnsupportedIntrinsic, "%s in a condition", fn)
}

// valuesEqual compares two resolved values the way Fn::Equals does: scalars by their string
// form, lists and objects structurally.
func valuesEqual(a, b any) bool {
	sa, okA := scalarString(a)
	sb, okB := scalarString(b)
	if okA && okB {
		return sa == sb
	}
	return reflect.DeepEqual(a, b)
}
