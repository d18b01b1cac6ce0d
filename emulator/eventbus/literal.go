package eventbus

// literalKind is the JSON type of an exact value in a pattern.
type literalKind int

const (
	kindString literalKind = iota
	kindNumber
	kindBool
	kindNull
)

// literal is an exact value of a pattern. Numbers compare numerically (5 equals 5.0 and
// 5e0), everything else by type and value: "5" never equals 5, and "" never equals null.
type literal struct {
	kind   literalKind
	text   string
	number float64
	flag   bool
}

// literalOf reads a JSON scalar as a literal.
func literalOf(v any) (literal, bool) {
	switch t := v.(type) {
	case nil:
		return literal{kind: kindNull}, true
	case string:
		return literal{kind: kindString, text: t}, true
	case bool:
		return literal{kind: kindBool, flag: t}, true
	}
	if n, ok := toNumber(v); ok {
		return literal{kind: kindNumber, number: n}, true
	}
	return literal{}, false
}

// equals reports whether an event value is this literal.
func (l literal) equals(v any) bool {
	other, ok := literalOf(v)
	if !ok || other.kind != l.kind {
		return false
	}
	switch l.kind {
	case kindString:
		return other.text == l.text
	case kindNumber:
		return other.number == l.number
	case kindBool:
		return other.flag == l.flag
	}
	return true
}
