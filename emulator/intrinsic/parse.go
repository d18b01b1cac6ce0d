package intrinsic

import (
	"strconv"
	"strings"

	"github.com/turnstile-sfn/turnstile/emulator/jsonpath"
)

const statesPrefix = "States."

// IsIntrinsic reports whether s is written as an intrinsic function call: "States.", a function
// name and an opening parenthesis. It does not check the rest; Parse does.
func IsIntrinsic(s string) bool {
	rest, ok := strings.CutPrefix(s, statesPrefix)
	if !ok {
		return false
	}
	name := identifierLength(rest)
	return name > 0 && name < len(rest) && rest[name] == '('
}

// Parse parses one intrinsic function call such as "States.Format('Hello {}', $.name)".
// Arguments are string literals in single quotes (with the escapes \' \{ \} and \\), numbers,
// true, false, null, JSONPaths ("$..." for the state input, "$$..." for the context object) and
// nested calls. A malformed expression, an unknown function name, an unknown escape sequence or
// an invalid JSONPath is a *SyntaxError: AWS rejects it when the state machine is created. The
// number and types of arguments are checked by Evaluate, as AWS checks them at run time.
func Parse(expr string) (*Expr, error) {
	p := &parser{src: expr}
	root, err := p.parseCall()
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos != len(p.src) {
		return nil, p.fail("unexpected text after the closing parenthesis")
	}
	return &Expr{source: expr, root: root}, nil
}

// parser is a recursive-descent parser over one expression.
type parser struct {
	src string
	pos int
}

func (p *parser) fail(reason string) error {
	return &SyntaxError{Expr: p.src, Offset: p.pos, Reason: reason}
}

func (p *parser) skipSpace() {
	for p.pos < len(p.src) && isSpace(p.src[p.pos]) {
		p.pos++
	}
}

// parseCall parses "States.Name(arg, ...)" at the current position.
func (p *parser) parseCall() (*call, error) {
	if !strings.HasPrefix(p.src[p.pos:], statesPrefix) {
		return nil, p.fail(`expected an intrinsic function call starting with "States."`)
	}
	start := p.pos
	p.pos += len(statesPrefix)
	p.pos += identifierLength(p.src[p.pos:])
	name := p.src[start:p.pos]
	fn, ok := functions[name]
	if !ok {
		p.pos = start
		return nil, p.fail("unknown intrinsic function " + strconv.Quote(name))
	}
	if p.pos >= len(p.src) || p.src[p.pos] != '(' {
		return nil, p.fail(`expected "(" after ` + name)
	}
	p.pos++
	c := &call{fn: fn}
	p.skipSpace()
	if p.pos < len(p.src) && p.src[p.pos] == ')' {
		p.pos++
		return c, nil
	}
	for {
		p.skipSpace()
		arg, err := p.parseArgument()
		if err != nil {
			return nil, err
		}
		c.args = append(c.args, arg)
		p.skipSpace()
		if p.pos >= len(p.src) {
			return nil, p.fail(`missing ")"`)
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
		case ')':
			p.pos++
			return c, nil
		default:
			return nil, p.fail(`expected "," or ")"`)
		}
	}
}

// parseArgument parses one argument at the current position.
func (p *parser) parseArgument() (argument, error) {
	if p.pos >= len(p.src) {
		return argument{}, p.fail("missing argument")
	}
	switch c := p.src[p.pos]; {
	case c == '\'':
		return p.parseString()
	case c == '$':
		return p.parsePath()
	case c == '-' || isDigit(c):
		return p.parseNumber()
	case strings.HasPrefix(p.src[p.pos:], statesPrefix):
		nested, err := p.parseCall()
		return argument{kind: callArgument, nested: nested}, err
	default:
		return p.parseKeyword()
	}
}

// parseString parses a single-quoted string literal.
func (p *parser) parseString() (argument, error) {
	p.pos++ // opening quote
	start := p.pos
	var value strings.Builder
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch c {
		case '\'':
			raw := p.src[start:p.pos]
			p.pos++
			return argument{kind: literalArgument, value: value.String(), raw: raw, quoted: true}, nil
		case '\\':
			if p.pos+1 >= len(p.src) || !isEscapable(p.src[p.pos+1]) {
				return argument{}, p.fail(`invalid escape sequence in string literal (only \' \{ \} \\ are allowed)`)
			}
			value.WriteByte(p.src[p.pos+1])
			p.pos += 2
		default:
			value.WriteByte(c)
			p.pos++
		}
	}
	return argument{}, p.fail("unterminated string literal")
}

// parseNumber parses a JSON number: an integer that fits int64 becomes an int64, any other
// number a float64, as the emulator represents JSON numbers.
func (p *parser) parseNumber() (argument, error) {
	start := p.pos
	if p.src[p.pos] == '-' {
		p.pos++
	}
	if p.digits() == 0 {
		return argument{}, p.fail("invalid number")
	}
	integral := true
	if p.pos < len(p.src) && p.src[p.pos] == '.' {
		integral = false
		p.pos++
		if p.digits() == 0 {
			return argument{}, p.fail("invalid number")
		}
	}
	if p.pos < len(p.src) && (p.src[p.pos] == 'e' || p.src[p.pos] == 'E') {
		integral = false
		p.pos++
		if p.pos < len(p.src) && (p.src[p.pos] == '+' || p.src[p.pos] == '-') {
			p.pos++
		}
		if p.digits() == 0 {
			return argument{}, p.fail("invalid number")
		}
	}
	text := p.src[start:p.pos]
	if integral {
		if n, err := strconv.ParseInt(text, 10, 64); err == nil {
			return argument{kind: literalArgument, value: n}, nil
		}
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		p.pos = start
		return argument{}, p.fail("number out of range")
	}
	return argument{kind: literalArgument, value: f}, nil
}

// digits skips a run of decimal digits and returns its length.
func (p *parser) digits() int {
	start := p.pos
	for p.pos < len(p.src) && isDigit(p.src[p.pos]) {
		p.pos++
	}
	return p.pos - start
}

// parsePath parses a JSONPath argument: it runs to the next "," or ")" outside brackets,
// parentheses and quotes, and must be a valid JSONPath.
func (p *parser) parsePath() (argument, error) {
	start := p.pos
	depth := 0
	var quote byte
	for ; p.pos < len(p.src); p.pos++ {
		c := p.src[p.pos]
		if quote != 0 {
			if c == quote {
				quote = 0
			}
			continue
		}
		if depth == 0 && (c == ',' || c == ')' || isSpace(c)) {
			break
		}
		switch c {
		case '[', '(':
			depth++
		case ']', ')':
			depth--
		case '\'', '"':
			if depth > 0 {
				quote = c
			}
		}
	}
	path := p.src[start:p.pos]
	if _, err := jsonpath.Compile(path); err != nil {
		p.pos = start
		return argument{}, p.fail("invalid JSONPath " + strconv.Quote(path))
	}
	return argument{kind: pathArgument, path: path}, nil
}

// parseKeyword parses true, false or null.
func (p *parser) parseKeyword() (argument, error) {
	word := p.src[p.pos : p.pos+identifierLength(p.src[p.pos:])]
	var value any
	switch word {
	case "true":
		value = true
	case "false":
		value = false
	case "null":
		value = nil
	default:
		return argument{}, p.fail("unexpected argument")
	}
	p.pos += len(word)
	return argument{kind: literalArgument, value: value}, nil
}

// contextPathAsInputPath rewrites a "$$..." context object path to the "$..." form, as AWS
// quotes it in causes and as the JSONPath library reads it; other paths are returned unchanged.
func contextPathAsInputPath(path string) string {
	if rest, ok := strings.CutPrefix(path, "$$"); ok {
		return "$" + rest
	}
	return path
}

func identifierLength(s string) int {
	n := 0
	for n < len(s) && (isDigit(s[n]) || 'a' <= s[n] && s[n] <= 'z' || 'A' <= s[n] && s[n] <= 'Z' || s[n] == '_') {
		n++
	}
	return n
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isEscapable(c byte) bool { return c == '\'' || c == '{' || c == '}' || c == '\\' }
