// Package asl is a pure-Go model of the Amazon States Language (JSONPath query language): typed
// states, retriers and catchers, choice rules and the data-flow fields; a deterministic JSON
// renderer; a strict parser; and a validator that reports every structural problem by state and
// field.
//
// It imports neither the CDK nor the AWS SDK. The constructs render their state machines with it
// and the local emulator parses and executes what they render, so both sides share one model.
//
// A definition is plain Go data:
//
//	m := &asl.StateMachine{
//		StartAt: "Hello",
//		States: asl.States{
//			{Name: "Hello", State: &asl.Pass{Result: "world", Transition: asl.End()}},
//		},
//	}
//	if err := m.Validate(); err != nil {
//		return err
//	}
//	doc, err := m.Render() // {"StartAt":"Hello","States":{"Hello":{"Type":"Pass","Result":"world","End":true}}}
//
// and Parse turns such a document back into the model:
//
//	m, err := asl.Parse(doc)
//
// JSON values inside a definition (Result, Parameters, ItemSelector, ResultSelector, choice
// comparison values) are held as generic Go values: map[string]any, []any, string, bool, nil,
// int64 for integral numbers and float64 for the others. (The emulator computes with its own
// model, emulator/jsonvalue, whose objects keep the document's member order.)
package asl
