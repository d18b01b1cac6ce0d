package jsonvalue

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/turnstile-sfn/turnstile/asl"
)

// parseValid parses the JSON value starting at or after raw[i], which json.Valid has accepted,
// and returns it with the offset after it. It is Decode's fast path: no syntax checks, and
// strings that need unescaping or hold non-ASCII bytes go through encoding/json, so that their
// values are exactly the ones it gives (invalid UTF-8 replaced by U+FFFD).
func parseValid(raw []byte, i int) (any, int) {
	i = skipSpace(raw, i)
	switch raw[i] {
	case '{':
		o := NewObject(4)
		i = skipSpace(raw, i+1)
		if raw[i] == '}' {
			return o, i + 1
		}
		for {
			var key string
			key, i = parseString(raw, skipSpace(raw, i))
			i = skipSpace(raw, i) + 1 // ':'
			var v any
			v, i = parseValid(raw, i)
			// Duplicate names: the last one wins, as with Jackson and encoding/json.
			o.SetValueForKey(key, v)
			i = skipSpace(raw, i)
			if raw[i] == '}' {
				return o, i + 1
			}
			i++ // ','
		}
	case '[':
		arr := []any{}
		i = skipSpace(raw, i+1)
		if raw[i] == ']' {
			return arr, i + 1
		}
		for {
			var v any
			v, i = parseValid(raw, i)
			arr = append(arr, v)
			i = skipSpace(raw, i)
			if raw[i] == ']' {
				return arr, i + 1
			}
			i++ // ','
		}
	case '"':
		return parseString(raw, i)
	case 't':
		return true, i + len("true")
	case 'f':
		return false, i + len("false")
	case 'n':
		return nil, i + len("null")
	default:
		end := i + 1
		for end < len(raw) && isNumberByte(raw[end]) {
			end++
		}
		return asl.NumberValue(json.Number(raw[i:end])), end
	}
}

// parseString returns the string whose opening quote is raw[i] and the offset after its closing
// quote.
func parseString(raw []byte, i int) (string, int) {
	plain := true
	end := i + 1
	for ; raw[end] != '"'; end++ {
		switch c := raw[end]; {
		case c == '\\':
			plain = false
			end++ // the escaped byte, which may be a quote
		case c >= utf8.RuneSelf:
			plain = false
		}
	}
	if plain {
		return string(raw[i+1 : end]), end + 1
	}
	var s string
	_ = json.Unmarshal(raw[i:end+1], &s) // valid: json.Valid accepted the document
	return s, end + 1
}

func skipSpace(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	return i
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}
