package asl

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// field is one JSON member, rendered in the order fields appear.
type field struct {
	key   string
	value any
}

// marshalFields renders fields as a JSON object in their order. Nested maps are rendered by
// encoding/json, which sorts their keys, so the output is deterministic.
func marshalFields(fs []field) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range fs {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(f.key)
		if err != nil {
			return nil, err
		}
		v, err := marshalValue(f.value)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", f.key, err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshalValue renders v without escaping <, > and &, which are common in ASL paths and causes.
func marshalValue(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

func addString(fs []field, key, v string) []field {
	if v == "" {
		return fs
	}
	return append(fs, field{key, v})
}

func addInt(fs []field, key string, v *int) []field {
	if v == nil {
		return fs
	}
	return append(fs, field{key, *v})
}

func addAny(fs []field, key string, v any) []field {
	if v == nil {
		return fs
	}
	return append(fs, field{key, v})
}

func addPath(fs []field, key string, p *Path) []field {
	if p == nil {
		return fs
	}
	return append(fs, field{key, p.pathValue()})
}

// commonFields renders Type, Comment and InputPath: the members every state starts with.
func commonFields(t StateType, c *Common) []field {
	fs := []field{{"Type", string(t)}}
	fs = addString(fs, "QueryLanguage", c.QueryLanguage)
	fs = addString(fs, "Comment", c.Comment)
	return addPath(fs, "InputPath", c.InputPath)
}

// transitionFields renders OutputPath and then Next or End: the members every state ends with.
func transitionFields(fs []field, c *Common, t *Transition) []field {
	fs = addAny(fs, "Assign", c.Assign)
	fs = addAny(fs, "Output", c.Output)
	fs = addPath(fs, "OutputPath", c.OutputPath)
	if t == nil {
		return fs
	}
	fs = addString(fs, "Next", t.Next)
	if t.End {
		fs = append(fs, field{"End", true})
	}
	return fs
}

func retryCatchFields(fs []field, retry []*Retrier, catch []*Catcher) []field {
	if len(retry) > 0 {
		fs = append(fs, field{"Retry", retry})
	}
	if len(catch) > 0 {
		fs = append(fs, field{"Catch", catch})
	}
	return fs
}

func (s *Pass) fields() []field {
	fs := commonFields(TypePass, &s.Common)
	fs = addAny(fs, "Parameters", s.Parameters)
	fs = addAny(fs, "Result", s.Result)
	fs = addPath(fs, "ResultPath", s.ResultPath)
	return transitionFields(fs, &s.Common, &s.Transition)
}

func (s *Task) fields() []field {
	fs := commonFields(TypeTask, &s.Common)
	fs = addString(fs, "Resource", s.Resource)
	fs = addAny(fs, "Parameters", s.Parameters)
	fs = addAny(fs, "Arguments", s.Arguments)
	fs = addAny(fs, "ResultSelector", s.ResultSelector)
	fs = addPath(fs, "ResultPath", s.ResultPath)
	fs = addInt(fs, "TimeoutSeconds", s.TimeoutSeconds)
	fs = addString(fs, "TimeoutSeconds", s.TimeoutSecondsExpression)
	fs = addString(fs, "TimeoutSecondsPath", s.TimeoutSecondsPath)
	fs = addInt(fs, "HeartbeatSeconds", s.HeartbeatSeconds)
	fs = addString(fs, "HeartbeatSeconds", s.HeartbeatSecondsExpression)
	fs = addString(fs, "HeartbeatSecondsPath", s.HeartbeatSecondsPath)
	fs = addAny(fs, "Credentials", s.Credentials)
	fs = retryCatchFields(fs, s.Retry, s.Catch)
	return transitionFields(fs, &s.Common, &s.Transition)
}

func (s *Choice) fields() []field {
	fs := commonFields(TypeChoice, &s.Common)
	fs = append(fs, field{"Choices", s.Choices})
	fs = addString(fs, "Default", s.Default)
	return transitionFields(fs, &s.Common, nil)
}

func (s *Wait) fields() []field {
	fs := commonFields(TypeWait, &s.Common)
	fs = addInt(fs, "Seconds", s.Seconds)
	fs = addString(fs, "Seconds", s.SecondsExpression)
	fs = addString(fs, "Timestamp", s.Timestamp)
	fs = addString(fs, "SecondsPath", s.SecondsPath)
	fs = addString(fs, "TimestampPath", s.TimestampPath)
	return transitionFields(fs, &s.Common, &s.Transition)
}

func (s *Succeed) fields() []field {
	return transitionFields(commonFields(TypeSucceed, &s.Common), &s.Common, nil)
}

func (s *Fail) fields() []field {
	fs := commonFields(TypeFail, &s.Common)
	fs = addString(fs, "Error", s.Error)
	fs = addString(fs, "ErrorPath", s.ErrorPath)
	fs = addString(fs, "Cause", s.Cause)
	fs = addString(fs, "CausePath", s.CausePath)
	return transitionFields(fs, &s.Common, nil)
}

func (s *Parallel) fields() []field {
	fs := commonFields(TypeParallel, &s.Common)
	fs = append(fs, field{"Branches", s.Branches})
	fs = addAny(fs, "Parameters", s.Parameters)
	fs = addAny(fs, "Arguments", s.Arguments)
	fs = addAny(fs, "ResultSelector", s.ResultSelector)
	fs = addPath(fs, "ResultPath", s.ResultPath)
	fs = retryCatchFields(fs, s.Retry, s.Catch)
	return transitionFields(fs, &s.Common, &s.Transition)
}

func (s *Map) fields() []field {
	fs := commonFields(TypeMap, &s.Common)
	fs = addPath(fs, "ItemsPath", s.ItemsPath)
	fs = addAny(fs, "Items", s.Items)
	fs = addAny(fs, "ItemSelector", s.ItemSelector)
	fs = addAny(fs, "Parameters", s.Parameters)
	if s.ItemProcessor != nil {
		fs = append(fs, field{"ItemProcessor", s.ItemProcessor})
	}
	if s.Iterator != nil {
		fs = append(fs, field{"Iterator", s.Iterator})
	}
	fs = addInt(fs, "MaxConcurrency", s.MaxConcurrency)
	fs = addString(fs, "MaxConcurrency", s.MaxConcurrencyExpression)
	fs = addString(fs, "MaxConcurrencyPath", s.MaxConcurrencyPath)
	fs = addAny(fs, "ItemReader", s.ItemReader)
	fs = addAny(fs, "ItemBatcher", s.ItemBatcher)
	fs = addAny(fs, "ResultWriter", s.ResultWriter)
	fs = addAny(fs, "ToleratedFailurePercentage", s.ToleratedFailurePercentage)
	fs = addString(fs, "ToleratedFailurePercentagePath", s.ToleratedFailurePercentagePath)
	fs = addAny(fs, "ToleratedFailureCount", s.ToleratedFailureCount)
	fs = addString(fs, "ToleratedFailureCountPath", s.ToleratedFailureCountPath)
	fs = addString(fs, "Label", s.Label)
	fs = addAny(fs, "ResultSelector", s.ResultSelector)
	fs = addPath(fs, "ResultPath", s.ResultPath)
	fs = retryCatchFields(fs, s.Retry, s.Catch)
	return transitionFields(fs, &s.Common, &s.Transition)
}

// MarshalJSON renders the states as one JSON object, in their order.
func (s States) MarshalJSON() ([]byte, error) {
	fs := make([]field, len(s))
	for i, n := range s {
		fs[i] = field{n.Name, stateJSON{n.State}}
	}
	return marshalFields(fs)
}

// stateJSON adapts a State to json.Marshaler.
type stateJSON struct{ State }

// MarshalJSON renders the state with its fields in a fixed order.
func (s stateJSON) MarshalJSON() ([]byte, error) { return marshalFields(s.fields()) }

// MarshalJSON renders the graph as {"Comment", "StartAt", "States"}.
func (g *Graph) MarshalJSON() ([]byte, error) { return marshalFields(g.graphFields()) }

func (g *Graph) graphFields() []field {
	fs := addString(nil, "Comment", g.Comment)
	fs = append(fs, field{"StartAt", g.StartAt})
	return append(fs, field{"States", g.States})
}

// MarshalJSON renders the processor as a graph preceded by its ProcessorConfig.
func (p *ItemProcessor) MarshalJSON() ([]byte, error) {
	var fs []field
	if p.ProcessorConfig != nil {
		cfg := addString(nil, "Mode", p.ProcessorConfig.Mode)
		cfg = addString(cfg, "ExecutionType", p.ProcessorConfig.ExecutionType)
		raw, err := marshalFields(cfg)
		if err != nil {
			return nil, err
		}
		fs = append(fs, field{"ProcessorConfig", json.RawMessage(raw)})
	}
	return marshalFields(append(fs, p.graphFields()...))
}

// MarshalJSON renders the state machine; see Render.
func (m *StateMachine) MarshalJSON() ([]byte, error) {
	fs := addString(nil, "Comment", m.Comment)
	fs = addString(fs, "QueryLanguage", m.QueryLanguage)
	fs = append(fs, field{"StartAt", m.StartAt})
	fs = addString(fs, "Version", m.Version)
	fs = addInt(fs, "TimeoutSeconds", m.TimeoutSeconds)
	return marshalFields(append(fs, field{"States", m.States}))
}

// Render returns the definition as compact JSON with every object's fields in a fixed order, so
// that the same model always renders to the same bytes.
// Like the rest of the rendering, it does not escape <, > and &.
func (m *StateMachine) Render() ([]byte, error) { return marshalValue(m) }

// RenderIndent returns the definition as JSON indented with two spaces, for golden files and
// people.
func (m *StateMachine) RenderIndent() ([]byte, error) {
	raw, err := m.Render()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}
