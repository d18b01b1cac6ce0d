package eventbus

import (
	"fmt"
	"net/netip"
	"strings"
)

// Pattern operators EventBridge defines (content filtering).
const (
	opPrefix           = "prefix"
	opSuffix           = "suffix"
	opEqualsIgnoreCase = "equals-ignore-case"
	opWildcard         = "wildcard"
	opAnythingBut      = "anything-but"
	opNumeric          = "numeric"
	opExists           = "exists"
	opCIDR             = "cidr"
)

// leafMatcher decides whether the leaf values of one event field satisfy one element of a
// field's pattern array. values is empty when the field is absent (or not a leaf).
type leafMatcher interface {
	match(values []any) bool
}

// anyValue holds when at least one leaf value passes the test.
type anyValue func(v any) bool

func (test anyValue) match(values []any) bool {
	for _, v := range values {
		if test(v) {
			return true
		}
	}
	return false
}

// existsMatcher holds when the field's presence as a leaf is what the pattern wants.
type existsMatcher bool

func (want existsMatcher) match(values []any) bool { return (len(values) > 0) == bool(want) }

// compileLeaf compiles a field's pattern array: exact values and operator objects, any of
// which may match.
func compileLeaf(path string, list []any) ([]leafMatcher, error) {
	if len(list) == 0 {
		return nil, patternErrorf(path, ErrInvalidPattern, "empty array")
	}
	matchers := make([]leafMatcher, len(list))
	for i, item := range list {
		itemPath := fmt.Sprintf("%s[%d]", path, i)
		switch t := item.(type) {
		case map[string]any:
			m, err := compileOperator(itemPath, t)
			if err != nil {
				return nil, err
			}
			matchers[i] = m
		default:
			lit, ok := literalOf(item)
			if !ok {
				return nil, patternErrorf(itemPath, ErrInvalidPattern, "a value must be a string, number, boolean, null or operator object")
			}
			matchers[i] = anyValue(lit.equals)
		}
	}
	return matchers, nil
}

// compileOperator compiles one operator object such as {"prefix": "us-"}.
func compileOperator(path string, obj map[string]any) (leafMatcher, error) {
	op, arg, ok := onlyEntry(obj)
	if !ok {
		return nil, patternErrorf(path, ErrInvalidPattern, "an operator object must have exactly one key, got %d", len(obj))
	}
	opPath := path + "." + op
	switch op {
	case opPrefix, opSuffix, opEqualsIgnoreCase, opWildcard:
		test, err := compileStringTest(opPath, op, arg)
		if err != nil {
			return nil, err
		}
		return anyValue(test), nil
	case opAnythingBut:
		return compileAnythingBut(opPath, arg)
	case opNumeric:
		return compileNumeric(opPath, arg)
	case opExists:
		want, ok := arg.(bool)
		if !ok {
			return nil, patternErrorf(opPath, ErrInvalidPattern, "exists takes true or false")
		}
		return existsMatcher(want), nil
	case opCIDR:
		return compileCIDR(opPath, arg)
	}
	return nil, patternErrorf(opPath, ErrUnsupportedOperator, "%q", op)
}

// onlyEntry returns the key and value of a one-entry object; ok is false for any other size.
func onlyEntry(obj map[string]any) (key string, value any, ok bool) {
	if len(obj) != 1 {
		return "", nil, false
	}
	for key, value = range obj {
	}
	return key, value, true
}

// compileStringTest compiles the string operators prefix, suffix (each optionally
// {"equals-ignore-case": s}), equals-ignore-case and wildcard. Non-string values never pass.
func compileStringTest(path, op string, arg any) (func(any) bool, error) {
	operand, ignoreCase, err := stringOperand(path, op, arg)
	if err != nil {
		return nil, err
	}
	var test func(string) bool
	switch op {
	case opPrefix:
		test = func(s string) bool { return strings.HasPrefix(fold(s, ignoreCase), operand) }
	case opSuffix:
		test = func(s string) bool { return strings.HasSuffix(fold(s, ignoreCase), operand) }
	case opEqualsIgnoreCase:
		test = func(s string) bool { return strings.EqualFold(s, operand) }
	case opWildcard:
		w, err := compileWildcard(path, operand)
		if err != nil {
			return nil, err
		}
		test = w.match
	}
	return func(v any) bool {
		s, ok := v.(string)
		return ok && test(s)
	}, nil
}

// stringOperand reads the operand of a string operator; prefix and suffix also accept
// {"equals-ignore-case": s}, in which case the operand is returned lower-cased.
func stringOperand(path, op string, arg any) (operand string, ignoreCase bool, err error) {
	if s, ok := arg.(string); ok {
		return s, false, nil
	}
	if obj, ok := arg.(map[string]any); ok && (op == opPrefix || op == opSuffix) && len(obj) == 1 {
		if s, ok := obj[opEqualsIgnoreCase].(string); ok {
			return strings.ToLower(s), true, nil
		}
	}
	return "", false, patternErrorf(path, ErrInvalidPattern, "%s takes a string", op)
}

// fold lower-cases s when the comparison ignores case.
func fold(s string, ignoreCase bool) string {
	if ignoreCase {
		return strings.ToLower(s)
	}
	return s
}

// compileAnythingBut compiles anything-but: a value, a list of strings or of numbers, or one
// of prefix, suffix, equals-ignore-case and wildcard. It holds for a present value that does
// not match what follows; an absent field never matches.
func compileAnythingBut(path string, arg any) (leafMatcher, error) {
	switch t := arg.(type) {
	case []any:
		if len(t) == 0 {
			return nil, patternErrorf(path, ErrInvalidPattern, "anything-but takes a non-empty list")
		}
		excluded := make([]literal, len(t))
		for i, item := range t {
			lit, ok := literalOf(item)
			if !ok || (lit.kind != kindString && lit.kind != kindNumber) || (i > 0 && lit.kind != excluded[0].kind) {
				return nil, patternErrorf(path, ErrInvalidPattern, "anything-but takes a list of only strings or only numbers")
			}
			excluded[i] = lit
		}
		return anyValue(func(v any) bool {
			for _, lit := range excluded {
				if lit.equals(v) {
					return false
				}
			}
			return true
		}), nil
	case map[string]any:
		op, operand, ok := onlyEntry(t)
		if !ok {
			return nil, patternErrorf(path, ErrInvalidPattern, "anything-but takes one operator")
		}
		tests, err := anythingButOperator(path+"."+op, op, operand)
		if err != nil {
			return nil, err
		}
		return anyValue(func(v any) bool {
			for _, test := range tests {
				if test(v) {
					return false
				}
			}
			return true
		}), nil
	}
	lit, ok := literalOf(arg)
	if !ok || (lit.kind != kindString && lit.kind != kindNumber) {
		return nil, patternErrorf(path, ErrInvalidPattern, "anything-but takes a string, a number, a list or an operator")
	}
	return anyValue(func(v any) bool { return !lit.equals(v) }), nil
}

// anythingButOperator compiles the operator inside anything-but into the tests a value must
// all fail. equals-ignore-case and wildcard accept a list of operands.
func anythingButOperator(path, op string, operand any) ([]func(any) bool, error) {
	switch op {
	case opPrefix, opSuffix:
		s, ok := operand.(string)
		if !ok {
			return nil, patternErrorf(path, ErrInvalidPattern, "%s takes a string", op)
		}
		test, err := compileStringTest(path, op, s)
		return []func(any) bool{test}, err
	case opEqualsIgnoreCase, opWildcard:
		operands, ok := operand.([]any)
		if !ok {
			operands = []any{operand}
		}
		if len(operands) == 0 {
			return nil, patternErrorf(path, ErrInvalidPattern, "%s takes a string or a non-empty list of strings", op)
		}
		tests := make([]func(any) bool, len(operands))
		for i, item := range operands {
			var err error
			if tests[i], err = compileStringTest(path, op, item); err != nil {
				return nil, err
			}
		}
		return tests, nil
	}
	return nil, patternErrorf(path, ErrUnsupportedOperator, "%q inside anything-but", op)
}

// compileCIDR compiles {"cidr": "10.0.0.0/24"} (IPv4 or IPv6).
func compileCIDR(path string, arg any) (leafMatcher, error) {
	s, ok := arg.(string)
	if !ok {
		return nil, patternErrorf(path, ErrInvalidPattern, "cidr takes a string")
	}
	prefix, err := netip.ParsePrefix(s)
	if err != nil {
		return nil, patternErrorf(path, ErrInvalidPattern, "cidr %q: %v", s, err)
	}
	prefix = prefix.Masked()
	return anyValue(func(v any) bool {
		text, ok := v.(string)
		if !ok {
			return false
		}
		addr, err := netip.ParseAddr(text)
		return err == nil && prefix.Contains(addr.Unmap())
	}), nil
}
