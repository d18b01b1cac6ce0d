package intrinsic

import (
	"errors"
	"testing"

	"github.com/turnstile-sfn/turnstile/asl"
)

// TestPathNotFound checks the cause AWS writes when a JSONPath argument selects nothing
// (causes captured from AWS, us-east-1).
func TestPathNotFound(t *testing.T) {
	runEvalCases(t, []evalCase{
		{name: "missing field", expr: "States.Format('{}', $.nope)", input: `{"other":1}`,
			wantDetail: `The JsonPath argument for the field '$.nope' could not be found in the input '{"other":1}'`},
		{name: "expression quoted as written", expr: "States.Format('{}',$.nope)", input: `{"other":1}`,
			wantDetail: `The JsonPath argument for the field '$.nope' could not be found in the input '{"other":1}'`},
		{name: "later argument", expr: "States.Format('{} {}', $.other, $.a.b)", input: `{"other":1}`,
			wantDetail: `The JsonPath argument for the field '$.a.b' could not be found in the input '{"other":1}'`},
		{name: "template path", expr: "States.Format($.nope, 1)", input: `{"other":1}`,
			wantDetail: `The JsonPath argument for the field '$.nope' could not be found in the input '{"other":1}'`},
		{name: "nested call names the whole expression", expr: "States.Format('{}', States.Format('{}', $.nope))", input: `{"other":1}`,
			wantDetail: `The JsonPath argument for the field '$.nope' could not be found in the input '{"other":1}'`},
		{name: "index past the end", expr: "States.Format('{}', $.items[5])", input: `{"items":[1,2]}`,
			wantDetail: `The JsonPath argument for the field '$.items[5]' could not be found in the input '{"items":[1,2]}'`},
		{name: "field of a missing item", expr: "States.Format('{}', $.items[5].x)", input: `{"items":[1]}`,
			wantDetail: `The JsonPath argument for the field '$.items[5].x' could not be found in the input '{"items":[1]}'`},
		{name: "index into a non-array", expr: "States.Format('{}', $.other[0])", input: `{"other":1}`,
			wantDetail: `The JsonPath argument for the field '$.other[0]' could not be found in the input '{"other":1}'`},
		{name: "context path rewritten, state input quoted", expr: "States.Format('{}', $$.Nope.Deep)", input: `{"other":1}`,
			wantDetail: `The JsonPath argument for the field '$.Nope.Deep' could not be found in the input '{"other":1}'`},
		{name: "other functions", expr: "States.JsonMerge($.nope, $.other, false)", input: `{"other":1}`,
			wantDetail: `The JsonPath argument for the field '$.nope' could not be found in the input '{"other":1}'`},
		{name: "checked before arity", expr: "States.Hash($.missing)", input: `{}`,
			wantDetail: `The JsonPath argument for the field '$.missing' could not be found in the input '{}'`},
		{name: "explicit null is a value", expr: "States.Format('{}', $.nul)", input: `{"nul":null}`, want: `"null"`},
	})
}

func TestErrorCause(t *testing.T) {
	_, err := evaluate(t, "States.MathAdd($.a, 1)", map[string]any{"a": "x"})
	var ie *Error
	if !errors.As(err, &ie) {
		t.Fatalf("got %v, want *Error", err)
	}
	const wantCause = "An error occurred while executing the state 'Add' (entered at the event id #2). " +
		"The function 'States.MathAdd($.a, 1)' had the following error: Invalid arguments in States.MathAdd"
	if got := ie.Cause("Add", 2); got != wantCause {
		t.Fatalf("Cause:\n got %q\nwant %q", got, wantCause)
	}
	if got := ie.ASL("Add", 2); got.Name != asl.ErrorRuntime || got.Cause != wantCause {
		t.Fatalf("ASL = %+v, want %s / %q", got, asl.ErrorRuntime, wantCause)
	}
	if !errors.Is(err, ErrInvalidArguments) {
		t.Fatalf("errors.Is(%v, ErrInvalidArguments) = false", err)
	}
	if got, want := ie.Error(), "States.Runtime: "+ie.Message; got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
}

func TestNotFoundErrorUnwraps(t *testing.T) {
	_, err := evaluate(t, "States.Array($.nope)", map[string]any{})
	var missing *NotFoundError
	if !errors.As(err, &missing) || missing.Path != "$.nope" || !errors.Is(err, ErrPathNotFound) {
		t.Fatalf("got %v, want an error wrapping *NotFoundError for $.nope and ErrPathNotFound", err)
	}
}

func TestCallerMistakes(t *testing.T) {
	failing := errors.New("resolver broke")
	tests := []struct {
		name    string
		expr    string
		resolve Resolver
		env     Env
		want    error
	}{
		{name: "nil resolver", expr: "States.Array($.a)", want: ErrNoResolver},
		{name: "nil rand for UUID", expr: "States.UUID()", want: ErrNoRandomSource},
		{name: "nil rand for MathRandom", expr: "States.MathRandom(1, 10)", want: ErrNoRandomSource},
		{name: "resolver error", expr: "States.Array($.a)", resolve: func(string) (any, error) { return nil, failing }, want: failing},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := Parse(tc.expr)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.Evaluate(tc.resolve, tc.env); !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

func TestSeededMathRandomNeedsNoRand(t *testing.T) {
	e, err := Parse("States.MathRandom(1, 10, 42)")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := e.Evaluate(nil, Env{}); err != nil || got != int64(9) {
		t.Fatalf("got (%v, %v), want 9", got, err)
	}
}
