package intrinsic

import (
	"strings"
	"testing"
)

func TestBase64Functions(t *testing.T) {
	runEvalCases(t, []evalCase{
		// Documentation and AWS recordings.
		{name: "Encode doc", expr: "States.Base64Encode($.input)", input: `{"input":"Data to encode"}`, want: `"RGF0YSB0byBlbmNvZGU="`},
		{name: "Encode empty", expr: "States.Base64Encode('')", want: `""`},
		{name: "Encode UTF-8", expr: "States.Base64Encode($.s)", input: `{"s":"こんにちは"}`, want: `"44GT44KT44Gr44Gh44Gv"`},
		{name: "Encode astral", expr: "States.Base64Encode('🚀')", want: `"8J+agA=="`},
		{name: "Encode standard alphabet", expr: "States.Base64Encode('>>>???')", want: `"Pj4+Pz8/"`},
		{name: "Encode 10000 chars", expr: "States.Base64Encode(States.Format('{}', $.s))", input: `{"s":"` + strings.Repeat("a", 10000) + `"}`, want: `"` + strings.Repeat("YWFh", 3333) + `YQ=="`},
		{name: "Encode 10001 chars", expr: "States.Base64Encode($.s)", input: `{"s":"` + strings.Repeat("a", 10001) + `"}`, wantDetail: "Invalid arguments in States.Base64Encode"},
		{name: "Encode number", expr: "States.Base64Encode(123)", wantDetail: "Invalid arguments in States.Base64Encode"},
		{name: "Encode arity", expr: "States.Base64Encode('a', 'b')", wantDetail: "Invalid arguments in States.Base64Encode"},
		{name: "Decode doc", expr: "States.Base64Decode($.base64)", input: `{"base64":"RGF0YSB0byBlbmNvZGU="}`, want: `"Data to encode"`},
		{name: "Decode empty", expr: "States.Base64Decode($.s)", input: `{"s":""}`, want: `""`},
		{name: "Decode UTF-8", expr: "States.Base64Decode('4pyT')", want: `"✓"`},
		{name: "Decode NUL", expr: "States.Base64Decode('YWJjAGRlZg==')", want: `"abc\u0000def"`},
		{name: "Decode round trip", expr: "States.Base64Decode(States.Base64Encode($.s))", input: `{"s":"hello"}`, want: `"hello"`},
		// AWS accepts malformed Base64 and decodes what it can.
		{name: "Decode skips spaces", expr: "States.Base64Decode(' YWJjZA== ')", want: `"abcd"`},
		{name: "Decode without padding", expr: "States.Base64Decode('YWJjZA')", want: `"abcd"`},
		{name: "Decode stops at padding", expr: "States.Base64Decode('YQ==YWJj')", want: `"a"`},
		{name: "Decode URL-safe alphabet", expr: "States.Base64Decode('Pj4-Pz8_')", want: `">>>???"`},
		{name: "Decode invalid UTF-8", expr: "States.Base64Decode('/w==')", want: `"\ufffd"`},
		{name: "Decode 10001 chars", expr: "States.Base64Decode($.s)", input: `{"s":"` + strings.Repeat("A", 10001) + `"}`, wantDetail: "Invalid arguments in States.Base64Decode"},
		{name: "Decode object", expr: "States.Base64Decode($.o)", input: `{"o":{}}`, wantDetail: "Invalid arguments in States.Base64Decode"},
		{name: "Decode arity", expr: "States.Base64Decode()", wantDetail: "Invalid arguments in States.Base64Decode"},
	})
}
