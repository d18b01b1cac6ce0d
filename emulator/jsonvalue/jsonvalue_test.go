package jsonvalue

import (
	"encoding/json"
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
