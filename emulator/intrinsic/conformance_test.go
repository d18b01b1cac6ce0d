package intrinsic

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/turnstile-sfn/turnstile/emulator/jsonvalue"
)

// conformanceRoot holds the cases recorded against AWS Step Functions (see its README); it sits
// beside the repository and is absent from a user's clone.
const conformanceRoot = "../../../shared/conformance/aws-recorded"

// conformanceCase is the part of a recorded case this package can check.
type conformanceCase struct {
	definition map[string]any
	input      any
	status     string
	output     any
	errorName  string
	cause      string
}

// TestConformance parses every intrinsic function call in the definitions of the intrinsic-*
// groups and, for the machines made of a single Pass state whose Parameters are all intrinsic
// calls, evaluates them and compares the result with what AWS recorded.
func TestConformance(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(conformanceRoot, "intrinsic-*", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Skipf("no recorded AWS cases under %s (shared/conformance is not part of a clone): skipping", conformanceRoot)
	}
	var expressions, endToEnd, passed int
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".json"), func(t *testing.T) {
			c := loadConformanceCase(t, file)
			calls := intrinsicCalls(c.definition)
			expressions += len(calls)
			for _, expr := range calls {
				if _, err := Parse(expr); err != nil {
					t.Errorf("Parse(%q): %v", expr, err)
				}
			}
			stateName, parameters, ok := singlePassOfIntrinsics(c.definition)
			if !ok {
				return
			}
			endToEnd++
			if err := checkPassState(c, stateName, parameters); err != nil {
				t.Error(err)
				return
			}
			passed++
		})
	}
	t.Logf("%d case files, %d intrinsic expressions parsed; %d cases verified end to end, %d passed",
		len(files), expressions, endToEnd, passed)
	if endToEnd == 0 {
		t.Fatal("no case was verified end to end: the case format changed?")
	}
}

func loadConformanceCase(t *testing.T, file string) conformanceCase {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	ordered, _ := parseJSON(t, string(data)).(*jsonvalue.Object)
	input, _ := ordered.ValueForKey("input") // in document order, as the execution receives it
	doc, _ := jsonvalue.ToGeneric(ordered).(map[string]any)
	expected, _ := doc["expected"].(map[string]any)
	definition, _ := doc["definition"].(map[string]any)
	c := conformanceCase{definition: definition, input: input, output: expected["output"]}
	c.status, _ = expected["status"].(string)
	c.errorName, _ = expected["error"].(string)
	c.cause, _ = expected["cause"].(string)
	return c
}

// intrinsicCalls returns, in a stable order, every value of a ".$" field that is written as an
// intrinsic function call anywhere in v.
func intrinsicCalls(v any) []string {
	var calls []string
	switch x := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			if s, ok := x[k].(string); ok && strings.HasSuffix(k, ".$") && IsIntrinsic(s) {
				calls = append(calls, s)
			}
			calls = append(calls, intrinsicCalls(x[k])...)
		}
	case []any:
		for _, item := range x {
			calls = append(calls, intrinsicCalls(item)...)
		}
	}
	return calls
}

// singlePassOfIntrinsics recognizes a machine of one Pass state whose only data-flow field is
// Parameters, an object of "key.$": intrinsic call fields.
func singlePassOfIntrinsics(definition map[string]any) (string, map[string]any, bool) {
	states, _ := definition["States"].(map[string]any)
	if len(states) != 1 {
		return "", nil, false
	}
	for name, s := range states {
		state, _ := s.(map[string]any)
		parameters, _ := state["Parameters"].(map[string]any)
		if state["Type"] != "Pass" || len(parameters) == 0 {
			return "", nil, false
		}
		for _, field := range []string{"InputPath", "ResultPath", "OutputPath", "Result"} {
			if _, set := state[field]; set {
				return "", nil, false
			}
		}
		for key, value := range parameters {
			if s, ok := value.(string); !ok || !strings.HasSuffix(key, ".$") || !IsIntrinsic(s) {
				return "", nil, false
			}
		}
		return name, parameters, true
	}
	return "", nil, false
}

// checkPassState evaluates the Parameters and compares them with the recorded output, or the
// recorded failure once wrapped as Error's doc comment says (the first state is entered at
// event #2).
func checkPassState(c conformanceCase, stateName string, parameters map[string]any) error {
	resolve := NewResolver(c.input, func() any { return jsonvalue.Of("Execution", jsonvalue.Of("Input", c.input)) })
	output := jsonvalue.NewObject(len(parameters))
	for _, key := range sortedKeys(parameters) {
		e, err := Parse(parameters[key].(string))
		if err != nil {
			return err
		}
		v, err := e.Evaluate(resolve, Env{})
		var failed *Error
		switch {
		case errors.As(err, &failed):
			if c.status != "FAILED" || failed.Name != c.errorName || failed.Cause(stateName, 2) != c.cause {
				return fmt.Errorf("%s: got %s %q, want %s: %s %q", key, failed.Name, failed.Cause(stateName, 2), c.status, c.errorName, c.cause)
			}
			return nil
		case err != nil:
			return fmt.Errorf("%s: %w", key, err)
		}
		output.SetValueForKey(strings.TrimSuffix(key, ".$"), v)
	}
	if c.status != "SUCCEEDED" || !sameValue(jsonvalue.ToGeneric(output), c.output) {
		return fmt.Errorf("got SUCCEEDED %s, want %s %s (error %q, cause %q)",
			appendJSON(nil, output), c.status, appendJSON(nil, jsonvalue.FromGeneric(c.output)), c.errorName, c.cause)
	}
	return nil
}

// sameValue compares JSON values as the conformance README says: numbers by value, everything
// else exactly.
func sameValue(a, b any) bool {
	if x, ok := toFloat(a); ok {
		y, ok := toFloat(b)
		return ok && x == y
	}
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		return ok && slices.EqualFunc(x, y, sameValue)
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if w, found := y[k]; !found || !sameValue(v, w) {
				return false
			}
		}
		return true
	default:
		return a == b
	}
}

func sortedKeys(m map[string]any) []string {
	return slices.Sorted(maps.Keys(m))
}

func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	default:
		return 0, false
	}
}
