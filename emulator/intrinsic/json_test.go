package intrinsic

import "testing"

func TestJSONFunctions(t *testing.T) {
	runEvalCases(t, []evalCase{
		// States.StringToJson (documentation; AWS recordings, test_json_manipulation.py).
		{name: "StringToJson doc", expr: "States.StringToJson($.escapedJsonString)", input: `{"escapedJsonString":"{\"foo\": \"bar\"}"}`, want: `{"foo":"bar"}`},
		{name: "StringToJson empty is null", expr: "States.StringToJson($.s)", input: `{"s":""}`, want: `null`},
		{name: "StringToJson blank is null", expr: "States.StringToJson($.s)", input: `{"s":" "}`, want: `null`},
		{name: "StringToJson null", expr: "States.StringToJson($.s)", input: `{"s":"null"}`, want: `null`},
		{name: "StringToJson minus zero", expr: "States.StringToJson($.s)", input: `{"s":"-0"}`, want: `0`},
		{name: "StringToJson integer", expr: "States.StringToJson($.s)", input: `{"s":"1"}`, want: `1`},
		{name: "StringToJson float", expr: "States.StringToJson($.s)", input: `{"s":"1.1"}`, want: `1.1`},
		{name: "StringToJson true", expr: "States.StringToJson($.s)", input: `{"s":"true"}`, want: `true`},
		{name: "StringToJson string", expr: "States.StringToJson($.s)", input: `{"s":"\"HelloWorld\""}`, want: `"HelloWorld"`},
		{name: "StringToJson array", expr: "States.StringToJson($.s)", input: `{"s":"[1, 2, \"HelloWorld\"]"}`, want: `[1,2,"HelloWorld"]`},
		{name: "StringToJson object", expr: "States.StringToJson($.s)", input: `{"s":"{\"Arg1\": 1, \"Arg2\": []}"}`, want: `{"Arg1":1,"Arg2":[]}`},
		{name: "StringToJson big integer", expr: "States.StringToJson($.s)", input: `{"s":"12345678901234567890"}`, want: `1.2345678901234567e19`},
		{name: "StringToJson literal", expr: `States.StringToJson('{"text":"a"}')`, want: `{"text":"a"}`},
		{name: "StringToJson not a string", expr: "States.StringToJson($.o)", input: `{"o":{"a":1}}`, wantDetail: "Invalid arguments in States.StringToJson"},
		{name: "StringToJson invalid JSON", expr: "States.StringToJson($.s)", input: `{"s":"{nope"}`, wantDetail: "Invalid arguments in States.StringToJson"},

		// States.JsonToString (documentation; AWS recordings: compact, Java number format).
		{name: "JsonToString doc", expr: "States.JsonToString($.someJson)", input: `{"someJson":{"name":"Foo","year":2020},"zebra":"stripe"}`, want: `"{\"name\":\"Foo\",\"year\":2020}"`},
		{name: "JsonToString null", expr: "States.JsonToString($.v)", input: `{"v":null}`, want: `"null"`},
		{name: "JsonToString zero", expr: "States.JsonToString($.v)", input: `{"v":0}`, want: `"0"`},
		{name: "JsonToString integer", expr: "States.JsonToString($.v)", input: `{"v":1}`, want: `"1"`},
		{name: "JsonToString float", expr: "States.JsonToString($.v)", input: `{"v":1.1}`, want: `"1.1"`},
		{name: "JsonToString whole float", expr: "States.JsonToString($.v)", input: `{"v":2.0}`, want: `"2.0"`},
		{name: "JsonToString true", expr: "States.JsonToString($.v)", input: `{"v":true}`, want: `"true"`},
		{name: "JsonToString string", expr: "States.JsonToString($.v)", input: `{"v":"HelloWorld"}`, want: `"\"HelloWorld\""`},
		{name: "JsonToString array", expr: "States.JsonToString($.v)", input: `{"v":[1,2,"HelloWorld"]}`, want: `"[1,2,\"HelloWorld\"]"`},
		{name: "JsonToString object", expr: "States.JsonToString($.v)", input: `{"v":{"Arg1":1,"Arg2":[]}}`, want: `"{\"Arg1\":1,\"Arg2\":[]}"`},
		{name: "JsonToString escaping", expr: "States.JsonToString($.v)", input: `{"v":"q\"b\\n\n</é\u0001"}`, want: `"\"q\\\"b\\\\n\\n</é\\u0001\""`},
		{name: "JsonToString whole input", expr: "States.JsonToString($)", input: `{"other":1}`, want: `"{\"other\":1}"`},

		// States.JsonMerge (documentation; AWS recording).
		{name: "JsonMerge doc", expr: "States.JsonMerge($.json1, $.json2, false)", input: `{"json1":{"a":{"a1":1,"a2":2},"b":2},"json2":{"a":{"a3":1,"a4":2},"c":3}}`, want: `{"a":{"a3":1,"a4":2},"b":2,"c":3}`},
		{name: "JsonMerge recorded", expr: "States.JsonMerge($.f, $.s, false)", input: `{"f":{"a":{"a1":1,"a2":2},"b":2,"d":3},"s":{"a":{"a3":1,"a4":2},"c":3,"d":4}}`, want: `{"a":{"a3":1,"a4":2},"b":2,"c":3,"d":4}`},
		{name: "JsonMerge deep", expr: "States.JsonMerge($.a, $.b, true)", input: `{"a":{"x":1},"b":{"y":2}}`, wantDetail: "Invalid arguments in States.JsonMerge"},
		{name: "JsonMerge not an object", expr: "States.JsonMerge($.a, $.b, false)", input: `{"a":[1,2],"b":{"y":2}}`, wantDetail: "Invalid arguments in States.JsonMerge"},
		{name: "JsonMerge flag not boolean", expr: "States.JsonMerge($.a, $.b, 0)", input: `{"a":{},"b":{}}`, wantDetail: "Invalid arguments in States.JsonMerge"},
		{name: "JsonMerge arity", expr: "States.JsonMerge($.a, $.b)", input: `{"a":{},"b":{}}`, wantDetail: "Invalid arguments in States.JsonMerge"},
	})
}
