package emulator

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// jsonataConformanceDir holds the JSONata and variables cases recorded against AWS Step
// Functions (see its README).
const jsonataConformanceDir = "../../shared/conformance/aws-recorded-jsonata"

// jsonataKnownDifferences lists the recorded cases the emulator does not reproduce yet, each with
// the reason. A listed case that passes fails the test, so that the list only shrinks.
var jsonataKnownDifferences = map[string]string{
	// AWS accepts the distributed-Map fields ToleratedFailureCount/Percentage on an inline Map
	// (these recordings); the Developer Guide documents them for the distributed Map only, so
	// the emulator reports them as unsupported rather than guess their inline meaning.
	"jsonata-map--base-map-from-input-tolerated-failure-count":      "ToleratedFailureCount not modelled for inline Map",
	"jsonata-map--base-map-from-input-tolerated-failure-percentage": "ToleratedFailurePercentage not modelled for inline Map",
	"jsonata-map--base-map-tolerated-failure-percentage":            "ToleratedFailurePercentage not modelled for inline Map",
	// The recording replaced the timestamp assigned to a variable with a placeholder ("date").
	"jsonata-variables--reference-assign-base-reference-in-wait": "recording masked the timestamp in assignedVariables",
	// The recording replaced the timestamps of the state input and output with placeholders
	// ("date", "timestamp"); the cause and status match.
	"jsonata-wait--wait-timestamp-jsonata-invalid-iso": "recording masked the timestamp in the history",
	"jsonata-wait--wait-timestamp-jsonata-no-t":        "recording masked the timestamp in the history",
	"jsonata-wait--wait-timestamp-jsonata-no-z":        "recording masked the timestamp in the history",
	"jsonata-wait--wait-timestamp-jsonata-seconds":     "recording masked the timestamp in the output and history",
}

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
