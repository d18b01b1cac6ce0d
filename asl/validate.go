package asl

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

// Validate checks the rules of the States Language that the types alone cannot: StartAt and every
// Next, Default and Catch target name a state of the same graph; every state is reachable; each
// non-terminal state has exactly one of Next and End; retriers, catchers, choice rules, Wait and
// Fail fields are well formed; payload templates' ".$" fields hold paths or intrinsic calls. It
// returns every problem found, each a *DefinitionError wrapping ErrInvalidDefinition, joined with
// errors.Join; nil means the definition is valid.
func (m *StateMachine) Validate() error {
	v := &validator{queryLanguage: m.QueryLanguage}
	if m.Version != "" && m.Version != "1.0" {
		v.fail("", "Version", fmt.Sprintf("must be \"1.0\", got %q", m.Version))
	}
	if m.TimeoutSeconds != nil && *m.TimeoutSeconds <= 0 {
		v.fail("", "TimeoutSeconds", fmt.Sprintf("must be > 0, got %d", *m.TimeoutSeconds))
	}
	v.graph("", m.Graph())
	return v.err
}

// Validate checks one graph (and the graphs nested in it) as StateMachine.Validate does.
func (g *Graph) Validate() error {
	v := &validator{}
	v.graph("", g)
	return v.err
}

type validator struct {
	err error
	// queryLanguage is the machine's query language, the default of every state.
	queryLanguage string
}

func (v *validator) fail(state, field, problem string) {
	v.err = errors.Join(v.err, &DefinitionError{State: state, Field: field, Problem: problem, Kind: ErrInvalidDefinition})
}

// graph validates a graph whose states' paths start with scope.
func (v *validator) graph(scope string, g *Graph) {
	if len(g.States) == 0 {
		v.fail(scope, "States", "must hold at least one state")
		return
	}
	names := map[string]bool{}
	for _, n := range g.States {
		if names[n.Name] {
			v.fail(join(scope, n.Name), "", "duplicate state name")
		}
		names[n.Name] = true
		if n.State == nil {
			v.fail(join(scope, n.Name), "", "has no state")
		}
	}
	switch {
	case g.StartAt == "":
		v.fail(scope, "StartAt", "is required")
	case !names[g.StartAt]:
		v.fail(scope, "StartAt", fmt.Sprintf("names no state of this graph: %q", g.StartAt))
	}
	target := func(state, field, name string) {
		if !names[name] {
			v.fail(state, field, fmt.Sprintf("names no state of this graph: %q", name))
		}
	}
	for _, n := range g.States {
		if n.State != nil {
			v.state(join(scope, n.Name), n.State, target)
		}
	}
	for _, name := range unreachable(g) {
		v.fail(join(scope, name), "", "is not reachable from StartAt")
	}
}

// unreachable lists, in graph order, the states no path from StartAt leads to.
func unreachable(g *Graph) []string {
	seen := map[string]bool{}
	queue := []string{g.StartAt}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if seen[name] {
			continue
		}
		seen[name] = true
		if s := g.States.Get(name); s != nil {
			queue = append(queue, Successors(s)...)
		}
	}
	var out []string
	for _, n := range g.States {
		if !seen[n.Name] {
			out = append(out, n.Name)
		}
	}
	return out
}

// Successors returns the names of the states s may go to next: Next, a Choice's rules and
// Default, and the Catch targets.
func Successors(s State) []string {
	var out []string
	add := func(name string) {
		if name != "" {
			out = append(out, name)
		}
	}
	switch x := s.(type) {
	case *Choice:
		for _, r := range x.Choices {
			if r != nil {
				add(r.Next)
			}
		}
		add(x.Default)
		return out
	case *Pass:
		add(x.Next)
	case *Wait:
		add(x.Next)
	case *Task:
		add(x.Next)
		for _, c := range x.Catch {
			add(c.Next)
		}
	case *Parallel:
		add(x.Next)
		for _, c := range x.Catch {
			add(c.Next)
		}
	case *Map:
		add(x.Next)
		for _, c := range x.Catch {
			add(c.Next)
		}
	}
	return out
}

func (v *validator) transition(state string, t *Transition, target func(state, field, name string)) {
	switch {
	case t.Next != "" && t.End:
		v.fail(state, "Next", "a state has either Next or End, not both")
	case t.Next == "" && !t.End:
		v.fail(state, "Next", "a non-terminal state needs Next or End: true")
	case t.Next != "":
		target(state, "Next", t.Next)
	}
}

func (v *validator) state(name string, s State, target func(state, field, name string)) {
	c := s.Base()
	v.path(name, "InputPath", c.InputPath)
	v.path(name, "OutputPath", c.OutputPath)
	v.queryLanguageFields(name, s)
	switch x := s.(type) {
	case *Pass:
		v.transition(name, &x.Transition, target)
		v.template(name, "Parameters", x.Parameters)
		v.resultPath(name, "ResultPath", x.ResultPath)
	case *Task:
		v.transition(name, &x.Transition, target)
		v.task(name, x)
		v.retryCatch(name, x.Retry, x.Catch, target)
	case *Choice:
		v.choice(name, x, target)
	case *Wait:
		v.transition(name, &x.Transition, target)
		v.wait(name, x)
	case *Fail:
		v.exclusive(name, "Error", x.Error != "", "ErrorPath", x.ErrorPath != "")
		v.exclusive(name, "Cause", x.Cause != "", "CausePath", x.CausePath != "")
	case *Parallel:
		v.transition(name, &x.Transition, target)
		if len(x.Branches) == 0 {
			v.fail(name, "Branches", "must hold at least one branch")
		}
		for i, b := range x.Branches {
			v.graph(fmt.Sprintf("%s/Branches[%d]", name, i), b)
		}
		v.template(name, "Parameters", x.Parameters)
		v.template(name, "ResultSelector", x.ResultSelector)
		v.resultPath(name, "ResultPath", x.ResultPath)
		v.retryCatch(name, x.Retry, x.Catch, target)
	case *Map:
		v.transition(name, &x.Transition, target)
		v.mapState(name, x)
		v.retryCatch(name, x.Retry, x.Catch, target)
	}
}

func (v *validator) exclusive(state, a string, hasA bool, b string, hasB bool) {
	if hasA && hasB {
		v.fail(state, b, fmt.Sprintf("%s and %s are mutually exclusive", a, b))
	}
}

func (v *validator) task(name string, t *Task) {
	if t.Resource == "" {
		v.fail(name, "Resource", "is required")
	}
	v.template(name, "Parameters", t.Parameters)
	v.template(name, "ResultSelector", t.ResultSelector)
	v.resultPath(name, "ResultPath", t.ResultPath)
	v.exclusive(name, "TimeoutSeconds", t.TimeoutSeconds != nil, "TimeoutSecondsPath", t.TimeoutSecondsPath != "")
	v.exclusive(name, "HeartbeatSeconds", t.HeartbeatSeconds != nil, "HeartbeatSecondsPath", t.HeartbeatSecondsPath != "")
	if t.TimeoutSeconds != nil && *t.TimeoutSeconds <= 0 {
		v.fail(name, "TimeoutSeconds", fmt.Sprintf("must be > 0, got %d", *t.TimeoutSeconds))
	}
	if t.HeartbeatSeconds != nil {
		if *t.HeartbeatSeconds <= 0 {
			v.fail(name, "HeartbeatSeconds", fmt.Sprintf("must be > 0, got %d", *t.HeartbeatSeconds))
		}
		if t.TimeoutSeconds != nil && *t.HeartbeatSeconds >= *t.TimeoutSeconds {
			v.fail(name, "HeartbeatSeconds", fmt.Sprintf("must be smaller than TimeoutSeconds (%d), got %d", *t.TimeoutSeconds, *t.HeartbeatSeconds))
		}
	}
}

func (v *validator) wait(name string, w *Wait) {
	set := 0
	for _, on := range []bool{w.Seconds != nil || w.SecondsExpression != "", w.Timestamp != "", w.SecondsPath != "", w.TimestampPath != ""} {
		if on {
			set++
		}
	}
	if set != 1 {
		v.fail(name, "Seconds", fmt.Sprintf("exactly one of Seconds, Timestamp, SecondsPath and TimestampPath is required, got %d", set))
	}
	if w.SecondsExpression != "" && !IsExpression(w.SecondsExpression) {
		v.fail(name, "Seconds", fmt.Sprintf("must be an integer or a JSONata expression, got %q", w.SecondsExpression))
	}
	if w.Seconds != nil && *w.Seconds < 0 {
		v.fail(name, "Seconds", fmt.Sprintf("must be >= 0, got %d", *w.Seconds))
	}
	if w.Timestamp != "" && !IsExpression(w.Timestamp) {
		if _, err := time.Parse(time.RFC3339Nano, w.Timestamp); err != nil {
			v.fail(name, "Timestamp", fmt.Sprintf("must be an RFC 3339 timestamp, got %q", w.Timestamp))
		}
	}
}

func (v *validator) mapState(name string, m *Map) {
	v.exclusive(name, "ItemProcessor", m.ItemProcessor != nil, "Iterator", m.Iterator != nil)
	v.exclusive(name, "ItemSelector", m.ItemSelector != nil, "Parameters", m.Parameters != nil)
	v.exclusive(name, "MaxConcurrency", m.MaxConcurrency != nil, "MaxConcurrencyPath", m.MaxConcurrencyPath != "")
	if p := m.Processor(); p == nil {
		v.fail(name, "ItemProcessor", "is required")
	} else {
		v.graph(name+"/ItemProcessor", &p.Graph)
	}
	if m.MaxConcurrency != nil && *m.MaxConcurrency < 0 {
		v.fail(name, "MaxConcurrency", fmt.Sprintf("must be >= 0, got %d", *m.MaxConcurrency))
	}
	v.exclusive(name, "ToleratedFailureCount", m.ToleratedFailureCount != nil, "ToleratedFailureCountPath", m.ToleratedFailureCountPath != "")
	v.exclusive(name, "ToleratedFailurePercentage", m.ToleratedFailurePercentage != nil, "ToleratedFailurePercentagePath", m.ToleratedFailurePercentagePath != "")
	v.threshold(name, "ToleratedFailureCount", m.ToleratedFailureCount, "a non-negative integer", func(n float64) bool {
		return n >= 0 && n == math.Trunc(n)
	})
	v.threshold(name, "ToleratedFailurePercentage", m.ToleratedFailurePercentage, "a number from 0 to 100", func(n float64) bool {
		return n >= 0 && n <= 100
	})
	v.referencePath(name, "ToleratedFailureCountPath", m.ToleratedFailureCountPath)
	v.referencePath(name, "ToleratedFailurePercentagePath", m.ToleratedFailurePercentagePath)
	v.path(name, "ItemsPath", m.ItemsPath)
	v.template(name, "ItemSelector", m.ItemSelector)
	v.template(name, "Parameters", m.Parameters)
	v.template(name, "ResultSelector", m.ResultSelector)
	v.resultPath(name, "ResultPath", m.ResultPath)
}

// referencePath checks an optional field that must hold a reference path.
func (v *validator) referencePath(state, field, p string) {
	if p != "" && !isReferencePath(p) {
		v.fail(state, field, fmt.Sprintf("must be a path starting with $, got %q", p))
	}
}

// threshold checks a tolerated failure threshold: a number that valid accepts (described by
// want), or a JSONata expression.
func (v *validator) threshold(state, field string, value any, want string, valid func(float64) bool) {
	var n float64
	switch x := value.(type) {
	case nil:
		return
	case int64:
		n = float64(x)
	case float64:
		n = x
	case string:
		if !IsExpression(x) {
			v.fail(state, field, fmt.Sprintf("must be %s or a JSONata expression, got %q", want, x))
		}
		return
	default:
		v.fail(state, field, fmt.Sprintf("must be %s or a JSONata expression", want))
		return
	}
	if !valid(n) {
		v.fail(state, field, fmt.Sprintf("must be %s, got %v", want, value))
	}
}

func (v *validator) path(state, field string, p *Path) {
	if p != nil && !p.Null && !isReferencePath(p.Value) {
		v.fail(state, field, fmt.Sprintf("must be a path starting with $, got %q", p.Value))
	}
}

func (v *validator) resultPath(state, field string, p *Path) {
	v.path(state, field, p)
	if p != nil && strings.HasPrefix(p.Value, "$$") {
		v.fail(state, field, fmt.Sprintf("cannot write to the context object, got %q", p.Value))
	}
}

// template checks that every "<name>.$" field of a payload template holds a path or an
// intrinsic function call.
func (v *validator) template(state, field string, t any) {
	switch x := t.(type) {
	case map[string]any:
		for k, e := range x {
			if strings.HasSuffix(k, ".$") {
				s, ok := e.(string)
				if !ok || !(isReferencePath(s) || strings.HasPrefix(s, "States.")) {
					v.fail(state, field+"."+k, fmt.Sprintf("a field ending in .$ must hold a path or an intrinsic function, got %v", e))
				}
				continue
			}
			v.template(state, field+"."+k, e)
		}
	case []any:
		for i, e := range x {
			v.template(state, fmt.Sprintf("%s[%d]", field, i), e)
		}
	}
}

func (v *validator) retryCatch(name string, retry []*Retrier, catch []*Catcher, target func(state, field, name string)) {
	for i, r := range retry {
		field := fmt.Sprintf("Retry[%d]", i)
		v.errorEquals(name, field, r.ErrorEquals, i == len(retry)-1)
		if r.IntervalSeconds != nil && *r.IntervalSeconds < 1 {
			v.fail(name, field+".IntervalSeconds", fmt.Sprintf("must be >= 1, got %d", *r.IntervalSeconds))
		}
		if r.MaxAttempts != nil && *r.MaxAttempts < 0 {
			v.fail(name, field+".MaxAttempts", fmt.Sprintf("must be >= 0, got %d", *r.MaxAttempts))
		}
		if r.BackoffRate != nil && *r.BackoffRate < 1 {
			v.fail(name, field+".BackoffRate", fmt.Sprintf("must be >= 1.0, got %g", *r.BackoffRate))
		}
		if r.MaxDelaySeconds != nil && *r.MaxDelaySeconds < 1 {
			v.fail(name, field+".MaxDelaySeconds", fmt.Sprintf("must be >= 1, got %d", *r.MaxDelaySeconds))
		}
		if r.JitterStrategy != "" && r.JitterStrategy != JitterFull && r.JitterStrategy != JitterNone {
			v.fail(name, field+".JitterStrategy", fmt.Sprintf("must be FULL or NONE, got %q", r.JitterStrategy))
		}
	}
	for i, c := range catch {
		field := fmt.Sprintf("Catch[%d]", i)
		v.errorEquals(name, field, c.ErrorEquals, i == len(catch)-1)
		if c.Next == "" {
			v.fail(name, field+".Next", "is required")
		} else {
			target(name, field+".Next", c.Next)
		}
		v.resultPath(name, field+".ResultPath", c.ResultPath)
	}
}

// errorEquals checks a non-empty list in which States.ALL, if present, stands alone in the
// last retrier or catcher.
func (v *validator) errorEquals(state, field string, names []string, last bool) {
	if len(names) == 0 {
		v.fail(state, field+".ErrorEquals", "must name at least one error")
	}
	for _, n := range names {
		if n == ErrorAll && (len(names) != 1 || !last) {
			v.fail(state, field+".ErrorEquals", "States.ALL must appear alone, in the last element")
		}
	}
}

func (v *validator) choice(name string, c *Choice, target func(state, field, name string)) {
	if len(c.Choices) == 0 {
		v.fail(name, "Choices", "must hold at least one rule")
	}
	for i, r := range c.Choices {
		field := fmt.Sprintf("Choices[%d]", i)
		if r == nil {
			continue
		}
		v.rule(name, field, r)
		if r.Next == "" {
			v.fail(name, field+".Next", "is required")
		} else {
			target(name, field+".Next", r.Next)
		}
	}
	if c.Default != "" {
		target(name, "Default", c.Default)
	}
}

// rule checks that a choice rule is exactly one comparison or one combinator, recursively.
func (v *validator) rule(state, field string, r *ChoiceRule) {
	kinds := 0
	for _, on := range []bool{r.Operator != "", r.And != nil, r.Or != nil, r.Not != nil, r.Condition != nil} {
		if on {
			kinds++
		}
	}
	if kinds != 1 {
		v.fail(state, field, "a rule needs exactly one of a comparison operator, And, Or, Not and Condition")
		return
	}
	if s, ok := r.Condition.(string); ok && !IsExpression(s) {
		v.fail(state, field+".Condition", fmt.Sprintf("must be a JSONata expression \"{%% ... %%}\" or a boolean, got %q", s))
	}
	if r.Condition != nil {
		return
	}
	switch {
	case r.Operator != "":
		if r.Variable == "" {
			v.fail(state, field+".Variable", "is required with "+string(r.Operator))
		} else if !isReferencePath(r.Variable) {
			v.fail(state, field+".Variable", fmt.Sprintf("must be a path starting with $, got %q", r.Variable))
		}
		v.comparisonValue(state, field+"."+string(r.Operator), r.Operator, r.Value)
	case r.Not != nil:
		v.rule(state, field+".Not", r.Not)
	default:
		subs, op := r.And, "And"
		if r.Or != nil {
			subs, op = r.Or, "Or"
		}
		if len(subs) == 0 {
			v.fail(state, field+"."+op, "must hold at least one rule")
		}
		for i, s := range subs {
			if s != nil {
				v.rule(state, fmt.Sprintf("%s.%s[%d]", field, op, i), s)
			}
		}
	}
	if r.Operator == "" && r.Variable != "" {
		v.fail(state, field+".Variable", "is only allowed with a comparison operator")
	}
}

// comparisonValue checks the type of a comparison's value.
func (v *validator) comparisonValue(state, field string, op Operator, value any) {
	name := string(op)
	var ok bool
	switch {
	case op.IsPathVariant():
		s, isString := value.(string)
		ok = isString && isReferencePath(s)
	case strings.HasPrefix(name, "Is"), strings.HasPrefix(name, "Boolean"):
		_, ok = value.(bool)
	case strings.HasPrefix(name, "Numeric"):
		switch value.(type) {
		case int64, float64, int:
			ok = true
		}
	default: // String*, Timestamp*
		_, ok = value.(string)
	}
	if !ok {
		v.fail(state, field, fmt.Sprintf("has a value of the wrong type: %v", value))
	}
}

// IsExpression reports whether a string field holds a JSONata expression: "{%" ... "%}".
func IsExpression(s string) bool {
	return strings.HasPrefix(s, "{%") && strings.HasSuffix(s, "%}") && len(s) >= 4
}

// EffectiveQueryLanguage returns a state's query language: its own, else the default dflt (the
// machine's), else JSONPath.
func EffectiveQueryLanguage(s State, dflt string) string {
	if ql := s.Base().QueryLanguage; ql != "" {
		return ql
	}
	if dflt != "" {
		return dflt
	}
	return QueryLanguageJSONPath
}

// queryLanguageFields reports the fields the state's query language does not have: the
// JSONPath fields (InputPath, Parameters, ResultPath, ...) in a JSONata state, the JSONata
// fields (Arguments, Output, Items, Condition, expressions in numeric fields) in a JSONPath one.
func (v *validator) queryLanguageFields(name string, s State) {
	ql := EffectiveQueryLanguage(s, v.queryLanguage)
	c := s.Base()
	var jsonPathOnly, jsonataOnly []string
	add := func(list *[]string, field string, set bool) {
		if set {
			*list = append(*list, field)
		}
	}
	add(&jsonPathOnly, "InputPath", c.InputPath != nil)
	add(&jsonPathOnly, "OutputPath", c.OutputPath != nil)
	add(&jsonataOnly, "Output", c.Output != nil)
	switch x := s.(type) {
	case *Pass:
		add(&jsonPathOnly, "Parameters", x.Parameters != nil)
		add(&jsonPathOnly, "Result", x.Result != nil)
		add(&jsonPathOnly, "ResultPath", x.ResultPath != nil)
	case *Task:
		add(&jsonPathOnly, "Parameters", x.Parameters != nil)
		add(&jsonPathOnly, "ResultSelector", x.ResultSelector != nil)
		add(&jsonPathOnly, "ResultPath", x.ResultPath != nil)
		add(&jsonPathOnly, "TimeoutSecondsPath", x.TimeoutSecondsPath != "")
		add(&jsonPathOnly, "HeartbeatSecondsPath", x.HeartbeatSecondsPath != "")
		add(&jsonataOnly, "Arguments", x.Arguments != nil)
		add(&jsonataOnly, "TimeoutSeconds", x.TimeoutSecondsExpression != "")
		add(&jsonataOnly, "HeartbeatSeconds", x.HeartbeatSecondsExpression != "")
		catchFields(x.Catch, &jsonPathOnly, &jsonataOnly)
	case *Choice:
		for i, r := range x.Choices {
			if r == nil {
				continue
			}
			field := fmt.Sprintf("Choices[%d]", i)
			add(&jsonataOnly, field+".Condition", r.Condition != nil)
			add(&jsonataOnly, field+".Output", r.Output != nil)
			add(&jsonPathOnly, field+".Variable", r.Variable != "")
			add(&jsonPathOnly, field+"."+string(r.Operator), r.Operator != "")
			add(&jsonPathOnly, field+".And", r.And != nil)
			add(&jsonPathOnly, field+".Or", r.Or != nil)
			add(&jsonPathOnly, field+".Not", r.Not != nil)
		}
	case *Wait:
		add(&jsonPathOnly, "SecondsPath", x.SecondsPath != "")
		add(&jsonPathOnly, "TimestampPath", x.TimestampPath != "")
		add(&jsonataOnly, "Seconds", x.SecondsExpression != "")
		add(&jsonataOnly, "Timestamp", IsExpression(x.Timestamp))
	case *Fail:
		add(&jsonPathOnly, "ErrorPath", x.ErrorPath != "")
		add(&jsonPathOnly, "CausePath", x.CausePath != "")
		add(&jsonataOnly, "Error", IsExpression(x.Error))
		add(&jsonataOnly, "Cause", IsExpression(x.Cause))
	case *Parallel:
		add(&jsonPathOnly, "Parameters", x.Parameters != nil)
		add(&jsonPathOnly, "ResultSelector", x.ResultSelector != nil)
		add(&jsonPathOnly, "ResultPath", x.ResultPath != nil)
		add(&jsonataOnly, "Arguments", x.Arguments != nil)
		catchFields(x.Catch, &jsonPathOnly, &jsonataOnly)
	case *Map:
		add(&jsonPathOnly, "ItemsPath", x.ItemsPath != nil)
		add(&jsonPathOnly, "Parameters", x.Parameters != nil)
		add(&jsonPathOnly, "ResultSelector", x.ResultSelector != nil)
		add(&jsonPathOnly, "ResultPath", x.ResultPath != nil)
		add(&jsonPathOnly, "MaxConcurrencyPath", x.MaxConcurrencyPath != "")
		add(&jsonPathOnly, "ToleratedFailureCountPath", x.ToleratedFailureCountPath != "")
		add(&jsonPathOnly, "ToleratedFailurePercentagePath", x.ToleratedFailurePercentagePath != "")
		add(&jsonataOnly, "Items", x.Items != nil)
		add(&jsonataOnly, "MaxConcurrency", x.MaxConcurrencyExpression != "")
		_, countExpr := x.ToleratedFailureCount.(string)
		add(&jsonataOnly, "ToleratedFailureCount", countExpr)
		_, percentageExpr := x.ToleratedFailurePercentage.(string)
		add(&jsonataOnly, "ToleratedFailurePercentage", percentageExpr)
		catchFields(x.Catch, &jsonPathOnly, &jsonataOnly)
	}
	wrong := jsonataOnly
	if ql == QueryLanguageJSONata {
		wrong = jsonPathOnly
	}
	for _, f := range wrong {
		v.fail(name, f, fmt.Sprintf("the field %s is not supported when QueryLanguage is %s", f, ql))
	}
}

// catchFields adds the language-specific fields of catchers to the lists.
func catchFields(catch []*Catcher, jsonPathOnly, jsonataOnly *[]string) {
	for i, k := range catch {
		if k.ResultPath != nil {
			*jsonPathOnly = append(*jsonPathOnly, fmt.Sprintf("Catch[%d].ResultPath", i))
		}
		if k.Output != nil {
			*jsonataOnly = append(*jsonataOnly, fmt.Sprintf("Catch[%d].Output", i))
		}
	}
}
