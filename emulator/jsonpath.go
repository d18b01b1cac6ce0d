package emulator

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ohler55/ojg/jp"
)

// jsonPath is a compiled path of the States Language: "$..." into the state's data or "$$..."
// into the context object, with the semantics of the Jayway JsonPath library Step Functions uses.
// A definite path (names and indexes only) selects one value and fails when nothing is there; an
// indefinite one (wildcard, slice, filter, union, descent) selects the list of what matches,
// possibly empty.
type jsonPath struct {
	text     string // as written
	context  bool   // rooted at "$$", the context object
	expr     jp.Expr
	definite bool
}

// errPathSyntax is wrapped by the errors compilePath returns.
var errPathSyntax = errors.New("invalid JSONPath")

// compilePath parses a path. Dot-notation names may contain any character but "." and "[", as
// Jayway allows ("$.delivery-partner"); inside single-quoted bracket names a backslash escapes a
// quote only and is otherwise literal.
func compilePath(text string) (*jsonPath, error) {
	p := &jsonPath{text: text}
	rest, ok := strings.CutPrefix(text, "$$")
	if ok {
		p.context = true
	} else if rest, ok = strings.CutPrefix(text, "$"); !ok {
		return nil, fmt.Errorf("%w: %q does not start with $", errPathSyntax, text)
	}
	canonical, err := canonicalPath(rest)
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %v", errPathSyntax, text, err)
	}
	expr, err := jp.ParseString("$" + canonical)
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %v", errPathSyntax, text, err)
	}
	p.expr = expr
	p.definite = isDefinite(expr)
	return p, nil
}

// isRoot reports whether the path is "$" (or "$$") alone.
func (p *jsonPath) isRoot() bool { return len(p.expr) == 1 }

// canonicalPath rewrites the part of a path after "$" into the bracket notation ojg parses.
func canonicalPath(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); {
		switch s[i] {
		case '.':
			if strings.HasPrefix(s[i:], "..") {
				b.WriteString("..")
				i += 2
				if i < len(s) && s[i] == '[' {
					continue
				}
			} else {
				i++
			}
			end := i
			for end < len(s) && s[end] != '.' && s[end] != '[' {
				end++
			}
			name := s[i:end]
			switch name {
			case "":
				return "", fmt.Errorf("empty name at offset %d", i)
			case "*":
				b.WriteString("[*]")
			default:
				b.WriteString("['" + quoteName(name) + "']")
			}
			i = end
		case '[':
			end, text, err := bracket(s, i)
			if err != nil {
				return "", err
			}
			b.WriteString(text)
			i = end
		default:
			return "", fmt.Errorf("unexpected %q at offset %d", s[i], i)
		}
	}
	return b.String(), nil
}

// quoteName escapes a name for a single-quoted ojg bracket.
func quoteName(name string) string {
	return strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(name)
}

// bracket reads the bracket expression starting at s[start] ('[') and returns the offset after
// its closing ']' and its text for ojg: quoted names are re-escaped, everything else (indexes,
// slices, unions, filters) is kept.
func bracket(s string, start int) (int, string, error) {
	var b strings.Builder
	depth := 0
	for i := start; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\'', '"':
			name, end, err := quoted(s, i)
			if err != nil {
				return 0, "", err
			}
			b.WriteString("'" + quoteName(name) + "'")
			i = end
			continue
		case '[', '(':
			depth++
		case ']', ')':
			depth--
		}
		b.WriteByte(c)
		if depth == 0 {
			return i + 1, b.String(), nil
		}
	}
	return 0, "", fmt.Errorf("unterminated bracket at offset %d", start)
}

// quoted reads a quoted name starting at s[start]; a backslash escapes the quote character only.
func quoted(s string, start int) (string, int, error) {
	q := s[start]
	var b strings.Builder
	for i := start + 1; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == q:
			b.WriteByte(q)
			i++
		case s[i] == q:
			return b.String(), i, nil
		default:
			b.WriteByte(s[i])
		}
	}
	return "", 0, fmt.Errorf("unterminated quoted name at offset %d", start)
}

// isDefinite reports whether x selects at most one value: it is made of names and indexes only.
func isDefinite(x jp.Expr) bool {
	for _, frag := range x {
		switch frag.(type) {
		case jp.Root, jp.At, jp.Bracket, jp.Child, jp.Nth:
		default:
			return false
		}
	}
	return true
}

// get evaluates the path against the state data or the context object. A definite path returns
// the value and whether it exists; an indefinite path always exists and returns []any.
func (p *jsonPath) get(data, contextObject any) (any, bool) {
	doc := data
	if p.context {
		doc = contextObject
	}
	if p.isRoot() {
		return doc, true
	}
	found := p.expr.Get(doc)
	if !p.definite {
		if found == nil {
			found = []any{}
		}
		return found, true
	}
	if len(found) == 0 {
		return nil, false
	}
	return found[0], true
}

// normalized renders the path the way Jayway names it in "No results for path" messages:
// $['name'][0].
func (p *jsonPath) normalized() string {
	var b strings.Builder
	b.WriteString("$")
	for _, frag := range p.expr[1:] {
		switch f := frag.(type) {
		case jp.Child:
			b.WriteString("['" + string(f) + "']")
		case jp.Nth:
			b.WriteString("[" + strconv.Itoa(int(f)) + "]")
		case jp.Bracket:
		default:
			b.WriteString(jp.Expr{f}.String())
		}
	}
	return b.String()
}

// errResultPathMismatch is returned by set when the path cannot be applied to the value.
var errResultPathMismatch = errors.New("the path cannot be applied")

// set returns a copy of doc with the value at the (definite) path replaced by v, creating
// missing objects along the way. Only the maps and slices on the path are copied.
func (p *jsonPath) set(doc, v any) (any, error) {
	frags := make([]jp.Frag, 0, len(p.expr))
	for _, f := range p.expr[1:] {
		if _, marker := f.(jp.Bracket); !marker {
			frags = append(frags, f)
		}
	}
	return setFrags(doc, frags, v)
}

func setFrags(doc any, frags []jp.Frag, v any) (any, error) {
	if len(frags) == 0 {
		return v, nil
	}
	switch f := frags[0].(type) {
	case jp.Child:
		var obj map[string]any
		switch x := doc.(type) {
		case map[string]any:
			obj = make(map[string]any, len(x)+1)
			for k, e := range x {
				obj[k] = e
			}
		case nil:
			obj = map[string]any{}
		default:
			return nil, errResultPathMismatch
		}
		child, err := setFrags(obj[string(f)], frags[1:], v)
		if err != nil {
			return nil, err
		}
		obj[string(f)] = child
		return obj, nil
	case jp.Nth:
		arr, ok := doc.([]any)
		i := int(f)
		if i < 0 {
			i += len(arr)
		}
		if !ok || i < 0 || i >= len(arr) {
			return nil, errResultPathMismatch
		}
		out := append([]any(nil), arr...)
		child, err := setFrags(out[i], frags[1:], v)
		if err != nil {
			return nil, err
		}
		out[i] = child
		return out, nil
	default:
		return nil, errResultPathMismatch
	}
}
