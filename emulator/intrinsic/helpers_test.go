package intrinsic

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/turnstile-sfn/turnstile/emulator/jsonvalue"
)

// evalCase is one expression evaluated over a JSON input. want is the expected result as JSON
// text (so "1" is int64 1 and "1.0" is float64 1, as the emulator represents them); when
// wantDetail is set the evaluation must fail with States.Runtime and that detail after
// "The function '<expr>' had the following error: ".
type evalCase struct {
	name       string
	expr       string
	input      string
	want       string
	wantDetail string
}

// parseJSON parses JSON text into the emulator's value representation.
func parseJSON(t testing.TB, text string) any {
	t.Helper()
	v, err := jsonvalue.Decode([]byte(text))
	if err != nil {
		t.Fatalf("bad JSON in test: %q: %v", text, err)
	}
	return v
}

// evaluate parses expr and evaluates it over input with a fixed random seed.
func evaluate(t testing.TB, expr string, input any) (any, error) {
	t.Helper()
	e, err := Parse(expr)
	if err != nil {
		t.Fatalf("Parse(%q): %v", expr, err)
	}
	contextObject := func() any { return jsonvalue.Of("Execution", jsonvalue.Of("Input", input)) }
	return e.Evaluate(NewResolver(input, contextObject),
		Env{Rand: rand.New(rand.NewPCG(1, 2))})
}

func runEvalCases(t *testing.T, cases []evalCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			input := any(jsonvalue.NewObject(0))
			if tc.input != "" {
				input = parseJSON(t, tc.input)
			}
			got, err := evaluate(t, tc.expr, input)
			if tc.wantDetail != "" {
				wantMessage := "The function '" + tc.expr + "' had the following error: " + tc.wantDetail
				var ie *Error
				if !errors.As(err, &ie) {
					t.Fatalf("%s: got (%#v, %v), want *Error %q", tc.expr, got, err, wantMessage)
				}
				if ie.Name != "States.Runtime" || ie.Message != wantMessage {
					t.Fatalf("%s:\n got %s: %s\nwant States.Runtime: %s", tc.expr, ie.Name, ie.Message, wantMessage)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: unexpected error %v", tc.expr, err)
			}
			if want := parseJSON(t, tc.want); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s:\n got %#v\nwant %#v", tc.expr, got, want)
			}
		})
	}
}
