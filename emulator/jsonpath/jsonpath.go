// Package jsonpath compiles and evaluates the JSONPath expressions of the Amazon States Language
// (JSONPath query language) with the semantics of the Jayway JsonPath library Step Functions uses.
// The interpreter and the intrinsic functions both resolve their paths here.
package jsonpath

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ohler55/ojg/jp"

	"github.com/turnstile-sfn/turnstile/emulator/jsonvalue"
)

// Path is a compiled path of the States Language: "$..." into the state's data or "$$..."
// into the context object, with the semantics of the Jayway JsonPath library Step Functions uses.
// A definite path (names and indexes only) selects one value and fails when nothing is there; an
// indefinite one (wildcard, slice, filter, union, descent) selects the list of what matches,
// possibly empty.
type Path struct {
	// Text is the path as written.
	Text string
	// Context reports that the path is rooted at "$$", the context object.
	Context bool
	// Variable is the workflow variable a "$name..." path starts from; empty for other paths.
	Variable string
	expr     jp.Expr
	definite bool
}

// ErrSyntax is wrapped by the errors Compile returns: fix the path in the definition.
var ErrSyntax = errors.New("invalid JSONPath")

// Compile parses a path. Dot-notation names may contain any character but "." and "[", as
// Jayway allows ("$.delivery-partner"); inside single-quoted bracket names a backslash escapes a
// quote only and is otherwise literal.
func Compile(text string) (*Path, error) {
	p := &Path{Text: text}
	rest, ok := strings.CutPrefix(text, "$$")
	if ok {
		p.Context = true
	} else if rest, ok = strings.CutPrefix(text, "$"); !ok {
		return nil, fmt.Errorf("%w: %q does not start with $", ErrSyntax, text)
	} else if n := variableNameLength(rest); n > 0 {
		p.Variable, rest = rest[:n], rest[n:]
	}
	canonical, err := canonicalPath(rest)
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %v", ErrSyntax, text, err)
	}
	expr, err := jp.ParseString("$" + canonical)
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %v", ErrSyntax, text, err)
	}
	p.expr = expr
	p.definite = isDefinite(expr)
	return p, nil
}

// variableNameLength returns the length of the variable name at the start of s ("x" of
// "x.field"), 0 when s does not start with one.
func variableNameLength(s string) int {
	n := 0
	for n < len(s) {
		c := s[n]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || n > 0 && c >= '0' && c <= '9' {
			n++
			continue
		}
		break
	}
	return n
}

// IsRoot reports whether the path is "$" (or "$$") alone.
func (p *Path) IsRoot() bool { return len(p.expr) == 1 }

// Definite reports whether the path selects at most one value: it is made of names and indexes
// only.
func (p *Path) Definite() bool { return p.definite }

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
				if i < len(s) && s[i] == '[' {
					// "$.abc.['def ghi']", the bracket example of the Step Functions "Paths"
					// page: Jayway reads a dot before a bracket as the bracket alone.
					continue
				}
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

// nameQuoter escapes a name for a single-quoted ojg bracket.
var nameQuoter = strings.NewReplacer(`\`, `\\`, `'`, `\'`)

// quoteName escapes a name for a single-quoted ojg bracket.
func quoteName(name string) string { return nameQuoter.Replace(name) }

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

// Get evaluates the path against the state data, or against root: the context object for a
// "$$" path, the variable's value for a variable path. A definite path returns the value and
// whether it exists; an indefinite path always exists and returns []any.
func (p *Path) Get(data, root any) (any, bool) {
	doc := data
	if p.Context || p.Variable != "" {
		doc = root
	}
	if p.IsRoot() {
		return doc, true
	}
	if p.definite {
		if v, ok := p.walk(doc); ok {
			return v, true
		}
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

// walk follows a definite path through the model's objects and arrays directly, the common
// case, without ojg's general evaluator: names into *jsonvalue.Object members, non-negative
// indexes into []any. It reports false as soon as the walk leaves that case (another container,
// a missing member, an index out of range, a negative index, a null value) and Get then asks
// ojg, whose answer stays the reference for everything else.
func (p *Path) walk(doc any) (any, bool) {
	v := doc
	for _, frag := range p.expr[1:] {
		switch f := frag.(type) {
		case jp.Bracket:
		case jp.Child:
			o, ok := v.(*jsonvalue.Object)
			if !ok {
				return nil, false
			}
			if v, ok = o.ValueForKey(string(f)); !ok {
				return nil, false
			}
		case jp.Nth:
			a, ok := v.([]any)
			if !ok || f < 0 || int(f) >= len(a) {
				return nil, false
			}
			v = a[f]
		default:
			return nil, false
		}
	}
	return v, v != nil
}

// Normalized renders the path the way Jayway names it in "No results for path" messages:
// $['name'][0].
func (p *Path) Normalized() string {
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

// ErrMismatch is returned by Set when the path cannot be applied to the value (a name into a
// non-object, an index past the end or into a non-array).
var ErrMismatch = errors.New("the path cannot be applied")

// Set returns a copy of doc with the value at the (definite) path replaced by v, creating
// missing objects along the way (a new member goes last). Only the objects and arrays on the
// path are copied.
func (p *Path) Set(doc, v any) (any, error) {
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
		var obj *jsonvalue.Object
		switch x := doc.(type) {
		case *jsonvalue.Object:
			obj = x.Clone(1)
		case nil:
			obj = jsonvalue.NewObject(1)
		default:
			return nil, ErrMismatch
		}
		old, _ := obj.ValueForKey(string(f))
		child, err := setFrags(old, frags[1:], v)
		if err != nil {
			return nil, err
		}
		obj.SetValueForKey(string(f), child)
		return obj, nil
	case jp.Nth:
		arr, ok := doc.([]any)
		i := int(f)
		if i < 0 {
			i += len(arr)
		}
		if !ok || i < 0 || i >= len(arr) {
			return nil, ErrMismatch
		}
		out := append([]any(nil), arr...)
		child, err := setFrags(out[i], frags[1:], v)
		if err != nil {
			return nil, err
		}
		out[i] = child
		return out, nil
	default:
		return nil, ErrMismatch
	}
}
