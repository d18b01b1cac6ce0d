package jsonvalue

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"
)

func TestDecodeKeepsMemberOrder(t *testing.T) {
	const text = `{"z":1,"a":{"y":[true,null,"s"],"b":2.5},"m":-3}`
	v, err := Decode([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(v)
	if err != nil || string(out) != text {
		t.Fatalf("round trip: got %s %v, want %s", out, err, text)
	}
	if _, err := Decode([]byte(`{} {}`)); err == nil {
		t.Error("two values: got no error")
	}
}

func TestObjectSetKeepsPlace(t *testing.T) {
	o := Of("a", 1, "b", 2)
	o.SetValueForKey("a", 3)
	o.SetValueForKey("c", 4)
	o.RemoveValueForKey("b")
	if got := o.Keys(); !slices.Equal(got, []string{"a", "c"}) {
		t.Fatalf("keys: got %v", got)
	}
	if v, _ := o.ValueForKey("a"); v != 3 {
		t.Fatalf("a: got %v", v)
	}
}

// TestHashMapOrder checks the order against what AWS recorded for objects it builds through a
// HashMap (the recorded conformance cases map-state-item-selector, map-state-legacy-reentrant
// and json-merge-0).
func TestHashMapOrder(t *testing.T) {
	tests := []struct{ in, want []string }{
		{[]string{"original_input", "iteration_input_value", "iteration_index", "from_input_constant"},
			[]string{"iteration_input_value", "from_input_constant", "iteration_index", "original_input"}},
		{[]string{"Iterations", "Values"}, []string{"Values", "Iterations"}},
		{[]string{"a", "b", "d", "c"}, []string{"a", "b", "c", "d"}},
	}
	for _, tt := range tests {
		if got := HashMapOrder(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("HashMapOrder(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// Objects below and above smallObject members (searched, then indexed) behave alike.
func TestObjectAcrossTheIndexThreshold(t *testing.T) {
	for _, n := range []int{3, smallObject, smallObject + 1, 40} {
		o := &Object{}
		var want []string
		for i := range n {
			k := fmt.Sprintf("k%d", i)
			o.SetValueForKey(k, i)
			want = append(want, k)
		}
		o.SetValueForKey("k0", "first again") // keeps its place
		o.RemoveValueForKey("k1")
		o.RemoveValueForKey("absent")
		want = slices.Delete(want, 1, 2)
		c := o.Clone(1)
		c.SetValueForKey("new", true)
		if got := o.Keys(); !slices.Equal(got, want) {
			t.Errorf("n=%d: keys %v, want %v", n, got, want)
		}
		if v, ok := o.ValueForKey("k0"); !ok || v != "first again" {
			t.Errorf("n=%d: k0 = %v %v", n, v, ok)
		}
		if _, ok := o.ValueForKey("k1"); ok {
			t.Errorf("n=%d: k1 still there", n)
		}
		last := fmt.Sprintf("k%d", n-1)
		if v, ok := o.ValueForKey(last); !ok || v != n-1 {
			t.Errorf("n=%d: %s = %v %v, want %d", n, last, v, ok, n-1)
		}
		if _, ok := o.ValueForKey("new"); ok || c.Len() != o.Len()+1 {
			t.Errorf("n=%d: the clone shares members with the original", n)
		}
		if v, ok := c.ValueForKey(last); !ok || v != n-1 {
			t.Errorf("n=%d: clone %s = %v %v", n, last, v, ok)
		}
	}
}

// Decode's fast path for valid documents gives what the token decoder gives.
func TestDecodeFastPathMatchesTheDecoder(t *testing.T) {
	for _, text := range []string{
		`{}`, `[]`, `""`, `0`, `-0.5`, `1e3`, `12345678901234567890`, `9007199254740993`, `1.0`, `-7`,
		`true`, `false`, `null`, " \t\n{ \"a\" : [ 1 , 2.5 , { } , [ ] ] , \"b\" : null }\r\n",
		`{"z":1,"a":2,"z":3}`, `{"q":"say \"hi\"\\ \/ \n \u00e9 \ud83d\ude00 end"}`,
		"[\"héllo\", \"世界\", \"bad \xff byte\", \"\\u2028\"]", `{"deep":[[[[{"x":[true,false,null]}]]]]}`,
		`{"":""}`, `"tab\there"`,
	} {
		got, err := Decode([]byte(text))
		if err != nil {
			t.Errorf("Decode(%s): %v", text, err)
			continue
		}
		want, err := decodeTokens([]byte(text))
		if err != nil {
			t.Fatalf("decodeTokens(%s): %v", text, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Decode(%s) = %#v, want %#v", text, got, want)
		}
	}
	for _, text := range []string{`{} {}`, `{"a":}`, `[1,]`, ``, `"open`} {
		if v, err := Decode([]byte(text)); err == nil {
			t.Errorf("Decode(%q) = %v, want an error", text, v)
		}
	}
}
