package jsonpath

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/turnstile-sfn/turnstile/emulator/jsonvalue"
)

func mustJSON(t *testing.T, text string) any {
	t.Helper()
	v, err := jsonvalue.Decode([]byte(text))
	if err != nil {
		t.Fatalf("bad JSON in test: %s: %v", text, err)
	}
	return v
}

func encodeJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// sameJSON compares values including member order.
func sameJSON(a, b any) bool { return reflect.DeepEqual(a, b) }

func TestJSONPathGet(t *testing.T) {
	data := mustJSON(t, `{"a":{"b":[10,20,30]},"delivery-partner":"UQS","Test\\\"\"Name\"":"quoted","it's":1,
"users":[{"status":0,"name":"x"},{"status":1,"name":"y"}],"nil":null,"abc":{"def ghi":1}}`)
	ctxObj := jsonvalue.Of("Execution", jsonvalue.Of("Id", "arn:x"))
	tests := []struct {
		path      string
		want      string // JSON of the value; "" when not found
		definite  bool
		normalize string
	}{
		{`$`, `` /* whole document, not compared */, true, `$`},
		{`$.a.b[1]`, `20`, true, `$['a']['b'][1]`},
		{`$.a.b[-1]`, `30`, true, `$['a']['b'][-1]`},
		{`$.a.missing`, ``, true, `$['a']['missing']`},
		{`$.nil`, `null`, true, `$['nil']`},
		{`$.delivery-partner`, `"UQS"`, true, `$['delivery-partner']`},
		{`$['Test\""Name"']`, `"quoted"`, true, `$['Test\""Name"']`},
		{`$['it\'s']`, `1`, true, `$['it's']`},
		{`$.a.b[0:2]`, `[10,20]`, false, ``},
		{`$.users[?(@.status == 0)].name`, `["x"]`, false, ``},
		{`$..status`, `[0,1]`, false, ``},
		{`$.nothing[*]`, `[]`, false, ``},
		{`$$.Execution.Id`, `"arn:x"`, true, `$['Execution']['Id']`},
		// The bracket-notation example of the Step Functions "Paths" page.
		{`$.abc.['def ghi']`, `1`, true, `$['abc']['def ghi']`},
		{`$.abc['def ghi']`, `1`, true, `$['abc']['def ghi']`},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			p, err := Compile(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			if p.Definite() != tt.definite {
				t.Errorf("definite: got %v, want %v", p.Definite(), tt.definite)
			}
			got, ok := p.Get(data, ctxObj)
			switch {
			case tt.path == "$":
				if !ok || !sameJSON(got, data) {
					t.Errorf("got %s, want the document", encodeJSON(got))
				}
			case tt.want == "":
				if ok {
					t.Errorf("got %s, want nothing", encodeJSON(got))
				}
			case !ok || !sameJSON(got, mustJSON(t, tt.want)):
				t.Errorf("got %s (found %v), want %s", encodeJSON(got), ok, tt.want)
			}
			if tt.normalize != "" && p.Normalized() != tt.normalize {
				t.Errorf("normalized: got %s, want %s", p.Normalized(), tt.normalize)
			}
		})
	}
}

func TestJSONPathSyntaxErrors(t *testing.T) {
	for _, path := range []string{`a.b`, `$.`, `$.a[`, `$['open`, `$..`} {
		if _, err := Compile(path); !errors.Is(err, ErrSyntax) {
			t.Errorf("%s: got %v, want a syntax error", path, err)
		}
	}
}

func TestJSONPathSet(t *testing.T) {
	tests := []struct {
		doc, path, want string
	}{
		{`{"a":1}`, `$.b`, `{"a":1,"b":"v"}`},
		{`{"a":{"x":1}}`, `$.a.y.z`, `{"a":{"x":1,"y":{"z":"v"}}}`},
		{`{"a":[1,2]}`, `$.a[0]`, `{"a":["v",2]}`},
		{`{"a":null}`, `$.a.b`, `{"a":{"b":"v"}}`},
		{`{"a":"text"}`, `$.a.b`, ``},
		{`{"a":[1]}`, `$.a[3]`, ``},
		{`[1]`, `$.a`, ``},
	}
	for _, tt := range tests {
		t.Run(tt.doc+" "+tt.path, func(t *testing.T) {
			p, err := Compile(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			doc := mustJSON(t, tt.doc)
			before := encodeJSON(doc)
			got, err := p.Set(doc, "v")
			if tt.want == "" {
				if !errors.Is(err, ErrMismatch) {
					t.Errorf("got %s %v, want a mismatch", encodeJSON(got), err)
				}
				return
			}
			if err != nil || !sameJSON(got, mustJSON(t, tt.want)) {
				t.Errorf("got %s %v, want %s", encodeJSON(got), err, tt.want)
			}
			if encodeJSON(doc) != before {
				t.Errorf("set changed its input: %s, was %s", encodeJSON(doc), before)
			}
		})
	}
}

// TestVariablePaths reads "$name..." paths from the variable's value, given as root.
func TestVariablePaths(t *testing.T) {
	root := jsonvalue.Of("a", []any{int64(1), int64(2)})
	tests := []struct {
		text, variable string
		want           any
	}{
		{"$x", "x", root},
		{"$x.a[1]", "x", int64(2)},
		{"$my_var2['a'][0]", "my_var2", int64(1)},
	}
	for _, tc := range tests {
		p, err := Compile(tc.text)
		if err != nil {
			t.Fatalf("Compile(%q): %v", tc.text, err)
		}
		if p.Variable != tc.variable {
			t.Errorf("Compile(%q).Variable = %q, want %q", tc.text, p.Variable, tc.variable)
		}
		got, ok := p.Get(jsonvalue.Of("a", "state data"), root)
		if !ok || got != tc.want {
			t.Errorf("Get(%q) = %v, %v; want %v", tc.text, got, ok, tc.want)
		}
	}
	if p, _ := Compile("$.a"); p.Variable != "" {
		t.Errorf(`Compile("$.a").Variable = %q, want ""`, p.Variable)
	}
}

// TestDefinitePathWalkMatchesOJG checks Get's direct walk of definite paths against ojg's
// evaluator, the reference, on hits and on every kind of miss.
func TestDefinitePathWalkMatchesOJG(t *testing.T) {
	data := mustJSON(t, `{"a":{"b":[10,{"c":"x"},null],"n":null},"list":[[1,2],[3]],"s":"str","e":{}}`)
	for _, text := range []string{
		"$.a", "$.a.b", "$.a.b[0]", "$.a.b[1].c", "$.a.b[2]", "$.a.b[3]", "$.a.b[-1]", "$.a.n",
		"$.a.n.x", "$.list[1][0]", "$.list[0][5]", "$['a']['b'][1]['c']", "$.s.x", "$.s[0]",
		"$.a[0]", "$.list.x", "$.missing", "$.e.x", "$.a.b[1].c.d",
	} {
		p, err := Compile(text)
		if err != nil {
			t.Fatalf("Compile(%s): %v", text, err)
		}
		got, gotOK := p.Get(data, nil)
		var want any
		found := p.expr.Get(data)
		wantOK := len(found) > 0
		if wantOK {
			want = found[0]
		}
		if gotOK != wantOK || !sameJSON(got, want) {
			t.Errorf("%s: got %s %v, ojg %s %v", text, encodeJSON(got), gotOK, encodeJSON(want), wantOK)
		}
	}
}
