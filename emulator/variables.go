package emulator

import (
	"sync"

	"github.com/turnstile-sfn/turnstile/emulator/jsonvalue"
)

// varScope holds the workflow variables of one flow. A Parallel branch or a Map iteration gets a
// scope of its own whose parent is the scope of the flow that runs the state: it reads the outer
// variables, and what it assigns stays in its scope, gone when the branch or iteration ends.
type varScope struct {
	parent *varScope
	mu     sync.Mutex
	values map[string]any // values in the interpreter's model
}

// newVarScope returns an empty scope inside parent (nil for the execution's top level).
func newVarScope(parent *varScope) *varScope {
	return &varScope{parent: parent, values: map[string]any{}}
}

// lookup returns the value of a variable, searching the enclosing scopes.
func (v *varScope) lookup(name string) (any, bool) {
	for s := v; s != nil; s = s.parent {
		s.mu.Lock()
		x, ok := s.values[name]
		s.mu.Unlock()
		if ok {
			return x, true
		}
	}
	return nil, false
}

// all returns every variable visible in the scope, inner ones hiding outer ones, in the
// representation JSONata evaluates.
func (v *varScope) all() map[string]any {
	out := map[string]any{}
	var chain []*varScope
	for s := v; s != nil; s = s.parent {
		chain = append(chain, s)
	}
	for i := len(chain) - 1; i >= 0; i-- {
		s := chain[i]
		s.mu.Lock()
		for k, x := range s.values {
			out[k] = toJSONata(x)
		}
		s.mu.Unlock()
	}
	return out
}

// assign sets the variables of an evaluated Assign object in this scope.
func (v *varScope) assign(values *jsonvalue.Object) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, k := range values.Keys() {
		x, _ := values.ValueForKey(k)
		v.values[k] = x
	}
}
