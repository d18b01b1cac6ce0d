package asl

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// parser reads the members of one JSON object, remembering which it used so that finish can
// report the unknown ones. Errors accumulate in err.
type parser struct {
	scope string // state path for error messages
	obj   []member
	used  map[string]bool
	err   error
}

func (p *parser) fail(field, problem string) {
	p.err = errors.Join(p.err, &DefinitionError{State: p.scope, Field: field, Problem: problem, Kind: ErrInvalidDefinition})
}

// get returns a member's raw value and marks it used.
func (p *parser) get(key string) (json.RawMessage, bool) {
	for _, m := range p.obj {
		if m.key == key {
			if p.used == nil {
				p.used = map[string]bool{}
			}
			p.used[key] = true
			return m.raw, true
		}
	}
	return nil, false
}

// finish reports the members nobody asked for.
func (p *parser) finish() {
	for _, m := range p.obj {
		if p.used[m.key] {
			continue
		}
		p.fail(m.key, "unknown field")
	}
}

func (p *parser) str(key string, dst *string) {
	raw, ok := p.get(key)
	if !ok {
		return
	}
	if err := json.Unmarshal(raw, dst); err != nil || describeJSON(raw) != "a string" {
		p.fail(key, "must be a string, got "+describeJSON(raw))
	}
}

func (p *parser) boolean(key string, dst *bool) {
	raw, ok := p.get(key)
	if !ok {
		return
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		p.fail(key, "must be a boolean, got "+describeJSON(raw))
	}
}

func (p *parser) intPtr(key string, dst **int) {
	raw, ok := p.get(key)
	if !ok {
		return
	}
	var v int
	if err := json.Unmarshal(raw, &v); err != nil {
		p.fail(key, "must be an integer, got "+strings.TrimSpace(string(raw)))
		return
	}
	*dst = &v
}

// intOrExpression reads a field that is an integer or, in a JSONata state, a "{% %}" string.
func (p *parser) intOrExpression(key string, num **int, expr *string) {
	raw, ok := p.get(key)
	if !ok {
		return
	}
	if describeJSON(raw) == "a string" {
		_ = json.Unmarshal(raw, expr)
		return
	}
	var v int
	if err := json.Unmarshal(raw, &v); err != nil {
		p.fail(key, "must be an integer or a JSONata expression, got "+strings.TrimSpace(string(raw)))
		return
	}
	*num = &v
}

// queryLanguage checks a QueryLanguage value.
func (p *parser) queryLanguage(ql string) {
	if ql != "" && ql != QueryLanguageJSONPath && ql != QueryLanguageJSONata {
		p.fail("QueryLanguage", fmt.Sprintf("must be %q or %q, got %q", QueryLanguageJSONPath, QueryLanguageJSONata, ql))
	}
}

func (p *parser) floatPtr(key string, dst **float64) {
	raw, ok := p.get(key)
	if !ok {
		return
	}
	var v float64
	if err := json.Unmarshal(raw, &v); err != nil {
		p.fail(key, "must be a number, got "+describeJSON(raw))
		return
	}
	*dst = &v
}

// path reads a field that is a path or null.
func (p *parser) path(key string) *Path {
	raw, ok := p.get(key)
	if !ok {
		return nil
	}
	switch describeJSON(raw) {
	case "null":
		return NullPath()
	case "a string":
		var s string
		_ = json.Unmarshal(raw, &s)
		return P(s)
	}
	p.fail(key, "must be a path string or null, got "+describeJSON(raw))
	return nil
}

// value reads a field holding any JSON value (a payload template, a Result).
func (p *parser) value(key string) any {
	raw, ok := p.get(key)
	if !ok {
		return nil
	}
	v, err := DecodeValue(raw)
	if err != nil {
		p.fail(key, err.Error())
	}
	return v
}

// object reads a field that must be a JSON object and returns a parser over it.
func (p *parser) object(key, scope string) (*parser, bool) {
	raw, ok := p.get(key)
	if !ok {
		return nil, false
	}
	members, err := decodeObject(raw)
	if err != nil {
		p.fail(key, "must be an object: "+err.Error())
		return nil, false
	}
	return &parser{scope: scope, obj: members}, true
}

// array reads a field that must be a JSON array and returns its elements.
func (p *parser) array(key string) ([]json.RawMessage, bool) {
	raw, ok := p.get(key)
	if !ok {
		return nil, false
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil || describeJSON(raw) != "an array" {
		p.fail(key, "must be an array, got "+describeJSON(raw))
		return nil, false
	}
	return elems, true
}

// child parses the element raw of field as an object, merging its errors into p.
func (p *parser) child(field string, raw json.RawMessage, scope string, read func(c *parser)) {
	members, err := decodeObject(raw)
	if err != nil {
		p.fail(field, "must be an object: "+err.Error())
		return
	}
	c := &parser{scope: scope, obj: members}
	read(c)
	c.finish()
	p.err = errors.Join(p.err, c.err)
}

// states reads the "States" object of a graph whose path is scope.
func (p *parser) states(key, scope string) States {
	obj, ok := p.object(key, scope)
	if !ok {
		return nil
	}
	out := make(States, 0, len(obj.obj))
	for _, m := range obj.obj {
		statePath := join(scope, m.key)
		var st State
		p.child(key, m.raw, statePath, func(c *parser) { st = c.state() })
		if st != nil {
			out = append(out, NamedState{Name: m.key, State: st})
		}
	}
	return out
}

// graph reads a Parallel branch or a Map processor.
func (p *parser) graph(c *parser, g *Graph) {
	c.str("Comment", &g.Comment)
	c.str("StartAt", &g.StartAt)
	g.States = c.states("States", c.scope)
}

func join(scope, name string) string {
	if scope == "" {
		return name
	}
	return scope + "/" + name
}

// state reads one state object.
func (p *parser) state() State {
	var typ string
	p.str("Type", &typ)
	var common Common
	p.str("QueryLanguage", &common.QueryLanguage)
	p.queryLanguage(common.QueryLanguage)
	p.str("Comment", &common.Comment)
	common.Assign = p.value("Assign")
	common.Output = p.value("Output")
	if typ != string(TypeFail) {
		common.InputPath = p.path("InputPath")
		common.OutputPath = p.path("OutputPath")
	}
	switch StateType(typ) {
	case TypePass:
		s := &Pass{Common: common, Transition: p.transition()}
		s.Parameters = p.value("Parameters")
		s.Result = p.value("Result")
		s.ResultPath = p.path("ResultPath")
		return s
	case TypeTask:
		s := &Task{Common: common, Transition: p.transition()}
		p.str("Resource", &s.Resource)
		s.Parameters = p.value("Parameters")
		s.Arguments = p.value("Arguments")
		s.ResultSelector = p.value("ResultSelector")
		s.ResultPath = p.path("ResultPath")
		p.intOrExpression("TimeoutSeconds", &s.TimeoutSeconds, &s.TimeoutSecondsExpression)
		p.str("TimeoutSecondsPath", &s.TimeoutSecondsPath)
		p.intOrExpression("HeartbeatSeconds", &s.HeartbeatSeconds, &s.HeartbeatSecondsExpression)
		p.str("HeartbeatSecondsPath", &s.HeartbeatSecondsPath)
		s.Credentials = p.value("Credentials")
		s.Retry, s.Catch = p.retry(), p.catch()
		return s
	case TypeChoice:
		s := &Choice{Common: common}
		p.str("Default", &s.Default)
		elems, _ := p.array("Choices")
		for i, raw := range elems {
			var r *ChoiceRule
			p.child(fmt.Sprintf("Choices[%d]", i), raw, p.scope, func(c *parser) { r = c.choiceRule(true) })
			s.Choices = append(s.Choices, r)
		}
		return s
	case TypeWait:
		s := &Wait{Common: common, Transition: p.transition()}
		p.intOrExpression("Seconds", &s.Seconds, &s.SecondsExpression)
		p.str("Timestamp", &s.Timestamp)
		p.str("SecondsPath", &s.SecondsPath)
		p.str("TimestampPath", &s.TimestampPath)
		return s
	case TypeSucceed:
		return &Succeed{Common: common}
	case TypeFail:
		s := &Fail{Common: common}
		p.str("Error", &s.Error)
		p.str("ErrorPath", &s.ErrorPath)
		p.str("Cause", &s.Cause)
		p.str("CausePath", &s.CausePath)
		return s
	case TypeParallel:
		s := &Parallel{Common: common, Transition: p.transition()}
		elems, _ := p.array("Branches")
		for i, raw := range elems {
			g := &Graph{}
			p.child(fmt.Sprintf("Branches[%d]", i), raw, fmt.Sprintf("%s/Branches[%d]", p.scope, i), func(c *parser) { p.graph(c, g) })
			s.Branches = append(s.Branches, g)
		}
		s.Parameters = p.value("Parameters")
		s.Arguments = p.value("Arguments")
		s.ResultSelector = p.value("ResultSelector")
		s.ResultPath = p.path("ResultPath")
		s.Retry, s.Catch = p.retry(), p.catch()
		return s
	case TypeMap:
		return p.mapState(common)
	case "":
		p.fail("Type", "is required")
	default:
		p.fail("Type", fmt.Sprintf("unknown state type %q", typ))
	}
	return nil
}

func (p *parser) mapState(common Common) *Map {
	s := &Map{Common: common, Transition: p.transition()}
	s.ItemsPath = p.path("ItemsPath")
	s.Items = p.value("Items")
	s.ItemSelector = p.value("ItemSelector")
	s.Parameters = p.value("Parameters")
	for _, key := range []string{"ItemProcessor", "Iterator"} {
		raw, ok := p.get(key)
		if !ok {
			continue
		}
		proc := &ItemProcessor{}
		p.child(key, raw, p.scope+"/"+key, func(c *parser) {
			if cfg, ok := c.object("ProcessorConfig", c.scope); ok {
				proc.ProcessorConfig = &ProcessorConfig{}
				cfg.str("Mode", &proc.ProcessorConfig.Mode)
				cfg.str("ExecutionType", &proc.ProcessorConfig.ExecutionType)
				cfg.finish()
				c.err = errors.Join(c.err, cfg.err)
			}
			p.graph(c, &proc.Graph)
		})
		if key == "ItemProcessor" {
			s.ItemProcessor = proc
		} else {
			s.Iterator = proc
		}
	}
	p.intOrExpression("MaxConcurrency", &s.MaxConcurrency, &s.MaxConcurrencyExpression)
	p.str("MaxConcurrencyPath", &s.MaxConcurrencyPath)
	s.ItemReader = p.value("ItemReader")
	s.ItemBatcher = p.value("ItemBatcher")
	s.ResultWriter = p.value("ResultWriter")
	s.ToleratedFailurePercentage = p.value("ToleratedFailurePercentage")
	p.str("ToleratedFailurePercentagePath", &s.ToleratedFailurePercentagePath)
	s.ToleratedFailureCount = p.value("ToleratedFailureCount")
	p.str("ToleratedFailureCountPath", &s.ToleratedFailureCountPath)
	p.str("Label", &s.Label)
	s.ResultSelector = p.value("ResultSelector")
	s.ResultPath = p.path("ResultPath")
	s.Retry, s.Catch = p.retry(), p.catch()
	return s
}

func (p *parser) transition() Transition {
	var t Transition
	p.str("Next", &t.Next)
	p.boolean("End", &t.End)
	return t
}

// strings reads a field that must be an array of strings.
func (p *parser) strings(key string) []string {
	var out []string
	raw, ok := p.get(key)
	if ok && json.Unmarshal(raw, &out) != nil {
		p.fail(key, "must be an array of strings, got "+describeJSON(raw))
	}
	return out
}

func (p *parser) retry() []*Retrier {
	elems, _ := p.array("Retry")
	var out []*Retrier
	for i, raw := range elems {
		r := &Retrier{}
		p.child(fmt.Sprintf("Retry[%d]", i), raw, p.scope, func(c *parser) {
			r.ErrorEquals = c.strings("ErrorEquals")
			c.intPtr("IntervalSeconds", &r.IntervalSeconds)
			c.intPtr("MaxAttempts", &r.MaxAttempts)
			c.floatPtr("BackoffRate", &r.BackoffRate)
			c.intPtr("MaxDelaySeconds", &r.MaxDelaySeconds)
			c.str("JitterStrategy", &r.JitterStrategy)
			c.str("Comment", &r.Comment)
		})
		out = append(out, r)
	}
	return out
}

func (p *parser) catch() []*Catcher {
	elems, _ := p.array("Catch")
	var out []*Catcher
	for i, raw := range elems {
		k := &Catcher{}
		p.child(fmt.Sprintf("Catch[%d]", i), raw, p.scope, func(c *parser) {
			k.ErrorEquals = c.strings("ErrorEquals")
			c.str("Next", &k.Next)
			k.ResultPath = c.path("ResultPath")
			k.Assign = c.value("Assign")
			k.Output = c.value("Output")
			c.str("Comment", &k.Comment)
		})
		out = append(out, k)
	}
	return out
}

// choiceRule reads a rule; top-level rules may have Next.
func (p *parser) choiceRule(top bool) *ChoiceRule {
	r := &ChoiceRule{}
	p.str("Variable", &r.Variable)
	p.str("Comment", &r.Comment)
	if raw, ok := p.get("Condition"); ok {
		switch describeJSON(raw) {
		case "a string", "a boolean":
			_ = json.Unmarshal(raw, &r.Condition)
		default:
			p.fail("Condition", "must be a JSONata expression string or a boolean, got "+describeJSON(raw))
		}
	}
	if top {
		p.str("Next", &r.Next)
		r.Assign = p.value("Assign")
		r.Output = p.value("Output")
	}
	for _, op := range []string{"And", "Or"} {
		elems, ok := p.array(op)
		if !ok {
			continue
		}
		rules := make([]*ChoiceRule, 0, len(elems))
		for i, raw := range elems {
			var sub *ChoiceRule
			p.child(fmt.Sprintf("%s[%d]", op, i), raw, p.scope, func(c *parser) { sub = c.choiceRule(false) })
			rules = append(rules, sub)
		}
		if op == "And" {
			r.And = rules
		} else {
			r.Or = rules
		}
	}
	if raw, ok := p.get("Not"); ok {
		p.child("Not", raw, p.scope, func(c *parser) { r.Not = c.choiceRule(false) })
	}
	for _, m := range p.obj {
		if !Operator(m.key).IsComparison() {
			continue
		}
		if r.Operator != "" {
			p.fail(m.key, fmt.Sprintf("a rule has one comparison, found %s and %s", r.Operator, m.key))
			continue
		}
		r.Operator = Operator(m.key)
		r.Value = p.value(m.key)
	}
	return r
}
