package intrinsic

import "testing"

func TestFormat(t *testing.T) {
	runEvalCases(t, []evalCase{
		// AWS documentation examples.
		{name: "doc literal template", expr: "States.Format('Hello, my name is {}.', $.name)", input: `{"name":"Arnav"}`, want: `"Hello, my name is Arnav."`},
		{name: "doc path template", expr: "States.Format($.template, $.name)", input: `{"name":"Arnav","template":"Hello, my name is {}."}`, want: `"Hello, my name is Arnav."`},
		{name: "spec literal number", expr: "States.Format('Your name is {}, we are in the year {}', $.name, 2020)", input: `{"name":"Foo"}`, want: `"Your name is Foo, we are in the year 2020"`},
		// Recorded on AWS (LocalStack snapshots test_generic.py::test_format_1/2).
		{name: "empty string", expr: "States.Format('Formatting argument {}.', $.v)", input: `{"v":""}`, want: `"Formatting argument ."`},
		{name: "null", expr: "States.Format('Formatting argument {}.', $.v)", input: `{"v":null}`, want: `"Formatting argument null."`},
		{name: "integer", expr: "States.Format('Formatting argument {}.', $.v)", input: `{"v":1}`, want: `"Formatting argument 1."`},
		{name: "float", expr: "States.Format('Formatting argument {}.', $.v)", input: `{"v":1.1}`, want: `"Formatting argument 1.1."`},
		{name: "object as Java map", expr: "States.Format('fst={} and snd={}.', $.a, $.a)", input: `{"a":{"Arg1":1,"Arg2":[]}}`, want: `"fst={Arg1=1, Arg2=[]} and snd={Arg1=1, Arg2=[]}."`},
		{name: "JSON text stays as is", expr: "States.Format('{}', $.v)", input: `{"v":"{\"Arg1\": 1, \"Arg2\": []}"}`, want: `"{\"Arg1\": 1, \"Arg2\": []}"`},
		// Java toString rendering.
		{name: "array as Java list", expr: "States.Format('{}', $.v)", input: `{"v":["a",1,null,true,[2.5]]}`, want: `"[a, 1, null, true, [2.5]]"`},
		{name: "whole float keeps .0", expr: "States.Format('{}', $.v)", input: `{"v":3.0}`, want: `"3.0"`},
		{name: "large float in E notation", expr: "States.Format('{}', 1e21)", want: `"1.0E21"`},
		{name: "booleans", expr: "States.Format('{} {}', true, false)", want: `"true false"`},
		{name: "no placeholder", expr: "States.Format('no placeholders')", want: `"no placeholders"`},
		{name: "whitespace kept", expr: "States.Format('  {}  ', 'x')", want: `"  x  "`},
		// Escapes in the template.
		{name: "escaped braces", expr: `States.Format('This value is \{{}\}', 'Foo')`, want: `"This value is {Foo}"`},
		{name: "escaped braces only", expr: `States.Format('\{\}')`, want: `"{}"`},
		{name: "escaped quote and backslash", expr: `States.Format('it\'s {} \\ done', 'x')`, want: `"it's x \\ done"`},
		{name: "escapes in a path template", expr: "States.Format($.t, 'Foo')", input: `{"t":"This value is \\{{}\\}"}`, want: `"This value is {Foo}"`},
		{name: "value braces are not placeholders", expr: "States.Format('{}', '{}')", want: `"{}"`},
		{name: "nested call", expr: "States.Format('arn:{}:{}', $.svc, States.JsonToString($.obj))", input: `{"svc":"lambda","obj":{"k":1}}`, want: `"arn:lambda:{\"k\":1}"`},
		// Invalid arguments (AWS: States.Runtime, "Invalid arguments in States.Format").
		{name: "too few values", expr: "States.Format('{} {}', 'x')", wantDetail: "Invalid arguments in States.Format"},
		{name: "too many values", expr: "States.Format('{}', 'x', 'y')", wantDetail: "Invalid arguments in States.Format"},
		{name: "template not a string", expr: "States.Format($.t, 'x')", input: `{"t":123}`, wantDetail: "Invalid arguments in States.Format"},
		{name: "unmatched opening brace", expr: "States.Format('Hello {', 'x')", wantDetail: "Invalid arguments in States.Format"},
		{name: "doubled braces", expr: "States.Format('Hello {{}}', 'x')", wantDetail: "Invalid arguments in States.Format"},
		{name: "lone closing brace", expr: "States.Format('}')", wantDetail: "Invalid arguments in States.Format"},
		{name: "no arguments", expr: "States.Format()", wantDetail: "Invalid arguments in States.Format"},
	})
}
