package intrinsic

import (
	"strings"

	"github.com/ohler55/ojg/jp"
)

// Resolver resolves a JSONPath argument: "$..." against the state input, "$$..." against the
// context object. When the path selects nothing it must return a *NotFoundError (whose Input is
// the state input), so that Evaluate can produce AWS's cause. A definite path (only names and
// indexes) yields the one value it selects; an indefinite path (wildcard, descent, filter,
// union, slice) yields the array of the values it selects, possibly empty.
type Resolver func(path string) (any, error)

// NewResolver returns a Resolver with AWS's semantics for intrinsic function arguments over the
// given state input and context object: a definite path that selects nothing (a missing field,
// an index past the end of an array, an index into a non-array) is a *NotFoundError, while a
// present JSON null is the value nil.
func NewResolver(input, contextObject any) Resolver {
	return func(path string) (any, error) {
		doc, expression := input, path
		if rest, ok := strings.CutPrefix(path, "$$"); ok {
			doc, expression = contextObject, "$"+rest
		}
		x, err := jp.ParseString(expression)
		if err != nil {
			return nil, err
		}
		found := x.Get(doc)
		if !isDefinite(x) {
			if found == nil {
				found = []any{}
			}
			return found, nil
		}
		if len(found) == 0 {
			return nil, &NotFoundError{Path: path, Input: input}
		}
		return found[0], nil
	}
}

// isDefinite reports whether x selects at most one value: it is made of names and indexes only.
func isDefinite(x jp.Expr) bool {
	for _, frag := range x {
		switch frag.(type) {
		case jp.Root, jp.At, jp.Bracket, jp.Child, jp.Nth:
		default:
			return false
		}
	}
	return true
}
