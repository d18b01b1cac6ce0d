package intrinsic

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/turnstile-sfn/turnstile/emulator/jsonvalue"
)

// AWS Step Functions runs on the JVM and writes JSON with Jackson: compact, numbers with a
// fraction or exponent written by Java's Double.toString (1.0, 1.1, 1.0E21, 1.0E-4), strings
// with only '"', '\' and control characters escaped. Object members are written in document
// order, as Jackson's ObjectNode keeps them.

// appendJSON appends v as AWS writes it in JSON text (States.JsonToString, causes).
func appendJSON(b []byte, v any) []byte { return appendJSONKeys(b, v, false) }

// canonicalJSON renders v as appendJSON does but with object members in name order, so that two
// values Jackson finds equal (its ObjectNode equality ignores member order) render the same.
func canonicalJSON(v any) string { return string(appendJSONKeys(nil, v, true)) }

func appendJSONKeys(b []byte, v any, sortKeys bool) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, x)
	case string:
		return appendJSONString(b, x)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case int:
		return strconv.AppendInt(b, int64(x), 10)
	case float64:
		return appendJavaDouble(b, x)
	case []any:
		b = append(b, '[')
		for i, item := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONKeys(b, item, sortKeys)
		}
		return append(b, ']')
	case *jsonvalue.Object:
		keys := x.Keys()
		if sortKeys {
			keys = slices.Sorted(slices.Values(keys))
		}
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
			b = append(b, ':')
			v, _ := x.ValueForKey(k)
			b = appendJSONKeys(b, v, sortKeys)
		}
		return append(b, '}')
	default: // not a JSON value of the emulator's representation; written as a string
		return appendJSONString(b, fmt.Sprint(x))
	}
}

// appendJavaText appends v as Java's toString renders the value once converted to Java objects,
// which is what States.Format substitutes for {}: strings without quotes, null as "null",
// arrays as "[a, b]" and objects as "{k=v, k2=v2}".
func appendJavaText(b []byte, v any) []byte {
	switch x := v.(type) {
	case string:
		return append(b, x...)
	case []any:
		b = append(b, '[')
		for i, item := range x {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = appendJavaText(b, item)
		}
		return append(b, ']')
	case *jsonvalue.Object:
		b = append(b, '{')
		for i, k := range x.Keys() {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(b, k...)
			b = append(b, '=')
			v, _ := x.ValueForKey(k)
			b = appendJavaText(b, v)
		}
		return append(b, '}')
	default:
		return appendJSON(b, v)
	}
}

// appendJavaDouble appends f as Java's Double.toString writes it: plain notation with at least
// one fraction digit for magnitudes in [1e-3, 1e7), computerized scientific notation otherwise.
func appendJavaDouble(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, 1):
		return append(b, "Infinity"...)
	case math.IsInf(f, -1):
		return append(b, "-Infinity"...)
	case f == 0 && math.Signbit(f):
		return append(b, "-0.0"...)
	case f == 0:
		return append(b, "0.0"...)
	}
	if abs := math.Abs(f); abs >= 1e-3 && abs < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return append(b, s...)
	}
	mantissa, exponent, _ := strings.Cut(strconv.FormatFloat(f, 'e', -1, 64), "e")
	if !strings.Contains(mantissa, ".") {
		mantissa += ".0"
	}
	b = append(b, mantissa...)
	b = append(b, 'E')
	n, _ := strconv.Atoi(exponent) // strconv writes a valid signed exponent such as "+21"
	return strconv.AppendInt(b, int64(n), 10)
}

// appendJSONString appends s as a JSON string literal with Jackson's escaping.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	b = append(b, '"')
	for _, r := range strings.ToValidUTF8(s, string(utf8.RuneError)) {
		switch {
		case r == '"':
			b = append(b, `\"`...)
		case r == '\\':
			b = append(b, `\\`...)
		case r == '\b':
			b = append(b, `\b`...)
		case r == '\f':
			b = append(b, `\f`...)
		case r == '\n':
			b = append(b, `\n`...)
		case r == '\r':
			b = append(b, `\r`...)
		case r == '\t':
			b = append(b, `\t`...)
		case r < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xF])
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return append(b, '"')
}

// sameJSON reports whether a and b are equal as AWS compares JSON values (Jackson's equals):
// same types and values, so the integer 1 differs from the number 1.0.
func sameJSON(a, b any) bool {
	return canonicalJSON(a) == canonicalJSON(b)
}
