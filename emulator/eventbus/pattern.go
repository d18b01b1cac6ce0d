package eventbus

import (
	"fmt"
	"sort"
)

// orKey is the field name that introduces alternatives in a pattern object.
const orKey = "$or"

// Pattern is a compiled EventBridge event pattern. It is immutable and safe for concurrent use.
type Pattern struct {
	root objectPattern
}

// objectPattern matches a JSON object: every field pattern must hold, and in every $or group
// at least one alternative.
type objectPattern struct {
	fields []fieldPattern
	ors    [][]objectPattern
}

// fieldPattern matches one field: either a nested object pattern or a list of leaf matchers
// of which one must hold.
type fieldPattern struct {
	key    string
	nested *objectPattern
	leaf   []leafMatcher
}

// CompilePattern compiles an event pattern given as JSON text (string, []byte,
// json.RawMessage) or as decoded JSON data (map[string]any, or any value json.Marshal accepts).
// An invalid pattern gives a *PatternError wrapping ErrInvalidPattern or
// ErrUnsupportedOperator.
func CompilePattern(pattern any) (*Pattern, error) {
	v, err := toJSONValue(pattern)
	if err != nil {
		return nil, &PatternError{Err: fmt.Errorf("%w: not JSON: %v", ErrInvalidPattern, err)}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, patternErrorf("", ErrInvalidPattern, "a pattern must be a JSON object")
	}
	root, err := compileObject("", obj)
	if err != nil {
		return nil, err
	}
	return &Pattern{root: root}, nil
}

// compileObject compiles a pattern object found at path.
func compileObject(path string, obj map[string]any) (objectPattern, error) {
	if len(obj) == 0 {
		return objectPattern{}, patternErrorf(path, ErrInvalidPattern, "empty object")
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var p objectPattern
	for _, key := range keys {
		fieldPath := joinPath(path, key)
		if key == orKey {
			group, err := compileOr(fieldPath, obj[key])
			if err != nil {
				return p, err
			}
			p.ors = append(p.ors, group)
			continue
		}
		switch value := obj[key].(type) {
		case map[string]any:
			nested, err := compileObject(fieldPath, value)
			if err != nil {
				return p, err
			}
			p.fields = append(p.fields, fieldPattern{key: key, nested: &nested})
		case []any:
			leaf, err := compileLeaf(fieldPath, value)
			if err != nil {
				return p, err
			}
			p.fields = append(p.fields, fieldPattern{key: key, leaf: leaf})
		default:
			return p, patternErrorf(fieldPath, ErrInvalidPattern, "a field's pattern must be an array or an object, got %T", value)
		}
	}
	return p, nil
}

// compileOr compiles the alternatives of a $or field: an array of at least two objects.
func compileOr(path string, v any) ([]objectPattern, error) {
	list, ok := v.([]any)
	if !ok || len(list) < 2 {
		return nil, patternErrorf(path, ErrInvalidPattern, "$or takes an array of at least two pattern objects")
	}
	group := make([]objectPattern, len(list))
	for i, item := range list {
		obj, ok := item.(map[string]any)
		itemPath := fmt.Sprintf("%s[%d]", path, i)
		if !ok {
			return nil, patternErrorf(itemPath, ErrInvalidPattern, "an $or alternative must be an object")
		}
		var err error
		if group[i], err = compileObject(itemPath, obj); err != nil {
			return nil, err
		}
	}
	return group, nil
}

// joinPath appends a key to a dotted pattern path.
func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// Matches reports whether the event matches the pattern. The event is JSON text or decoded
// JSON data as for CompilePattern (an Event works too); an event that is not a JSON object
// matches nothing.
func (p *Pattern) Matches(event any) bool {
	v, err := toJSONValue(event)
	if err != nil {
		return false
	}
	obj, ok := v.(map[string]any)
	return ok && p.matchDecoded(obj)
}

// matchDecoded matches an event already decoded into generic JSON data.
func (p *Pattern) matchDecoded(event map[string]any) bool {
	return p.root.match(event)
}

// match applies an object pattern to a value; a value that is not an object (or is absent)
// has no fields, so only exists:false leaves can hold for it.
func (p *objectPattern) match(v any) bool {
	obj, _ := v.(map[string]any)
	for i := range p.fields {
		value, present := obj[p.fields[i].key]
		if !p.fields[i].match(value, present) {
			return false
		}
	}
	for _, group := range p.ors {
		if !anyAlternative(group, v) {
			return false
		}
	}
	return true
}

func anyAlternative(group []objectPattern, v any) bool {
	for i := range group {
		if group[i].match(v) {
			return true
		}
	}
	return false
}

// match applies a field pattern to the event's value of that field.
func (f *fieldPattern) match(value any, present bool) bool {
	if f.nested != nil {
		list, isList := value.([]any)
		if !isList || len(list) == 0 {
			return f.nested.match(value)
		}
		// An array of objects matches when one element matches the whole nested pattern.
		for _, item := range list {
			if f.nested.match(item) {
				return true
			}
		}
		return false
	}
	values := leafValues(value, present)
	for _, m := range f.leaf {
		if m.match(values) {
			return true
		}
	}
	return false
}

// leafValues lists the leaf values of an event field: nothing when the field is absent or is
// an object (not a leaf), the scalars of an array (nested arrays flattened), or the scalar
// itself (null included).
func leafValues(value any, present bool) []any {
	if !present {
		return nil
	}
	switch t := value.(type) {
	case map[string]any:
		return nil
	case []any:
		var out []any
		for _, item := range t {
			out = append(out, leafValues(item, true)...)
		}
		return out
	}
	return []any{value}
}
