package jsonvalue

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// encodingJSON is the reference Append must match: encoding/json without HTML escaping, with
// the trailing newline removed.
func encodingJSON(t *testing.T, v any) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

func TestAppendMatchesEncodingJSON(t *testing.T) {
	var nilSlice []any
	values := map[string]any{
		"null":          nil,
		"bool":          false,
		"int64":         int64(-9007199254740993),
		"float":         2.5e-7,
		"large float":   1e21,
		"plain string":  "order-1-regular",
		"escapes":       "a\"b\\c\nd\te\x01f",
		"html":          "<a href='x'>&</a>",
		"unicode":       "héllo, 世界 \u2028 \u2029",
		"invalid utf-8": "bad \xff byte",
		"nil slice":     nilSlice,
		"array":         []any{"x", int64(2), []any{}, nil},
		"generic":       map[string]any{"k": []any{"generic", 1}},
		"number":        json.Number("12"),
	}
	for name, v := range values {
		t.Run(name, func(t *testing.T) {
			got, err := Append([]byte("prefix "), v)
			if err != nil {
				t.Fatal(err)
			}
			if want := "prefix " + encodingJSON(t, v); string(got) != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}

// Objects have no encoding/json reference (encoding/json calls their MarshalJSON, which is
// Append): their text is given.
func TestAppendObjects(t *testing.T) {
	var nilObject *Object
	tests := []struct {
		v    any
		want string
	}{
		{nilObject, `null`},
		{NewObject(0), `{}`},
		{[]any{NewObject(0), nilObject}, `[{},null]`},
		{
			Of("z", int64(1), "a\n<", []any{Of("y", "v&", "b", 2.5), nil, true}, "m", map[string]any{"k": "g"}),
			`{"z":1,"a\n<":[{"y":"v&","b":2.5},null,true],"m":{"k":"g"}}`,
		},
	}
	for _, tt := range tests {
		got, err := Append(nil, tt.v)
		if err != nil || string(got) != tt.want {
			t.Errorf("Append = %s, %v; want %s", got, err, tt.want)
		}
		if o, ok := tt.v.(*Object); ok && o != nil {
			if m, err := o.MarshalJSON(); err != nil || string(m) != tt.want {
				t.Errorf("MarshalJSON = %s, %v; want %s", m, err, tt.want)
			}
		}
	}
}

func TestAppendReportsNonJSON(t *testing.T) {
	for _, v := range []any{math.NaN(), Of("a", make(chan int))} {
		if out, err := Append(nil, v); err == nil {
			t.Errorf("Append(%v) = %s, want an error", v, out)
		}
	}
}
