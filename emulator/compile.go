package emulator

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/emulator/intrinsic"
	"github.com/turnstile-sfn/turnstile/emulator/jsonpath"
	"github.com/turnstile-sfn/turnstile/emulator/jsonvalue"
)

// graph is a compiled graph: a machine's body, a Parallel branch or a Map processor.
type graph struct {
	startAt string
	states  map[string]*node
}

// node is a compiled state: the asl model plus everything the interpreter would otherwise parse
// again on every visit.
type node struct {
	name  string
	typ   string
	state asl.State

	inputPath, outputPath, resultPath *optionalPath
	parameters, resultSelector        *payloadTemplate
	result                            any    // a Pass state's Result, in document order
	next                              string // empty at an end state

	retry []*asl.Retrier
	catch []*catcher

	jsonata *jsonataSpec // nil in a JSONPath state
	assign  *assignSpec  // nil without Assign

	choices     []*choiceRule
	defaultNext string
	wait        *waitSpec
	fail        *failSpec
	task        *taskSpec
	branches    []*graph
	mapSpec     *mapSpec
}

// optionalPath is a path field that may be absent (nil *optionalPath: "$"), null, or a path.
type optionalPath struct {
	null bool
	path *jsonpath.Path
}

// catcher is a compiled Catch element.
type catcher struct {
	errorEquals []string
	next        string
	resultPath  *optionalPath
	assign      *assignSpec
	output      any // a JSONata catcher's Output template
}

// stringOrExpr is a Fail field that is a literal, a path or an intrinsic function call.
type stringOrExpr struct {
	literal   string
	path      *jsonpath.Path
	intrinsic *intrinsic.Expr
}

// failSpec is a compiled Fail state.
type failSpec struct {
	errorName, cause *stringOrExpr
}

// waitSpec is a compiled Wait state.
type waitSpec struct {
	seconds       *int
	timestamp     *time.Time
	secondsPath   *jsonpath.Path
	timestampPath *jsonpath.Path
}

// mapSpec is a compiled inline Map state.
type mapSpec struct {
	itemsPath          *optionalPath
	itemSelector       *payloadTemplate
	processor          *graph
	maxConcurrency     int
	maxConcurrencyPath *jsonpath.Path
	// The tolerated failure threshold of a JSONPath state (see failureTolerance); nil when
	// absent.
	toleratedFailureCount          *int64
	toleratedFailurePercentage     *float64
	toleratedFailureCountPath      *jsonpath.Path
	toleratedFailurePercentagePath *jsonpath.Path
}

// compiler turns a parsed definition into graphs, collecting every problem it finds. Beside the
// asl model it walks the definition decoded as the interpreter's values (the raw arguments,
// nil when absent), from which payload templates and Pass results take their member order.
type compiler struct {
	em  *Emulator
	err error
	// queryLanguage is the machine's QueryLanguage, the default of its states.
	queryLanguage string
}

func (c *compiler) fail(kind error, state, field, problem string) {
	c.err = errors.Join(c.err, &asl.DefinitionError{State: state, Field: field, Problem: problem, Kind: kind})
}

func (c *compiler) graph(scope string, g *asl.Graph, raw any) *graph {
	out := &graph{startAt: g.StartAt, states: make(map[string]*node, len(g.States))}
	rawStates := member(raw, "States")
	for _, ns := range g.States {
		out.states[ns.Name] = c.node(joinScope(scope, ns.Name), ns.Name, ns.State, member(rawStates, ns.Name))
	}
	return out
}

// member returns a member of a raw definition object, nil when absent.
func member(raw any, name string) any {
	if o, ok := raw.(*jsonvalue.Object); ok {
		v, _ := o.ValueForKey(name)
		return v
	}
	return nil
}

// rawField returns the value of a definition field in the interpreter's model: the raw member,
// which keeps the document's member order, when there is one, else the model's value.
func rawField(raw any, field string, modelValue any) any {
	if v := member(raw, field); v != nil {
		return v
	}
	return jsonvalue.FromGeneric(modelValue)
}

func joinScope(scope, name string) string {
	if scope == "" {
		return name
	}
	return scope + "/" + name
}

func (c *compiler) node(scope, name string, s asl.State, raw any) *node {
	n := &node{name: name, typ: string(s.Type()), state: s}
	base := s.Base()
	jsonataState := asl.EffectiveQueryLanguage(s, c.queryLanguage) == asl.QueryLanguageJSONata
	if jsonataState {
		n.jsonata = c.jsonataState(scope, s, raw)
	}
	n.assign = c.assign(scope, "Assign", jsonataState, member(raw, "Assign"))
	n.inputPath = c.optionalPath(scope, "InputPath", base.InputPath)
	n.outputPath = c.optionalPath(scope, "OutputPath", base.OutputPath)
	switch x := s.(type) {
	case *asl.Pass:
		n.next = x.Next
		if x.Result != nil {
			n.result = rawField(raw, "Result", x.Result)
		}
		n.parameters = c.template(scope, "Parameters", rawField(raw, "Parameters", x.Parameters))
		n.resultPath = c.resultPath(scope, "ResultPath", x.ResultPath)
	case *asl.Task:
		n.next = x.Next
		n.parameters = c.template(scope, "Parameters", rawField(raw, "Parameters", x.Parameters))
		n.resultSelector = c.template(scope, "ResultSelector", rawField(raw, "ResultSelector", x.ResultSelector))
		n.resultPath = c.resultPath(scope, "ResultPath", x.ResultPath)
		n.task = c.task(scope, x)
		n.retry, n.catch = x.Retry, c.catchers(scope, x.Catch, jsonataState, raw)
	case *asl.Choice:
		n.defaultNext = x.Default
		rawChoices, _ := member(raw, "Choices").([]any)
		for i, r := range x.Choices {
			field := fmt.Sprintf("Choices[%d]", i)
			rule := c.rule(scope, field, r)
			if i < len(rawChoices) {
				rule.assign = c.assign(scope, field+".Assign", jsonataState, member(rawChoices[i], "Assign"))
				rule.output = c.jsonataTemplate(scope, field+".Output", member(rawChoices[i], "Output"))
			}
			n.choices = append(n.choices, rule)
		}
	case *asl.Wait:
		n.next = x.Next
		if jsonataState {
			n.wait = &waitSpec{}
		} else {
			n.wait = c.wait(scope, x)
		}
	case *asl.Succeed:
	case *asl.Fail:
		n.fail = &failSpec{
			errorName: c.stringOrExpr(scope, "Error", x.Error, "ErrorPath", x.ErrorPath),
			cause:     c.stringOrExpr(scope, "Cause", x.Cause, "CausePath", x.CausePath),
		}
	case *asl.Parallel:
		n.next = x.Next
		n.parameters = c.template(scope, "Parameters", rawField(raw, "Parameters", x.Parameters))
		n.resultSelector = c.template(scope, "ResultSelector", rawField(raw, "ResultSelector", x.ResultSelector))
		n.resultPath = c.resultPath(scope, "ResultPath", x.ResultPath)
		rawBranches, _ := member(raw, "Branches").([]any)
		for i, b := range x.Branches {
			var rawBranch any
			if i < len(rawBranches) {
				rawBranch = rawBranches[i]
			}
			n.branches = append(n.branches, c.graph(fmt.Sprintf("%s/Branches[%d]", scope, i), b, rawBranch))
		}
		n.retry, n.catch = x.Retry, c.catchers(scope, x.Catch, jsonataState, raw)
	case *asl.Map:
		n.next = x.Next
		n.mapSpec = c.mapState(scope, x, raw)
		if jsonataState {
			n.mapSpec.itemSelector = nil // evaluated as JSONata (n.jsonata.itemSelector)
		}
		n.resultSelector = c.template(scope, "ResultSelector", rawField(raw, "ResultSelector", x.ResultSelector))
		n.resultPath = c.resultPath(scope, "ResultPath", x.ResultPath)
		n.retry, n.catch = x.Retry, c.catchers(scope, x.Catch, jsonataState, raw)
	}
	return n
}

func (c *compiler) path(scope, field, text string) *jsonpath.Path {
	p, err := jsonpath.Compile(text)
	if err != nil {
		c.fail(asl.ErrInvalidDefinition, scope, field, err.Error())
		return nil
	}
	return p
}

func (c *compiler) optionalPath(scope, field string, p *asl.Path) *optionalPath {
	switch {
	case p == nil:
		return nil
	case p.Null:
		return &optionalPath{null: true}
	}
	return &optionalPath{path: c.path(scope, field, p.Value)}
}

// resultPath compiles a ResultPath, which must be a definite path into the state's data.
func (c *compiler) resultPath(scope, field string, p *asl.Path) *optionalPath {
	op := c.optionalPath(scope, field, p)
	if op != nil && op.path != nil && (!op.path.Definite() || op.path.Context || op.path.Variable != "") {
		c.fail(asl.ErrInvalidDefinition, scope, field, fmt.Sprintf("must be a reference path (names and indexes into $), got %q", p.Value))
	}
	return op
}

func (c *compiler) template(scope, field string, t any) *payloadTemplate {
	if t == nil {
		return nil
	}
	pt, err := compileTemplate(field, t)
	if err != nil {
		c.fail(asl.ErrInvalidDefinition, scope, field, err.Error())
		return nil
	}
	return pt
}

func (c *compiler) catchers(scope string, cs []*asl.Catcher, jsonataState bool, raw any) []*catcher {
	out := make([]*catcher, 0, len(cs))
	rawCatch, _ := member(raw, "Catch").([]any)
	for i, k := range cs {
		field := fmt.Sprintf("Catch[%d]", i)
		var rawCatcher any
		if i < len(rawCatch) {
			rawCatcher = rawCatch[i]
		}
		out = append(out, &catcher{
			errorEquals: k.ErrorEquals,
			next:        k.Next,
			resultPath:  c.resultPath(scope, field+".ResultPath", k.ResultPath),
			assign:      c.assign(scope, field+".Assign", jsonataState, member(rawCatcher, "Assign")),
			output:      c.jsonataTemplate(scope, field+".Output", member(rawCatcher, "Output")),
		})
	}
	return out
}

func (c *compiler) stringOrExpr(scope, field, literal, pathField, pathText string) *stringOrExpr {
	if pathText == "" {
		return &stringOrExpr{literal: literal}
	}
	if intrinsic.IsIntrinsic(pathText) {
		expr, err := intrinsic.Parse(pathText)
		if err != nil {
			c.fail(asl.ErrInvalidDefinition, scope, pathField, err.Error())
			return nil
		}
		return &stringOrExpr{intrinsic: expr}
	}
	return &stringOrExpr{path: c.path(scope, pathField, pathText)}
}

func (c *compiler) wait(scope string, w *asl.Wait) *waitSpec {
	ws := &waitSpec{seconds: w.Seconds}
	if w.Timestamp != "" {
		t, err := parseTimestamp(w.Timestamp)
		if err != nil {
			c.fail(asl.ErrInvalidDefinition, scope, "Timestamp", err.Error())
		}
		ws.timestamp = &t
	}
	if w.SecondsPath != "" {
		ws.secondsPath = c.path(scope, "SecondsPath", w.SecondsPath)
	}
	if w.TimestampPath != "" {
		ws.timestampPath = c.path(scope, "TimestampPath", w.TimestampPath)
	}
	return ws
}

func (c *compiler) mapState(scope string, m *asl.Map, raw any) *mapSpec {
	unsupported := func(field string, set bool) {
		if set {
			c.fail(asl.ErrUnsupported, scope, field, "the distributed Map state is not supported by the emulator (inline Map only)")
		}
	}
	proc := m.Processor()
	unsupported("ItemReader", m.ItemReader != nil)
	unsupported("ItemBatcher", m.ItemBatcher != nil)
	unsupported("ResultWriter", m.ResultWriter != nil)
	unsupported("Label", m.Label != "")
	if proc != nil && proc.ProcessorConfig != nil {
		unsupported("ItemProcessor.ProcessorConfig.Mode", proc.ProcessorConfig.Mode == "DISTRIBUTED")
	}
	ms := &mapSpec{itemsPath: c.optionalPath(scope, "ItemsPath", m.ItemsPath)}
	selector, field := m.ItemSelector, "ItemSelector"
	if selector == nil {
		selector, field = m.Parameters, "Parameters"
	}
	ms.itemSelector = c.template(scope, field, rawField(raw, field, selector))
	if m.MaxConcurrency != nil {
		ms.maxConcurrency = *m.MaxConcurrency
	}
	if m.MaxConcurrencyPath != "" {
		ms.maxConcurrencyPath = c.path(scope, "MaxConcurrencyPath", m.MaxConcurrencyPath)
	}
	if n, ok := toInteger(member(raw, "ToleratedFailureCount")); ok {
		ms.toleratedFailureCount = &n
	}
	if p, ok := toFloat(member(raw, "ToleratedFailurePercentage")); ok {
		ms.toleratedFailurePercentage = &p
	}
	if m.ToleratedFailureCountPath != "" {
		ms.toleratedFailureCountPath = c.path(scope, "ToleratedFailureCountPath", m.ToleratedFailureCountPath)
	}
	if m.ToleratedFailurePercentagePath != "" {
		ms.toleratedFailurePercentagePath = c.path(scope, "ToleratedFailurePercentagePath", m.ToleratedFailurePercentagePath)
	}
	if proc != nil {
		rawProc := member(raw, "ItemProcessor")
		if rawProc == nil {
			rawProc = member(raw, "Iterator")
		}
		ms.processor = c.graph(scope+"/ItemProcessor", &proc.Graph, rawProc)
	}
	return ms
}

// parseTimestamp parses a timestamp as the States Language defines it: RFC 3339 with an
// uppercase T and either Z or a numeric offset.
func parseTimestamp(s string) (time.Time, error) {
	if !strings.Contains(s, "T") {
		return time.Time{}, fmt.Errorf("%q is not an RFC 3339 timestamp", s)
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not an RFC 3339 timestamp", s)
	}
	return t, nil
}
