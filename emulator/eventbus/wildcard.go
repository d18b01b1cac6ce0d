package eventbus

import "strings"

// wildcardPattern is a compiled wildcard operand: literal segments separated by '*'.
type wildcardPattern struct {
	segments []string
}

// compileWildcard parses a wildcard operand. '*' matches any run of characters; "\*" is a
// literal asterisk and "\\" a literal backslash. Consecutive '*' and any other escape are
// invalid, as in EventBridge.
func compileWildcard(path, operand string) (wildcardPattern, error) {
	var segments []string
	var current strings.Builder
	for i := 0; i < len(operand); i++ {
		switch c := operand[i]; c {
		case '\\':
			if i+1 >= len(operand) || (operand[i+1] != '*' && operand[i+1] != '\\') {
				return wildcardPattern{}, patternErrorf(path, ErrInvalidPattern, "wildcard %q: a backslash may only escape * or \\", operand)
			}
			i++
			current.WriteByte(operand[i])
		case '*':
			if i+1 < len(operand) && operand[i+1] == '*' {
				return wildcardPattern{}, patternErrorf(path, ErrInvalidPattern, "wildcard %q: consecutive * are not allowed", operand)
			}
			segments = append(segments, current.String())
			current.Reset()
		default:
			current.WriteByte(c)
		}
	}
	return wildcardPattern{segments: append(segments, current.String())}, nil
}

// match reports whether s matches the wildcard: the first segment is a prefix, the last a
// suffix, and the ones between occur in order without overlapping.
func (w wildcardPattern) match(s string) bool {
	if len(w.segments) == 1 {
		return s == w.segments[0]
	}
	first, last := w.segments[0], w.segments[len(w.segments)-1]
	if len(s) < len(first)+len(last) || !strings.HasPrefix(s, first) || !strings.HasSuffix(s, last) {
		return false
	}
	middle := s[len(first) : len(s)-len(last)]
	for _, seg := range w.segments[1 : len(w.segments)-1] {
		at := strings.Index(middle, seg)
		if at < 0 {
			return false
		}
		middle = middle[at+len(seg):]
	}
	return true
}
