package jsonvalue

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// Append appends the compact JSON text of v to dst, objects in their member order, without
// escaping HTML characters: the text encoding/json gives with SetEscapeHTML(false), without
// its trailing newline. The values of the model are written directly (encoding/json would
// re-validate the output of every nested MarshalJSON); any other value goes through
// encoding/json, whose errors (channels, NaN) it returns.
func Append(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case string:
		return appendString(dst, x), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case *Object:
		if x == nil {
			return append(dst, "null"...), nil
		}
		dst = append(dst, '{')
		for i, k := range x.keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, k)
			dst = append(dst, ':')
			var err error
			if dst, err = Append(dst, x.values[i]); err != nil {
				return dst, err
			}
		}
		return append(dst, '}'), nil
	case []any:
		if x == nil {
			return append(dst, "null"...), nil
		}
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = Append(dst, e); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	}
	return appendEncoded(dst, v)
}

// appendString appends s quoted. Strings of printable ASCII without '"' or '\\', the common
// case, are copied; any other goes through encoding/json for its escapes (control characters,
// U+2028, U+2029, invalid UTF-8).
func appendString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			out, _ := appendEncoded(dst, s) // a string always encodes
			return out
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

// appendEncoded appends what encoding/json writes for v, HTML characters unescaped.
func appendEncoded(dst []byte, v any) ([]byte, error) {
	buf := bytes.NewBuffer(dst)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return dst, err
	}
	out := buf.Bytes()
	return out[:len(out)-1], nil // the newline Encode adds
}
