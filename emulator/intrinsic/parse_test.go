package intrinsic

import (
	"errors"
	"testing"
)

func TestIsIntrinsic(t *testing.T) {
	tests := []struct {
		s    string
		want bool
	}{
		{s: "States.Format('x')", want: true},
		{s: "States.UUID()", want: true},
		{s: "States.Unknown($.a)", want: true}, // written as a call; Parse rejects the name
		{s: "States.Format", want: false},
		{s: "States.(x)", want: false},
		{s: "$.States.Format('x')", want: false},
		{s: " States.Format('x')", want: false},
		{s: "Hello", want: false},
		{s: "", want: false},
	}
	for _, tc := range tests {
		if got := IsIntrinsic(tc.s); got != tc.want {
			t.Errorf("IsIntrinsic(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}

// TestParseEvaluatesLiterals parses argument forms and checks the values they evaluate to.
func TestParseEvaluatesLiterals(t *testing.T) {
	runEvalCases(t, []evalCase{
		{name: "string", expr: "States.Array('a b')", want: `["a b"]`},
		{name: "string with comma and parenthesis", expr: "States.Array('a, b)')", want: `["a, b)"]`},
		{name: "escapes", expr: `States.Array('\'\{\}\\')`, want: `["'{}\\"]`},
		{name: "double quotes are plain", expr: `States.Array('say "hi"')`, want: `["say \"hi\""]`},
		{name: "empty string", expr: "States.Array('')", want: `[""]`},
		{name: "integers", expr: "States.Array(0, -7, 1234567890123)", want: `[0,-7,1234567890123]`},
		{name: "integer beyond int64", expr: "States.Array(9223372036854775808)", want: `[9.223372036854775808e18]`},
		{name: "floats", expr: "States.Array(1.5, -0.25, 1e3, 2E-2, 1.0)", want: `[1.5,-0.25,1000.0,0.02,1.0]`},
		{name: "keywords", expr: "States.Array(true, false, null)", want: `[true,false,null]`},
		{name: "spacing", expr: "States.Array(  1 ,2,\t3 )", want: `[1,2,3]`},
		{name: "no spacing", expr: "States.Array($.a,$.b)", input: `{"a":1,"b":2}`, want: `[1,2]`},
		{name: "bracket path with comma", expr: "States.Array($['a,b'], $.c)", input: `{"a,b":1,"c":2}`, want: `[1,2]`},
		{name: "filter path", expr: "States.Array($.items[?(@.n > 1)].n)", input: `{"items":[{"n":1},{"n":2},{"n":3}]}`, want: `[[2,3]]`},
		{name: "whole input", expr: "States.Array($)", input: `{"a":1}`, want: `[{"a":1}]`},
		{name: "context path", expr: "States.Array($$.Execution.Input.a)", input: `{"a":1}`, want: `[1]`},
		{name: "nested calls", expr: "States.Format('{}.{}', States.ArrayGetItem(States.StringSplit($.arn, '/'), 1), States.ArrayLength(States.Array(1, 2)))", input: `{"arn":"a/b/c"}`, want: `"b.2"`},
	})
}

func TestParseKeepsSource(t *testing.T) {
	const source = "States.Format('{}',$.nope )"
	e, err := Parse(source)
	if err != nil {
		t.Fatal(err)
	}
	if got := e.String(); got != source {
		t.Fatalf("String() = %q, want %q", got, source)
	}
}

// TestParseRejects lists expressions AWS refuses in a definition (SCHEMA_VALIDATION_FAILED).
func TestParseRejects(t *testing.T) {
	tests := []struct {
		expr       string
		wantOffset int
	}{
		{expr: "", wantOffset: 0},
		{expr: "Format('x')", wantOffset: 0},
		{expr: "States.Unknown('x')", wantOffset: 0},
		{expr: "States.format('x')", wantOffset: 0},
		{expr: "States.Format", wantOffset: 13},
		{expr: "States.Format ('x')", wantOffset: 13},
		{expr: "States.Format('x'", wantOffset: 17},
		{expr: "States.Format('x)", wantOffset: 17},
		{expr: `States.Format('a\nb')`, wantOffset: 16},
		{expr: `States.Format('a\`, wantOffset: 16},
		{expr: "States.Array(1,)", wantOffset: 15},
		{expr: "States.Array(,1)", wantOffset: 13},
		{expr: "States.Array($.a, )", wantOffset: 18},
		{expr: "States.Array(1 2)", wantOffset: 15},
		{expr: "States.Array(1) x", wantOffset: 16},
		{expr: "States.Array(undefined)", wantOffset: 13},
		{expr: "States.Array(\"x\")", wantOffset: 13},
		{expr: "States.Array(-)", wantOffset: 14},
		{expr: "States.Array(1.)", wantOffset: 15},
		{expr: "States.Array(1e)", wantOffset: 15},
		{expr: "States.Array(1e999)", wantOffset: 13},
		{expr: "States.Array($.a[)", wantOffset: 13},
		{expr: "States.Array($.a.)", wantOffset: 13},
		{expr: "States.Array($1a)", wantOffset: 13}, // "$a" is the variable a
		{expr: "States.Array(States.Nope())", wantOffset: 13},
	}
	for _, tc := range tests {
		t.Run(tc.expr, func(t *testing.T) {
			e, err := Parse(tc.expr)
			var se *SyntaxError
			if !errors.As(err, &se) || !errors.Is(err, ErrSyntax) {
				t.Fatalf("Parse(%q) = (%v, %v), want a *SyntaxError", tc.expr, e, err)
			}
			if se.Offset != tc.wantOffset || se.Expr != tc.expr {
				t.Fatalf("got offset %d in %q (%s), want offset %d", se.Offset, se.Expr, se.Reason, tc.wantOffset)
			}
		})
	}
}

func TestSyntaxErrorDefinitionMessage(t *testing.T) {
	_, err := Parse(`States.Format('a\nb')`)
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("got %v, want a *SyntaxError", err)
	}
	const want = "The value for the field 'Message.$' must be a valid JSONPath or a valid intrinsic function call"
	if got := se.DefinitionMessage("Message.$"); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
