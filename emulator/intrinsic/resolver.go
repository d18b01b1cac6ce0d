package intrinsic

import (
	"github.com/turnstile-sfn/turnstile/emulator/jsonpath"
	"github.com/turnstile-sfn/turnstile/emulator/jsonvalue"
	"sync"
)

// Resolver resolves a JSONPath argument: "$..." against the state input, "$$..." against the
// context object. When the path selects nothing it must return a *NotFoundError (whose Input is
// the state input), so that Evaluate can produce AWS's cause. A definite path (only names and
// indexes) yields the one value it selects; an indefinite path (wildcard, descent, filter,
// union, slice) yields the array of the values it selects, possibly empty.
type Resolver func(path string) (any, error)

// NewResolver returns the Resolver of intrinsic function arguments over the given state input
// and context object, with the path semantics of the rest of the interpreter (package
// jsonpath): a definite path that selects nothing (a missing field, an index past the end of an
// array, an index into a non-array) is a *NotFoundError, while a present JSON null is the value
// nil. contextObject is called only for a "$$" path. The values returned are copies.
func NewResolver(input any, contextObject func() any) Resolver {
	return NewVariableResolver(input, contextObject, nil)
}

// NewVariableResolver is NewResolver that also resolves the "$name..." paths of workflow
// variables, reading a variable's value with variable (nil: no variables).
func NewVariableResolver(input any, contextObject func() any, variable func(name string) (any, bool)) Resolver {
	return func(path string) (any, error) {
		p, err := compile(path)
		if err != nil {
			return nil, err
		}
		var root any
		switch {
		case p.Context && contextObject != nil:
			root = contextObject()
		case p.Variable != "" && variable != nil:
			v, ok := variable(p.Variable)
			if !ok {
				return nil, &NotFoundError{Path: path, Input: input}
			}
			root = v
		}
		v, ok := p.Get(input, root)
		if !ok {
			return nil, &NotFoundError{Path: path, Input: input}
		}
		return jsonvalue.Copy(v), nil
	}
}

// compiledPaths holds the paths compile has compiled, by text: the arguments of the intrinsic
// functions of the definitions run, resolved at every evaluation.
var compiledPaths sync.Map

// compile returns the compiled path, compiling it on first use.
func compile(path string) (*jsonpath.Path, error) {
	if p, ok := compiledPaths.Load(path); ok {
		return p.(*jsonpath.Path), nil
	}
	p, err := jsonpath.Compile(path)
	if err != nil {
		return nil, err
	}
	compiledPaths.Store(path, p)
	return p, nil
}
