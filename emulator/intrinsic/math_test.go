package intrinsic

import "testing"

func TestMathFunctions(t *testing.T) {
	runEvalCases(t, []evalCase{
		// States.MathAdd: documentation and AWS recordings (Java Math.round of each argument).
		{name: "Add doc", expr: "States.MathAdd($.value1, $.step)", input: `{"value1":111,"step":-1}`, want: `110`},
		{name: "Add integers", expr: "States.MathAdd($.a, $.b)", input: `{"a":-9,"b":3}`, want: `-6`},
		{name: "Add 1.49 + 1.5", expr: "States.MathAdd($.a, $.b)", input: `{"a":1.49,"b":1.5}`, want: `3`},
		{name: "Add 1.5 + 1.51", expr: "States.MathAdd($.a, $.b)", input: `{"a":1.5,"b":1.51}`, want: `4`},
		{name: "Add -1.49 + -1.5", expr: "States.MathAdd($.a, $.b)", input: `{"a":-1.49,"b":-1.5}`, want: `-2`},
		{name: "Add 1.49 + -1.49", expr: "States.MathAdd($.a, $.b)", input: `{"a":1.49,"b":-1.49}`, want: `0`},
		{name: "Add 0.5", expr: "States.MathAdd($.a, 0)", input: `{"a":0.5}`, want: `1`},
		{name: "Add 2.5", expr: "States.MathAdd($.a, 0)", input: `{"a":2.5}`, want: `3`},
		{name: "Add -0.5", expr: "States.MathAdd($.a, 0)", input: `{"a":-0.5}`, want: `0`},
		{name: "Add -1.5", expr: "States.MathAdd($.a, 0)", input: `{"a":-1.5}`, want: `-1`},
		{name: "Add -1.51", expr: "States.MathAdd($.a, 0)", input: `{"a":-1.51}`, want: `-2`},
		{name: "Add -2.5", expr: "States.MathAdd($.a, 0)", input: `{"a":-2.5}`, want: `-2`},
		{name: "Add -0.5 + 0.5 rounds each", expr: "States.MathAdd(-0.5, 0.5)", want: `1`},
		{name: "Add int max", expr: "States.MathAdd(2147483646, 1)", want: `2147483647`},
		{name: "Add overflow", expr: "States.MathAdd(2147483647, 1)", wantDetail: "Invalid arguments in States.MathAdd"},
		{name: "Add string", expr: "States.MathAdd($.a, $.b)", input: `{"a":1,"b":"NOT A NUMBER"}`, wantDetail: "Invalid arguments in States.MathAdd"},
		{name: "Add null", expr: "States.MathAdd(null, 1)", wantDetail: "Invalid arguments in States.MathAdd"},
		{name: "Add arity", expr: "States.MathAdd(1)", wantDetail: "Invalid arguments in States.MathAdd"},

		// States.MathRandom with a seed: java.util.Random, as AWS (seed 42 over [-5, 5) is -5).
		{name: "Random seeded", expr: "States.MathRandom(-5, 5, 42)", want: `-5`},
		{name: "Random seeded power of two", expr: "States.MathRandom(0, 16, 0)", want: `11`},
		{name: "Random seeded from context", expr: "States.MathRandom($$.Execution.Input.start, $$.Execution.Input.end, $$.Execution.Input.seed)", input: `{"start":1,"end":10,"seed":42}`, want: `9`},
		{name: "Random single value", expr: "States.MathRandom(7, 8)", want: `7`},
		{name: "Random equal bounds", expr: "States.MathRandom(1, 1)", wantDetail: "Invalid arguments in States.MathRandom"},
		{name: "Random truncation collapses bounds", expr: "States.MathRandom(1.4, 1.6)", wantDetail: "Invalid arguments in States.MathRandom"},
		{name: "Random reversed bounds", expr: "States.MathRandom(10, 5)", wantDetail: "Invalid arguments in States.MathRandom"},
		{name: "Random string bound", expr: "States.MathRandom('a', 10)", wantDetail: "Invalid arguments in States.MathRandom"},
		{name: "Random null seed", expr: "States.MathRandom(1, 10, null)", wantDetail: "Invalid arguments in States.MathRandom"},
		{name: "Random string seed", expr: "States.MathRandom(1, 10, 'seed')", wantDetail: "Invalid arguments in States.MathRandom"},
		{name: "Random arity", expr: "States.MathRandom(1, 10, 5, 99)", wantDetail: "Invalid arguments in States.MathRandom"},
	})
}

// TestMathRandomRanges draws unseeded numbers and checks the range [start, end) and that the
// same Env seed replays the same draws.
func TestMathRandomRanges(t *testing.T) {
	tests := []struct {
		expr       string
		start, end int64
	}{
		{expr: "States.MathRandom(1, 999)", start: 1, end: 999},
		{expr: "States.MathRandom(1.6, 5.4)", start: 1, end: 5},
		{expr: "States.MathRandom(-1000000, 1000000)", start: -1000000, end: 1000000},
		{expr: "States.MathRandom(2147483640, 2147483647, 1)", start: 2147483640, end: 2147483647},
	}
	for _, tc := range tests {
		t.Run(tc.expr, func(t *testing.T) {
			first, err := evaluate(t, tc.expr, nil)
			if err != nil {
				t.Fatal(err)
			}
			again, err := evaluate(t, tc.expr, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := first.(int64)
			if !ok || got < tc.start || got >= tc.end {
				t.Fatalf("got %#v, want an int64 in [%d, %d)", first, tc.start, tc.end)
			}
			if again != first {
				t.Fatalf("same seed gave %v then %v", first, again)
			}
		})
	}
}
