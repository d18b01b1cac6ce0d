package asl_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/turnstile-sfn/turnstile/asl"
)

func TestValidateReportsStateAndField(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want []string // fragments of the error message
	}{
		{"missing StartAt target", `{"StartAt":"Nope","States":{"A":{"Type":"Succeed"}}}`,
			[]string{`field StartAt: names no state of this graph: "Nope"`}},
		{"unreachable state", `{"StartAt":"A","States":{"A":{"Type":"Succeed"},"B":{"Type":"Succeed"}}}`,
			[]string{`state "B": is not reachable from StartAt`}},
		{"both Next and End", `{"StartAt":"A","States":{"A":{"Type":"Pass","Next":"B","End":true},"B":{"Type":"Succeed"}}}`,
			[]string{`state "A", field Next: a state has either Next or End, not both`}},
		{"neither Next nor End", `{"StartAt":"A","States":{"A":{"Type":"Pass"}}}`,
			[]string{`state "A", field Next: a non-terminal state needs Next or End`}},
		{"Next to nowhere", `{"StartAt":"A","States":{"A":{"Type":"Pass","Next":"Z"}}}`,
			[]string{`state "A", field Next: names no state of this graph: "Z"`}},
		{"Catch target missing", `{"StartAt":"A","States":{"A":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","End":true,"Catch":[{"ErrorEquals":["States.ALL"],"Next":"Gone"}]}}}`,
			[]string{`state "A", field Catch[0].Next: names no state of this graph: "Gone"`}},
		{"States.ALL not last", `{"StartAt":"A","States":{"A":{"Type":"Task","Resource":"r","End":true,"Retry":[{"ErrorEquals":["States.ALL"]},{"ErrorEquals":["X"]}]}}}`,
			[]string{`field Retry[0].ErrorEquals: States.ALL must appear alone, in the last element`}},
		{"bad retrier numbers", `{"StartAt":"A","States":{"A":{"Type":"Task","Resource":"r","End":true,"Retry":[{"ErrorEquals":["X"],"MaxAttempts":-1,"BackoffRate":0.5,"JitterStrategy":"SOME"}]}}}`,
			[]string{"Retry[0].MaxAttempts: must be >= 0, got -1", "Retry[0].BackoffRate: must be >= 1.0, got 0.5", `Retry[0].JitterStrategy: must be FULL or NONE, got "SOME"`}},
		{"Next cannot leave a branch", `{"StartAt":"P","States":{"P":{"Type":"Parallel","End":true,"Branches":[{"StartAt":"In","States":{"In":{"Type":"Pass","Next":"P"}}}]}}}`,
			[]string{`state "P/Branches[0]/In", field Next: names no state of this graph: "P"`}},
		{"Wait needs exactly one field", `{"StartAt":"W","States":{"W":{"Type":"Wait","Seconds":1,"SecondsPath":"$.s","End":true}}}`,
			[]string{"exactly one of Seconds, Timestamp, SecondsPath and TimestampPath is required, got 2"}},
		{"choice rule without Next", `{"StartAt":"C","States":{"C":{"Type":"Choice","Choices":[{"Variable":"$.x","NumericEquals":1}],"Default":"D"},"D":{"Type":"Succeed"}}}`,
			[]string{`field Choices[0].Next: is required`}},
		{"choice value of the wrong type", `{"StartAt":"C","States":{"C":{"Type":"Choice","Choices":[{"Variable":"$.x","NumericEquals":"1","Next":"D"}]},"D":{"Type":"Succeed"}}}`,
			[]string{`field Choices[0].NumericEquals: has a value of the wrong type: 1`}},
		{"template path", `{"StartAt":"A","States":{"A":{"Type":"Pass","Parameters":{"x.$":"nope"},"End":true}}}`,
			[]string{`field Parameters.x.$: a field ending in .$ must hold a path or an intrinsic function`}},
		{"Map without processor", `{"StartAt":"M","States":{"M":{"Type":"Map","End":true}}}`,
			[]string{`state "M", field ItemProcessor: is required`}},
		{"Task without resource", `{"StartAt":"T","States":{"T":{"Type":"Task","End":true}}}`,
			[]string{`state "T", field Resource: is required`}},
		{"tolerated failure thresholds out of range", `{"StartAt":"M","States":{"M":{"Type":"Map","ToleratedFailureCount":-1,"ToleratedFailurePercentage":101,"ItemProcessor":{"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}},"End":true}}}`,
			[]string{`field ToleratedFailureCount: must be a non-negative integer, got -1`, `field ToleratedFailurePercentage: must be a number from 0 to 100, got 101`}},
		{"tolerated failure count and its path", `{"StartAt":"M","States":{"M":{"Type":"Map","ToleratedFailureCount":1,"ToleratedFailureCountPath":"$.n","ItemProcessor":{"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}},"End":true}}}`,
			[]string{`ToleratedFailureCountPath`}},
		{"tolerated failure expression in a JSONPath state", `{"StartAt":"M","States":{"M":{"Type":"Map","ToleratedFailurePercentage":"{% 5 %}","ToleratedFailureCountPath":"n","ItemProcessor":{"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}},"End":true}}}`,
			[]string{`field ToleratedFailurePercentage: the field ToleratedFailurePercentage is not supported when QueryLanguage is JSONPath`, `field ToleratedFailureCountPath: must be a path starting with $, got "n"`}},
		{"ResultPath into the context", `{"StartAt":"A","States":{"A":{"Type":"Pass","ResultPath":"$$.x","End":true}}}`,
			[]string{`field ResultPath: cannot write to the context object`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := asl.Parse([]byte(tc.doc))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			err = m.Validate()
			if err == nil {
				t.Fatal("Validate() = nil, want an error")
			}
			if !errors.Is(err, asl.ErrInvalidDefinition) {
				t.Errorf("error %v does not wrap ErrInvalidDefinition", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nwant it to contain %q", err, w)
				}
			}
			var de *asl.DefinitionError
			if !errors.As(err, &de) {
				t.Errorf("error %v holds no *DefinitionError", err)
			}
		})
	}
}

func TestParseRejectsBadDocuments(t *testing.T) {
	tests := []struct {
		name, doc, want string
		kind            error
	}{
		{"not an object", `[1]`, "the definition must be a JSON object", asl.ErrInvalidDefinition},
		{"unknown field", `{"StartAt":"A","States":{"A":{"Type":"Pass","End":true,"Nxet":"B"}}}`, `state "A", field Nxet: unknown field`, asl.ErrInvalidDefinition},
		{"unknown type", `{"StartAt":"A","States":{"A":{"Type":"Sleep","End":true}}}`, `state "A", field Type: unknown state type "Sleep"`, asl.ErrInvalidDefinition},
		{"wrong field type", `{"StartAt":"A","States":{"A":{"Type":"Wait","Seconds":true,"End":true}}}`, `state "A", field Seconds: must be an integer or a JSONata expression, got true`, asl.ErrInvalidDefinition},
		{"duplicate state", `{"StartAt":"A","States":{"A":{"Type":"Succeed"},"A":{"Type":"Succeed"}}}`, `duplicate key "A"`, asl.ErrInvalidDefinition},
		{"Fail has no InputPath", `{"StartAt":"F","States":{"F":{"Type":"Fail","InputPath":"$"}}}`, `state "F", field InputPath: unknown field`, asl.ErrInvalidDefinition},
		{"query language", `{"QueryLanguage":"XPath","StartAt":"A","States":{"A":{"Type":"Succeed"}}}`, `field QueryLanguage: must be "JSONPath" or "JSONata", got "XPath"`, asl.ErrInvalidDefinition},
		{"two comparisons", `{"StartAt":"C","States":{"C":{"Type":"Choice","Choices":[{"Variable":"$.x","IsNull":true,"IsPresent":true,"Next":"D"}]},"D":{"Type":"Succeed"}}}`, "a rule has one comparison", asl.ErrInvalidDefinition},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := asl.Parse([]byte(tc.doc))
			if err == nil {
				t.Fatal("Parse() = nil error, want one")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q\nwant it to contain %q", err, tc.want)
			}
			if !errors.Is(err, tc.kind) {
				t.Errorf("error %v does not wrap %v", err, tc.kind)
			}
		})
	}
}

// TestValidateAcceptsDocsBracketPath accepts the bracket-notation example of the Step Functions
// "Paths" page, $.abc.['def ghi'], in the path fields and in a payload template.
func TestValidateAcceptsDocsBracketPath(t *testing.T) {
	const def = `{"StartAt":"P","States":{"P":{"Type":"Pass","InputPath":"$.abc.['def ghi']",
		"Parameters":{"v.$":"$.abc.['def ghi'].v"},"ResultPath":"$.abc.['def ghi']","OutputPath":"$.abc.['def ghi']","End":true}}}`
	m, err := asl.Parse([]byte(def))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if err := m.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
}

// TestValidateQueryLanguageFields rejects the fields of the other query language, state by state,
// and accepts a JSONata machine with variables.
func TestValidateQueryLanguageFields(t *testing.T) {
	tests := []struct{ name, doc, want string }{
		{"InputPath in JSONata", `{"QueryLanguage":"JSONata","StartAt":"A","States":{"A":{"Type":"Pass","InputPath":"$.x","End":true}}}`,
			`state "A", field InputPath: the field InputPath is not supported when QueryLanguage is JSONata`},
		{"Output in JSONPath", `{"StartAt":"A","States":{"A":{"Type":"Pass","Output":1,"End":true}}}`,
			`state "A", field Output: the field Output is not supported when QueryLanguage is JSONPath`},
		{"Condition in a JSONPath state of a JSONata machine", `{"QueryLanguage":"JSONata","StartAt":"C","States":{"C":{"Type":"Choice","QueryLanguage":"JSONPath","Choices":[{"Condition":true,"Next":"D"}]},"D":{"Type":"Succeed"}}}`,
			`field Choices[0].Condition: the field Choices[0].Condition is not supported when QueryLanguage is JSONPath`},
		{"Seconds not an expression", `{"QueryLanguage":"JSONata","StartAt":"W","States":{"W":{"Type":"Wait","Seconds":"10","End":true}}}`,
			`field Seconds: must be an integer or a JSONata expression, got "10"`},
		{"valid", `{"QueryLanguage":"JSONata","StartAt":"A","States":{"A":{"Type":"Pass","Assign":{"x":"{% $states.input %}"},"Output":"{% $x %}","Next":"W"},
			"W":{"Type":"Wait","Seconds":"{% 1 %}","Next":"C"},"C":{"Type":"Choice","Choices":[{"Condition":"{% $x %}","Assign":{"y":1},"Next":"D"}],"Default":"D"},"D":{"Type":"Succeed"}}}`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := asl.Parse([]byte(tc.doc))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			err = m.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Validate: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("Validate() = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
