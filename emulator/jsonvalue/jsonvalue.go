// Package jsonvalue is the emulator's JSON value model: *Object (an object that keeps its members
// in document order, as the Jackson nodes of Step Functions do), []any, string, bool, nil, int64
// for integral numbers and float64 for others. The interpreter, the JSONPath resolver and the
// intrinsic functions all work on these values, so wildcards, deep scans, intrinsic results and
// rendered payloads list object members in the order the document gave them.
package jsonvalue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"unicode/utf16"

	"github.com/turnstile-sfn/turnstile/asl"
)

// Object is a JSON object whose members keep their insertion order. It implements the Keyed
// interface of github.com/ohler55/ojg/jp, so JSONPath expressions visit its members in order.
// The zero value is an empty object.
type Object struct {
	keys   []string
	values []any // values[i] is the value of keys[i]
	// index maps a name to its position once the object has more than smallObject members;
	// smaller objects are searched in keys, which costs less than a map.
	index map[string]int
}

// smallObject is the number of members up to which an Object has no index.
const smallObject = 8

// NewObject returns an empty object with room for n members.
func NewObject(n int) *Object {
	return &Object{keys: make([]string, 0, n), values: make([]any, 0, n)}
}

// Len returns the number of members.
func (o *Object) Len() int { return len(o.keys) }

// Keys returns the member names in order. The caller must not modify the slice.
func (o *Object) Keys() []string { return o.keys }

// find returns the position of a member, or -1.
func (o *Object) find(key string) int {
	if o.index != nil {
		if i, ok := o.index[key]; ok {
			return i
		}
		return -1
	}
	for i, k := range o.keys {
		if k == key {
			return i
		}
	}
	return -1
}

// ValueForKey returns the value of a member and whether it exists.
func (o *Object) ValueForKey(key string) (any, bool) {
	if i := o.find(key); i >= 0 {
		return o.values[i], true
	}
	return nil, false
}

// SetValueForKey sets a member: an existing one keeps its place, a new one goes last.
func (o *Object) SetValueForKey(key string, value any) {
	if i := o.find(key); i >= 0 {
		o.values[i] = value
		return
	}
	o.keys = append(o.keys, key)
	o.values = append(o.values, value)
	switch {
	case o.index != nil:
		o.index[key] = len(o.keys) - 1
	case len(o.keys) > smallObject:
		o.reindex()
	}
}

// reindex builds the index of a large object, or drops it from a small one.
func (o *Object) reindex() {
	if len(o.keys) <= smallObject {
		o.index = nil
		return
	}
	o.index = make(map[string]int, len(o.keys))
	for i, k := range o.keys {
		o.index[k] = i
	}
}

// RemoveValueForKey removes a member if it exists.
func (o *Object) RemoveValueForKey(key string) {
	i := o.find(key)
	if i < 0 {
		return
	}
	o.keys = slices.Delete(o.keys, i, i+1)
	o.values = slices.Delete(o.values, i, i+1)
	if o.index != nil {
		o.reindex()
	}
}

// Clone returns a shallow copy with room for extra more members.
func (o *Object) Clone(extra int) *Object {
	out := &Object{
		keys:   append(make([]string, 0, o.Len()+extra), o.keys...),
		values: append(make([]any, 0, o.Len()+extra), o.values...),
	}
	if o.index != nil {
		out.reindex()
	}
	return out
}

// MarshalJSON writes the members in order, without escaping HTML characters (see Append).
func (o *Object) MarshalJSON() ([]byte, error) { return Append(nil, o) }

// Of builds an object from alternating keys and values, in that order: Of("Error", e, "Cause", c).
func Of(pairs ...any) *Object {
	o := NewObject(len(pairs) / 2)
	for i := 0; i+1 < len(pairs); i += 2 {
		o.SetValueForKey(pairs[i].(string), pairs[i+1])
	}
	return o
}

// ErrTrailingData is returned by Decode when the text holds more than one JSON value.
var ErrTrailingData = errors.New("trailing data after the JSON value")

// Decode parses one JSON value into the model, keeping the document's member order. Numbers
// follow asl.NumberValue.
func Decode(raw []byte) (any, error) {
	if json.Valid(raw) {
		v, _ := parseValid(raw, 0)
		return v, nil
	}
	// The decoder's errors describe what is wrong.
	return decodeTokens(raw)
}

// decodeTokens is Decode with encoding/json's decoder, token by token.
func decodeTokens(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, ErrTrailingData
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := NewObject(4)
			for dec.More() {
				keyTok, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				// Duplicate names: the last one wins, as with Jackson and encoding/json.
				o.SetValueForKey(keyTok.(string), v)
			}
			_, err := dec.Token() // '}'
			return o, err
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			_, err := dec.Token() // ']'
			return arr, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case json.Number:
		return asl.NumberValue(t), nil
	default: // string, bool, nil
		return t, nil
	}
}

// FromGeneric converts a value of asl's generic representation (map[string]any objects, as the
// parsed definition holds them) into the model; the members of a map go in name order. Values
// already in the model are returned as they are.
func FromGeneric(v any) any {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		o := NewObject(len(keys))
		for _, k := range keys {
			o.SetValueForKey(k, FromGeneric(x[k]))
		}
		return o
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = FromGeneric(e)
		}
		return out
	default:
		return v
	}
}

// ToGeneric converts a value of the model into asl's generic representation (map[string]any
// objects), for code outside the interpreter (integrations, tests) that expects plain maps.
func ToGeneric(v any) any {
	switch x := v.(type) {
	case *Object:
		out := make(map[string]any, x.Len())
		for i, k := range x.keys {
			out[k] = ToGeneric(x.values[i])
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = ToGeneric(e)
		}
		return out
	default:
		return v
	}
}

// Copy returns a deep copy of a value that shares no object or array with it.
func Copy(v any) any {
	switch x := v.(type) {
	case *Object:
		out := NewObject(x.Len())
		for i, k := range x.keys {
			out.SetValueForKey(k, Copy(x.values[i]))
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Copy(e)
		}
		return out
	default:
		return v
	}
}

// HashMapOrder returns keys (distinct, in insertion order) in the order a java.util.HashMap
// with the default capacity and load factor, filled in that order, iterates them: by bucket
// (the spread String.hashCode masked by the table size), then by insertion within a bucket.
// Step Functions builds some objects through such a map: the "name.$" fields of a payload
// template and the result of States.JsonMerge list their members in this order.
func HashMapOrder(keys []string) []string {
	size := 16
	for float64(len(keys)) > 0.75*float64(size) {
		size *= 2
	}
	bucket := func(k string) int {
		var h int32
		for _, unit := range utf16.Encode([]rune(k)) {
			h = 31*h + int32(unit)
		}
		u := uint32(h)
		return int((u ^ u>>16) & uint32(size-1))
	}
	out := slices.Clone(keys)
	slices.SortStableFunc(out, func(a, b string) int { return bucket(a) - bucket(b) })
	return out
}
