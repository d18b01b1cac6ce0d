package asl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
)

// ErrInvalidDefinition is wrapped by every error Parse and Validate return for a definition that
// breaks the States Language.
var ErrInvalidDefinition = errors.New("invalid state machine definition")

// ErrUnsupported is wrapped by the errors for valid States Language that a consumer of this model
// (such as the emulator) does not cover.
var ErrUnsupported = errors.New("not supported")

// DefinitionError names where in a definition a problem is: the state (a slash-separated path
// through Parallel branches and Map processors; empty at the top level) and the field.
type DefinitionError struct {
	// State is the path of the state, e.g. "Run/Branches[0]/Work"; empty for machine fields.
	State string
	// Field is the offending field, e.g. "Next" or "Retry[1].ErrorEquals".
	Field string
	// Problem says what is wrong.
	Problem string
	// Kind is ErrInvalidDefinition or ErrUnsupported.
	Kind error
}

// Error renders the problem with its location.
func (e *DefinitionError) Error() string {
	var where []string
	if e.State != "" {
		where = append(where, fmt.Sprintf("state %q", e.State))
	}
	if e.Field != "" {
		where = append(where, fmt.Sprintf("field %s", e.Field))
	}
	loc := strings.Join(where, ", ")
	if loc == "" {
		return fmt.Sprintf("%v: %s", e.Kind, e.Problem)
	}
	return fmt.Sprintf("%v: %s: %s", e.Kind, loc, e.Problem)
}

// Unwrap returns the error's kind, so errors.Is matches ErrInvalidDefinition or ErrUnsupported.
func (e *DefinitionError) Unwrap() error { return e.Kind }

// Parse reads a JSON definition into the model. It is strict: unknown fields, fields of the
// wrong type and duplicate state names are errors naming the state and the field. Parse does
// not check the graph; call Validate for that.
func Parse(doc []byte) (*StateMachine, error) {
	members, err := decodeObject(doc)
	if err != nil {
		return nil, &DefinitionError{Problem: "the definition must be a JSON object: " + err.Error(), Kind: ErrInvalidDefinition}
	}
	p := &parser{scope: "", obj: members}
	m := &StateMachine{}
	p.str("Comment", &m.Comment)
	p.str("Version", &m.Version)
	p.intPtr("TimeoutSeconds", &m.TimeoutSeconds)
	p.str("QueryLanguage", &m.QueryLanguage)
	p.queryLanguage(m.QueryLanguage)
	p.str("StartAt", &m.StartAt)
	m.States = p.states("States", "")
	p.finish()
	if p.err != nil {
		return nil, p.err
	}
	return m, nil
}

// member is one member of a JSON object, in document order.
type member struct {
	key string
	raw json.RawMessage
}

// decodeObject splits a JSON object into its members in document order, rejecting duplicate
// keys (which encoding/json would silently merge).
func decodeObject(raw []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("got %s", describeJSON(raw))
	}
	var out []member
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if seen[key] {
			return nil, fmt.Errorf("duplicate key %q", key)
		}
		seen[key] = true
		out = append(out, member{key, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return out, nil
}

// describeJSON names the JSON type of raw for error messages.
func describeJSON(raw []byte) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

// DecodeValue decodes JSON into the generic representation the model and the emulator use:
// map[string]any, []any, string, bool, nil, int64 for integral numbers and float64 for others.
func DecodeValue(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("trailing data after the JSON value")
	}
	return normalizeNumbers(v), nil
}

// NumberValue returns a JSON number as the generic representation holds it: int64 when it is
// written as an integer that fits, float64 otherwise.
func NumberValue(x json.Number) any {
	if i, err := x.Int64(); err == nil {
		return i
	}
	f, _ := x.Float64()
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 && !strings.ContainsAny(string(x), ".eE") {
		return int64(f)
	}
	return f
}

// normalizeNumbers replaces json.Number values with int64 or float64.
func normalizeNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		return NumberValue(x)
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeNumbers(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = normalizeNumbers(e)
		}
		return x
	default:
		return v
	}
}
