package intrinsic

import (
	"testing"

	"github.com/turnstile-sfn/turnstile/emulator/jsonvalue"
)

// BenchmarkFormat parses and evaluates a typical States.Format call over a small input.
func BenchmarkFormat(b *testing.B) {
	input := jsonvalue.Of("name", "Ada", "order", jsonvalue.Of("id", int64(42), "items", []any{"a", "b"}))
	resolve := NewResolver(input, nil)
	const expr = "States.Format('Hello {}, order {} has {} items', $.name, $.order.id, States.ArrayLength($.order.items))"
	b.ReportAllocs()
	for b.Loop() {
		e, err := Parse(expr)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := e.Evaluate(resolve, Env{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFormatEvaluate evaluates an already parsed States.Format call, as an interpreter
// that parses a definition once would.
func BenchmarkFormatEvaluate(b *testing.B) {
	input := jsonvalue.Of("name", "Ada", "order", jsonvalue.Of("id", int64(42), "items", []any{"a", "b"}))
	resolve := NewResolver(input, nil)
	e, err := Parse("States.Format('Hello {}, order {} has {} items', $.name, $.order.id, States.ArrayLength($.order.items))")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Evaluate(resolve, Env{}); err != nil {
			b.Fatal(err)
		}
	}
}
