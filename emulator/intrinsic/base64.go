package intrinsic

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"
)

// maxCodecInput is the longest string, in Java chars (UTF-16 code units), that
// States.Base64Encode, States.Base64Decode and States.Hash accept.
const maxCodecInput = 10000

// base64Encode implements States.Base64Encode(string): the UTF-8 bytes of the string in
// standard Base64 with padding and no line breaks.
func base64Encode(inv invocation) (any, error) {
	s, ok := inv.args[0].(string)
	if !ok || javaLength(s) > maxCodecInput {
		return nil, ErrInvalidArguments
	}
	return base64.StdEncoding.EncodeToString([]byte(s)), nil
}

// base64Decode implements States.Base64Decode(string): the decoded bytes read as UTF-8. AWS
// decodes leniently and never rejects the text: characters outside the Base64 alphabets are
// skipped, decoding stops at the first '=', and a short final group yields the bytes it holds.
func base64Decode(inv invocation) (any, error) {
	s, ok := inv.args[0].(string)
	if !ok || javaLength(s) > maxCodecInput {
		return nil, ErrInvalidArguments
	}
	return strings.ToValidUTF8(string(decodeBase64Leniently(s)), string(utf8.RuneError)), nil
}

// decodeBase64Leniently decodes standard or URL-safe Base64, skipping foreign characters.
func decodeBase64Leniently(s string) []byte {
	out := make([]byte, 0, len(s)*3/4)
	var group uint32
	var held int
	for i := 0; i < len(s) && s[i] != '='; i++ {
		digit := base64Digit(s[i])
		if digit < 0 {
			continue
		}
		group = group<<6 | uint32(digit)
		held++
		if held == 4 {
			out = append(out, byte(group>>16), byte(group>>8), byte(group))
			group, held = 0, 0
		}
	}
	switch held {
	case 2:
		out = append(out, byte(group>>4))
	case 3:
		out = append(out, byte(group>>10), byte(group>>2))
	}
	return out
}

// base64Digit returns the value of a Base64 digit (both alphabets), or -1.
func base64Digit(c byte) int {
	switch {
	case 'A' <= c && c <= 'Z':
		return int(c - 'A')
	case 'a' <= c && c <= 'z':
		return int(c-'a') + 26
	case '0' <= c && c <= '9':
		return int(c-'0') + 52
	case c == '+' || c == '-':
		return 62
	case c == '/' || c == '_':
		return 63
	default:
		return -1
	}
}

// javaLength returns the length of s as Java counts it, in UTF-16 code units.
func javaLength(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r > 0xFFFF {
			n++
		}
	}
	return n
}
