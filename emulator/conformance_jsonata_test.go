package emulator

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// jsonataConformanceDir holds the JSONata and variables cases recorded against AWS Step
// Functions (see its README).
const jsonataConformanceDir = "../../shared/conformance/aws-recorded-jsonata"

// jsonataKnownDifferences lists the recorded cases the emulator does not reproduce yet, each with
// the reason. A listed case that passes fails the test, so that the list only shrinks.
var jsonataKnownDifferences = map[string]string{}

// TestConformanceJSONata runs every JSONata and variables case, one subtest group per folder,
// and compares status, output (by value: JSONata builds objects without a member order), error,
// cause and the state-level history with assigned variables and EvaluationFailed events.
func TestConformanceJSONata(t *testing.T) {
	em := New(Options{Clock: NewScaledClock(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), 0)})
	defer em.Close()
	em.RegisterIntegration(unexpectedLambda{})
	passed, total, summary := forEachCase(t, jsonataConformanceDir, func(t *testing.T, c conformanceCase) bool {
		pass := false
		t.Run(c.ID, func(t *testing.T) {
			problems := checkCase(t, em, c, false)
			reason, known := jsonataKnownDifferences[c.ID]
			switch {
			case len(problems) == 0 && known:
				t.Errorf("passes but is listed as a known difference (%s): remove it from jsonataKnownDifferences", reason)
			case len(problems) == 0:
				pass = true
			case known:
				t.Logf("known difference (%s):\n%s", reason, strings.Join(problems, "\n"))
			default:
				for _, p := range problems {
					t.Error(p)
				}
			}
		})
		return pass
	})
	t.Logf("JSONata conformance: %d/%d passed, %d known differences (%s)", passed, total, len(jsonataKnownDifferences), summary)
}

// unexpectedLambda stands in for Lambda in the cases whose Task fails to evaluate its Arguments
// before any invocation: it fails the task if it is invoked.
type unexpectedLambda struct{}

// Supports reports the Lambda invoke integration.
func (unexpectedLambda) Supports(resource string) bool {
	return resource == "arn:aws:states:::lambda:invoke"
}

// Invoke fails: the recorded cases never reach the invocation.
func (unexpectedLambda) Invoke(context.Context, *TaskCall) (any, error) {
	return nil, errors.New("the recorded case was not expected to invoke a Lambda function")
}

// The JSONata recordings replaced some timestamps with a placeholder: "date" for a value of
// RFC 3339 form (the date, "T", the time, an optional fraction, "Z" or an offset) and
// "timestamp" for the value a Wait's Timestamp reads, valid or not. Every masked value is one the
// case itself supplies (a member of the input, or an Assign literal of the definition) and that
// the state machine passes on unchanged, so a placeholder matches the emulator's value only when
// that value is a string the case supplies under the same member name, and, for "date", is of
// RFC 3339 form.
const (
	placeholderDate      = "date"
	placeholderTimestamp = "timestamp"
)

// rfc3339Form is the form the recordings masked as "date".
var rfc3339Form = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$`)

// suppliedStrings maps each member name of the case's input and definition to the string values
// it has there.
func suppliedStrings(t *testing.T, c conformanceCase) map[string][]string {
	out := map[string][]string{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if s, ok := e.(string); ok {
					out[k] = append(out[k], s)
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(decode(t, c.Definition))
	if len(c.Input) > 0 {
		walk(decode(t, c.Input))
	}
	return out
}

// unmaskTimestamps returns want with each placeholder that stands for got's value at the same
// place replaced by that value (see placeholderDate); everything else is left as recorded, so
// that the comparison that follows reports any difference.
func unmaskTimestamps(want, got any, supplied map[string][]string) any {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return want
		}
		out := make(map[string]any, len(w))
		for k, v := range w {
			gv, present := g[k]
			switch {
			case !present:
				out[k] = v
			case maskedBy(v, gv, supplied[k]):
				out[k] = gv
			default:
				out[k] = unmaskTimestamps(v, gv, supplied)
			}
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return want
		}
		out := make([]any, len(w))
		for i := range w {
			out[i] = unmaskTimestamps(w[i], g[i], supplied)
		}
		return out
	}
	return want
}

// maskedBy reports whether the recorded value want is a placeholder for got, a string the case
// supplies under the member's name (in supplied).
func maskedBy(want, got any, supplied []string) bool {
	placeholder, ok := want.(string)
	if !ok || (placeholder != placeholderDate && placeholder != placeholderTimestamp) {
		return false
	}
	s, ok := got.(string)
	if !ok || !slices.Contains(supplied, s) {
		return false
	}
	if placeholder == placeholderDate {
		if _, err := time.Parse(time.RFC3339Nano, s); err != nil || !rfc3339Form.MatchString(s) {
			return false
		}
	}
	return true
}

// TestUnmaskTimestamps checks the placeholder rule: a placeholder matches only a value the case
// supplies under the same member name, and "date" only one of RFC 3339 form.
func TestUnmaskTimestamps(t *testing.T) {
	supplied := map[string][]string{
		"TimestampValue": {"2016-03-14T01:59:00Z", "05-12-2016T21:29:29Z"},
		"startAt":        {"2024-11-06T09:42:03Z"},
	}
	for _, tc := range []struct {
		name      string
		want, got string
		match     bool
	}{
		{"date for a supplied timestamp", `{"TimestampValue":"date"}`, `{"TimestampValue":"2016-03-14T01:59:00Z"}`, true},
		{"date in a nested variable", `[{"assignedVariables":{"startAt":"date","n":0}}]`, `[{"assignedVariables":{"startAt":"2024-11-06T09:42:03Z","n":0}}]`, true},
		{"timestamp for a supplied invalid value", `{"TimestampValue":"timestamp"}`, `{"TimestampValue":"05-12-2016T21:29:29Z"}`, true},
		{"date for a value not of RFC 3339 form", `{"TimestampValue":"date"}`, `{"TimestampValue":"05-12-2016T21:29:29Z"}`, false},
		{"date for a timestamp the case does not supply", `{"TimestampValue":"date"}`, `{"TimestampValue":"2016-03-14T01:59:01Z"}`, false},
		{"date under another member", `{"other":"date"}`, `{"other":"2016-03-14T01:59:00Z"}`, false},
		{"date for a number", `{"TimestampValue":"date"}`, `{"TimestampValue":1}`, false},
		{"other strings compare as they are", `{"TimestampValue":"now"}`, `{"TimestampValue":"2016-03-14T01:59:00Z"}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, got := decode(t, []byte(tc.want)), decode(t, []byte(tc.got))
			if match := sameJSON(unmaskTimestamps(want, got, supplied), got); match != tc.match {
				t.Errorf("%s against %s: match %v, want %v", tc.want, tc.got, match, tc.match)
			}
		})
	}
}
