package emulator

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/emulator/jsonpath"
	"github.com/turnstile-sfn/turnstile/emulator/jsonvalue"
)

// choiceRule is a compiled Choice rule: a comparison or a boolean combination of rules.
type choiceRule struct {
	variable  *jsonpath.Path
	op        asl.Operator
	base      string // the operator without its "Path" suffix
	value     any
	valuePath *jsonpath.Path
	pattern   []globPart // StringMatches
	and, or   []*choiceRule
	not       *choiceRule
	next      string
	condition any         // a JSONata rule's Condition: a template (*jsonataExpr or a boolean)
	assign    *assignSpec // a top-level rule's Assign
	output    any         // a JSONata rule's Output template
}

// rule compiles a Choice rule.
func (c *compiler) rule(scope, field string, r *asl.ChoiceRule) *choiceRule {
	out := &choiceRule{op: r.Operator, value: r.Value, next: r.Next}
	for i, sub := range r.And {
		out.and = append(out.and, c.rule(scope, fmt.Sprintf("%s.And[%d]", field, i), sub))
	}
	for i, sub := range r.Or {
		out.or = append(out.or, c.rule(scope, fmt.Sprintf("%s.Or[%d]", field, i), sub))
	}
	if r.Not != nil {
		out.not = c.rule(scope, field+".Not", r.Not)
	}
	if r.Condition != nil {
		out.condition = c.jsonataTemplate(scope, field+".Condition", jsonvalue.FromGeneric(r.Condition))
		return out
	}
	if r.Operator == "" {
		return out
	}
	out.variable = c.path(scope, field+".Variable", r.Variable)
	out.base = strings.TrimSuffix(string(r.Operator), "Path")
	switch {
	case r.Operator.IsPathVariant() && !strings.HasPrefix(string(r.Operator), "Is"):
		s, _ := r.Value.(string)
		out.valuePath = c.path(scope, field+"."+string(r.Operator), s)
	case r.Operator == "StringMatches":
		s, _ := r.Value.(string)
		out.pattern = compileGlob(s)
	case strings.HasPrefix(out.base, "Timestamp"):
		s, _ := r.Value.(string)
		if _, err := parseTimestamp(s); err != nil {
			c.fail(asl.ErrInvalidDefinition, scope, field+"."+string(r.Operator), err.Error())
		}
	}
	return out
}

// choice runs a Choice state: the first matching rule names the next state, else Default.
func (r *runner) choice(s *stateRun, input any) (any, string, error) {
	effective, err := r.applyInputPath(s, input)
	if err != nil {
		return nil, "", err
	}
	next := s.node.defaultNext
	var matched *choiceRule
	for i, rule := range s.node.choices {
		var ok bool
		if rule.condition != nil {
			ok, err = r.jsonataCondition(s, rule, input, i)
		} else {
			ok, err = r.evaluateRule(s, rule, effective)
		}
		if err != nil {
			return nil, "", err
		}
		if ok {
			next, matched = rule.next, rule
			break
		}
	}
	if next == "" {
		return nil, "", &failure{name: asl.ErrorNoChoiceMatched,
			cause: fmt.Sprintf("No choice rule matched and no Default state is set in the state '%s'", s.node.name)}
	}
	out, err := r.choiceOutput(s, matched, input, effective)
	return out, next, err
}

// choiceOutput evaluates the Assign and Output of the matched rule (matched is nil when Default
// applies), else those of the state.
func (r *runner) choiceOutput(s *stateRun, matched *choiceRule, input, effective any) (any, error) {
	assign := s.node.assign
	var output any
	if s.node.jsonata != nil {
		output = s.node.jsonata.output
	}
	if matched != nil && matched.assign != nil {
		assign = matched.assign
	}
	if matched != nil && matched.output != nil {
		output = matched.output
	}
	if s.node.jsonata == nil {
		if err := r.evaluateAssign(s, assign, nil, effective); err != nil {
			return nil, err
		}
		return r.applyOutputPath(s, effective)
	}
	env := r.newJSONataEnv(s, input)
	if err := r.evaluateAssign(s, assign, env, nil); err != nil {
		return nil, err
	}
	if output == nil {
		return input, nil
	}
	return env.evaluate(output, "Output")
}

// evaluateRule evaluates a rule against the effective input.
func (r *runner) evaluateRule(s *stateRun, rule *choiceRule, input any) (bool, error) {
	switch {
	case rule.and != nil:
		for _, sub := range rule.and {
			if ok, err := r.evaluateRule(s, sub, input); err != nil || !ok {
				return false, err
			}
		}
		return true, nil
	case rule.or != nil:
		for _, sub := range rule.or {
			if ok, err := r.evaluateRule(s, sub, input); err != nil || ok {
				return ok, err
			}
		}
		return false, nil
	case rule.not != nil:
		ok, err := r.evaluateRule(s, rule.not, input)
		return !ok, err
	}
	lookup := func(p *jsonpath.Path) (any, bool) {
		return p.Get(input, r.pathRoot(s, p))
	}
	v, present := lookup(rule.variable)
	if rule.op == "IsPresent" {
		return present == (rule.value == true), nil
	}
	if strings.HasPrefix(string(rule.op), "Is") {
		return present && isType(rule.op, v) == (rule.value == true), nil
	}
	if !present {
		return false, invalidConditionPath(s, rule.variable)
	}
	want := rule.value
	if rule.valuePath != nil {
		var ok bool
		if want, ok = lookup(rule.valuePath); !ok {
			return false, invalidConditionPath(s, rule.valuePath)
		}
	}
	return compare(rule, v, want), nil
}

// invalidConditionPath is the States.Runtime failure of a rule whose path selects nothing.
func invalidConditionPath(s *stateRun, p *jsonpath.Path) error {
	return s.runtimeError(fmt.Sprintf("Invalid path '%s': The choice state's condition path references an invalid value.", p.Text))
}

// isType evaluates the Is* operators but IsPresent.
func isType(op asl.Operator, v any) bool {
	switch op {
	case "IsNull":
		return v == nil
	case "IsNumeric":
		_, ok := toFloat(v)
		return ok
	case "IsString":
		_, ok := v.(string)
		return ok
	case "IsBoolean":
		_, ok := v.(bool)
		return ok
	case "IsTimestamp":
		s, ok := v.(string)
		if !ok {
			return false
		}
		_, err := parseTimestamp(s)
		return err == nil
	}
	return false
}

// compare applies a comparison operator; values of the wrong type never match.
func compare(rule *choiceRule, v, want any) bool {
	op := rule.base
	switch {
	case op == "StringMatches":
		s, ok := v.(string)
		return ok && matchGlob(rule.pattern, s)
	case strings.HasPrefix(op, "String"):
		a, ok1 := v.(string)
		b, ok2 := want.(string)
		return ok1 && ok2 && ordered(op, compareUTF16(a, b))
	case strings.HasPrefix(op, "Numeric"):
		c, ok := compareNumbers(v, want)
		return ok && ordered(op, c)
	case op == "BooleanEquals":
		a, ok1 := v.(bool)
		b, ok2 := want.(bool)
		return ok1 && ok2 && a == b
	case strings.HasPrefix(op, "Timestamp"):
		a, ok1 := timestampOf(v)
		b, ok2 := timestampOf(want)
		return ok1 && ok2 && ordered(op, a.Compare(b))
	}
	return false
}

func timestampOf(v any) (time.Time, bool) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, false
	}
	t, err := parseTimestamp(s)
	return t, err == nil
}

// ordered tells whether a three-way comparison result satisfies the operator.
func ordered(op string, c int) bool {
	switch {
	case strings.HasSuffix(op, "LessThanEquals"):
		return c <= 0
	case strings.HasSuffix(op, "GreaterThanEquals"):
		return c >= 0
	case strings.HasSuffix(op, "LessThan"):
		return c < 0
	case strings.HasSuffix(op, "GreaterThan"):
		return c > 0
	default: // Equals
		return c == 0
	}
}

// compareNumbers compares two JSON numbers, exactly when both are integers.
func compareNumbers(a, b any) (int, bool) {
	ia, okA := a.(int64)
	ib, okB := b.(int64)
	if okA && okB {
		switch {
		case ia < ib:
			return -1, true
		case ia > ib:
			return 1, true
		}
		return 0, true
	}
	fa, okA := toFloat(a)
	fb, okB := toFloat(b)
	if !okA || !okB {
		return 0, false
	}
	switch {
	case fa < fb:
		return -1, true
	case fa > fb:
		return 1, true
	}
	return 0, true
}

// compareUTF16 compares strings as Java's String.compareTo does: by UTF-16 code units.
func compareUTF16(a, b string) int {
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return int(ua[i]) - int(ub[i])
		}
	}
	return len(ua) - len(ub)
}

// globPart is a literal run of a StringMatches pattern, or a wildcard.
type globPart struct {
	literal  string
	wildcard bool
}

// compileGlob parses a StringMatches pattern: "*" matches any run of characters, "\*" is a
// literal star and "\\" a literal backslash.
func compileGlob(pattern string) []globPart {
	var parts []globPart
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			parts = append(parts, globPart{literal: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; {
		case c == '\\' && i+1 < len(pattern) && (pattern[i+1] == '*' || pattern[i+1] == '\\'):
			lit.WriteByte(pattern[i+1])
			i++
		case c == '*':
			flush()
			parts = append(parts, globPart{wildcard: true})
		default:
			lit.WriteByte(c)
		}
	}
	flush()
	return parts
}

// matchGlob matches a string against a compiled pattern.
func matchGlob(parts []globPart, s string) bool {
	if len(parts) == 0 {
		return s == ""
	}
	p := parts[0]
	if !p.wildcard {
		rest, ok := strings.CutPrefix(s, p.literal)
		return ok && matchGlob(parts[1:], rest)
	}
	for i := 0; i <= len(s); i++ {
		if matchGlob(parts[1:], s[i:]) {
			return true
		}
	}
	return false
}
