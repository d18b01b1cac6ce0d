package intrinsic

import "testing"

func TestStringSplit(t *testing.T) {
	runEvalCases(t, []evalCase{
		// Documentation and AWS recordings (test_string_operations.py).
		{name: "doc", expr: "States.StringSplit($.inputString, $.splitter)", input: `{"inputString":"1,2,3,4,5","splitter":","}`, want: `["1","2","3","4","5"]`},
		{name: "every delimiter character", expr: "States.StringSplit($.s, $.d)", input: `{"s":"This.is+a,test=string","d":".+,="}`, want: `["This","is","a","test","string"]`},
		{name: "literal arguments", expr: "States.StringSplit('This.is+a,test=string', '.+,=')", want: `["This","is","a","test","string"]`},
		{name: "no delimiter", expr: "States.StringSplit($.s, ',')", input: `{"s":" "}`, want: `[" "]`},
		{name: "spaces kept", expr: "States.StringSplit($.s, ',')", input: `{"s":" , "}`, want: `[" "," "]`},
		{name: "only delimiters", expr: "States.StringSplit($.s, ',')", input: `{"s":",,,,"}`, want: `[]`},
		{name: "empty pieces dropped", expr: "States.StringSplit(',,a,,b,,', ',')", want: `["a","b"]`},
		{name: "empty string", expr: "States.StringSplit('', ',')", want: `[]`},
		{name: "empty delimiters", expr: "States.StringSplit('abc', '')", want: `["abc"]`},
		{name: "astral delimiter", expr: "States.StringSplit($.s, $.d)", input: `{"s":"a😀b😀c","d":"😀"}`, want: `["a","b","c"]`},
		{name: "not a string", expr: "States.StringSplit($.n, ',')", input: `{"n":7}`, wantDetail: "Invalid arguments in States.StringSplit"},
		{name: "arity", expr: "States.StringSplit('a,b')", wantDetail: "Invalid arguments in States.StringSplit"},
	})
}
