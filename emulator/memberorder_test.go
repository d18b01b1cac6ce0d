package emulator

import "testing"

// orderInput has object members whose document order differs from their name order.
const orderInput = `{"a":{"x":{"n":1},"y":{"n":2},"z":{"n":3},"w":{"n":4}}}`

// TestMemberOrderInPaths runs a wildcard over an object and a deep scan many times: Step
// Functions evaluates them with Jayway JsonPath over insertion-ordered objects, so both list the
// members in document order, every time.
func TestMemberOrderInPaths(t *testing.T) {
	em := newEmulator(t, 0)
	arn := create(t, em, `{"StartAt":"P","States":{"P":{"Type":"Pass","Parameters":{
		"wildcard.$":"$.a[*].n","scan.$":"$..n","filter.$":"$.a[?(@.n > 1)].n",
		"text.$":"States.JsonToString($.a)","merged.$":"States.JsonMerge($.a.x, $.a.y, false)"},"End":true}}}`)
	for i := range 50 {
		got := execute(t, em, arn, orderInput)
		if got.Status != StatusSucceeded {
			t.Fatalf("run %d: %s %s %s", i, got.Status, deref(got.Error), deref(got.Cause))
		}
		// The "name.$" fields come in Java HashMap order, as AWS renders them (see awsFieldOrder).
		const want = `{"filter":[2,3,4],"scan":[1,2,3,4],"merged":{"n":2},` +
			`"text":"{\"x\":{\"n\":1},\"y\":{\"n\":2},\"z\":{\"n\":3},\"w\":{\"n\":4}}","wildcard":[1,2,3,4]}`
		if *got.Output != want {
			t.Fatalf("run %d:\n got %s\nwant %s", i, *got.Output, want)
		}
	}
}

// TestMemberOrderOfOutputs checks that state outputs keep the input's member order, that
// ResultPath puts a new member last, and that Result keeps the definition's order.
func TestMemberOrderOfOutputs(t *testing.T) {
	em := newEmulator(t, 0)
	tests := []struct{ name, definition, want string }{
		{"input passes through", `{"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}}`, orderInput},
		{"ResultPath appends", `{"StartAt":"P","States":{"P":{"Type":"Pass","Result":{"z":1,"a":2},"ResultPath":"$.b","End":true}}}`,
			`{"a":{"x":{"n":1},"y":{"n":2},"z":{"n":3},"w":{"n":4}},"b":{"z":1,"a":2}}`},
		{"ResultPath replaces in place", `{"StartAt":"P","States":{"P":{"Type":"Pass","Result":0,"ResultPath":"$.a.y","End":true}}}`,
			`{"a":{"x":{"n":1},"y":0,"z":{"n":3},"w":{"n":4}}}`},
		{"literal fields first, in document order", `{"StartAt":"P","States":{"P":{"Type":"Pass",
			"Parameters":{"zz.$":"$.a.z.n","b":1,"a":{"y":1,"x.$":"$.a.x.n"}},"End":true}}}`, `{"b":1,"a":{"y":1,"x":1},"zz":3}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runMachine(t, em, tt.definition, orderInput)
			if got.Output == nil || *got.Output != tt.want {
				t.Fatalf("got %s (%s %s), want %s", deref(got.Output), deref(got.Error), deref(got.Cause), tt.want)
			}
		})
	}
}

// TestDocsPathsBracketExample runs the bracket-notation example of the "Paths" page of the Step
// Functions Developer Guide, $.abc.['def ghi'], in InputPath and in Parameters.
func TestDocsPathsBracketExample(t *testing.T) {
	em := newEmulator(t, 0)
	const input = `{"abc":{"def ghi":{"v":1}}}`
	for _, definition := range []string{
		`{"StartAt":"P","States":{"P":{"Type":"Pass","InputPath":"$.abc.['def ghi']","End":true}}}`,
		`{"StartAt":"P","States":{"P":{"Type":"Pass","Parameters":{"v.$":"$.abc.['def ghi'].v"},"End":true}}}`,
	} {
		got := runMachine(t, em, definition, input)
		if got.Status != StatusSucceeded || *got.Output != `{"v":1}` {
			t.Errorf("%s: got %s %s %s, want {\"v\":1}", definition, got.Status, deref(got.Output), deref(got.Cause))
		}
	}
}
