package intrinsic

import (
	"strings"
	"testing"
)

func TestHash(t *testing.T) {
	runEvalCases(t, []evalCase{
		// AWS recordings (test_hash_calculations.py) over "input data".
		{name: "MD5", expr: "States.Hash($.d, $.a)", input: `{"d":"input data","a":"MD5"}`, want: `"812f45842bc6d66ee14572ce20db8e86"`},
		{name: "SHA-1", expr: "States.Hash($.d, $.a)", input: `{"d":"input data","a":"SHA-1"}`, want: `"aaff4a450a104cd177d28d18d74485e8cae074b7"`},
		{name: "SHA-256", expr: "States.Hash($.d, $.a)", input: `{"d":"input data","a":"SHA-256"}`, want: `"b4a697a057313163aee33cd8d40c66e9f0f177e00cac2de32475ffff6169c3e3"`},
		{name: "SHA-384", expr: "States.Hash($.d, $.a)", input: `{"d":"input data","a":"SHA-384"}`, want: `"d28a7d5cf25a74f11a50a18452b75e04bb3d70c9dd0510d6123aa008c756511b87525bdc835ebb27e1fb9e9374a15562"`},
		{name: "SHA-512", expr: "States.Hash('hello', 'SHA-512')", want: `"9b71d224bd62f3785d96d46ad3ea3d73319bfbc2890caadae2dff72519673ca72323c3d99ba5c11d7c7acc6e14b8c5da0c4663475c2e5c3adef46f73bcdec043"`},
		{name: "empty string", expr: "States.Hash('', 'SHA-256')", want: `"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"`},
		{name: "UTF-8 bytes", expr: "States.Hash($.s, 'SHA-256')", input: `{"s":"✓"}`, want: `"1dabba21cdad44541f6b15796f8d22978fc7ea10c46aeceeeeb66c23b3ac7604"`},
		{name: "number hashed as text", expr: "States.Hash(123, 'MD5')", want: `"202cb962ac59075b964b07152d234b70"`},
		{name: "10000 chars", expr: "States.Hash($.s, 'MD5')", input: `{"s":"` + strings.Repeat("a", 10000) + `"}`, want: `"0d0c9c4db6953fee9e03f528cafd7d3e"`},
		{name: "10001 chars", expr: "States.Hash($.s, 'SHA-256')", input: `{"s":"` + strings.Repeat("a", 10001) + `"}`, wantDetail: "Invalid arguments in States.Hash"},
		{name: "lowercase algorithm", expr: "States.Hash('data', 'sha-256')", wantDetail: "Invalid arguments in States.Hash"},
		{name: "algorithm without hyphen", expr: "States.Hash('data', 'SHA256')", wantDetail: "Invalid arguments in States.Hash"},
		{name: "numeric algorithm", expr: "States.Hash('data', 123)", wantDetail: "Invalid arguments in States.Hash"},
		{name: "arity", expr: "States.Hash('hello')", wantDetail: "Invalid arguments in States.Hash"},
	})
}
