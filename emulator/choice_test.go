package emulator

import (
	"strings"
	"testing"
)

func TestChoiceOperators(t *testing.T) {
	em := newEmulator(t, 0)
	tests := []struct {
		rule  string // a rule without Next
		input string
		want  bool
	}{
		{`"Variable":"$.v","StringEquals":"abc"`, `{"v":"abc"}`, true},
		{`"Variable":"$.v","StringEquals":"abc"`, `{"v":1}`, false},
		{`"Variable":"$.v","StringLessThan":"b"`, `{"v":"a"}`, true},
		{`"Variable":"$.v","StringGreaterThanEquals":"b"`, `{"v":"b"}`, true},
		{`"Variable":"$.v","StringEqualsPath":"$.w"`, `{"v":"x","w":"x"}`, true},
		{`"Variable":"$.v","StringMatches":"log-*.txt"`, `{"v":"log-2024.txt"}`, true},
		{`"Variable":"$.v","StringMatches":"log-*.txt"`, `{"v":"log-2024.csv"}`, false},
		{`"Variable":"$.v","StringMatches":"a\\*b"`, `{"v":"a*b"}`, true},
		{`"Variable":"$.v","StringMatches":"a\\*b"`, `{"v":"axxb"}`, false},
		{`"Variable":"$.v","StringMatches":"a\\\\*"`, `{"v":"a\\tail"}`, true},
		{`"Variable":"$.v","StringMatches":"*"`, `{"v":""}`, true},
		{`"Variable":"$.v","NumericEquals":1`, `{"v":1.0}`, true},
		{`"Variable":"$.v","NumericLessThan":1.5`, `{"v":1}`, true},
		{`"Variable":"$.v","NumericGreaterThanPath":"$.w"`, `{"v":3,"w":2}`, true},
		{`"Variable":"$.v","NumericEquals":1`, `{"v":"1"}`, false},
		{`"Variable":"$.v","BooleanEquals":true`, `{"v":true}`, true},
		{`"Variable":"$.v","BooleanEqualsPath":"$.w"`, `{"v":false,"w":true}`, false},
		{`"Variable":"$.v","TimestampEquals":"2016-03-14T01:59:00Z"`, `{"v":"2016-03-14T02:59:00+01:00"}`, true},
		{`"Variable":"$.v","TimestampLessThan":"2016-03-14T01:59:00Z"`, `{"v":"2016-03-14T01:58:59.999Z"}`, true},
		{`"Variable":"$.v","TimestampGreaterThanPath":"$.w"`, `{"v":"2020-01-01T00:00:00Z","w":"2019-01-01T00:00:00Z"}`, true},
		{`"Variable":"$.v","TimestampEquals":"2016-03-14T01:59:00Z"`, `{"v":"2016-03-14 01:59:00"}`, false},
		{`"Variable":"$.v","IsPresent":false`, `{}`, true},
		{`"Variable":"$.v","IsNull":true`, `{"v":null}`, true},
		{`"Variable":"$.v","IsNumeric":true`, `{"v":"1"}`, false},
		{`"Variable":"$.v","IsString":true`, `{"v":"1"}`, true},
		{`"Variable":"$.v","IsBoolean":false`, `{"v":1}`, true},
		{`"Variable":"$.v","IsTimestamp":true`, `{"v":"2016-03-14T01:59:00Z"}`, true},
		{`"Variable":"$.v","IsTimestamp":true`, `{"v":"2016-03-14"}`, false},
		{`"And":[{"Variable":"$.v","NumericGreaterThan":1},{"Variable":"$.v","NumericLessThan":3}]`, `{"v":2}`, true},
		{`"Or":[{"Variable":"$.v","NumericEquals":1},{"Variable":"$.v","NumericEquals":3}]`, `{"v":2}`, false},
		{`"Not":{"Variable":"$.v","StringEquals":"Private"}`, `{"v":"Public"}`, true},
		{`"Variable":"$$.Execution.Input.v","StringEquals":"ctx"`, `{"v":"ctx"}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.rule+" "+tt.input, func(t *testing.T) {
			got := runMachine(t, em, `{"StartAt":"C","States":{"C":{"Type":"Choice","Choices":[{`+tt.rule+`,"Next":"Yes"}],"Default":"No"},
"Yes":{"Type":"Pass","Result":true,"End":true},"No":{"Type":"Pass","Result":false,"End":true}}}`, tt.input)
			if got.Status != StatusSucceeded {
				t.Fatalf("status %s: %s", got.Status, deref(got.Cause))
			}
			if want := map[bool]string{true: "true", false: "false"}[tt.want]; *got.Output != want {
				t.Errorf("got %s, want %s", *got.Output, want)
			}
		})
	}
}

func TestChoiceFailures(t *testing.T) {
	em := newEmulator(t, 0)
	tests := []struct {
		name, choice, input, wantError, wantCause string
	}{
		{"no rule matches and no Default", `"Choices":[{"Variable":"$.v","NumericEquals":1,"Next":"Yes"}]`, `{"v":2}`,
			"States.NoChoiceMatched", "No choice rule matched"},
		{"missing variable", `"Choices":[{"Variable":"$.type","StringEquals":"Private","Next":"Yes"}],"Default":"Yes"`, `{}`,
			"States.Runtime", "Invalid path '$.type': The choice state's condition path references an invalid value."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runMachine(t, em, `{"StartAt":"C","States":{"C":{"Type":"Choice",`+tt.choice+`},"Yes":{"Type":"Succeed"}}}`, tt.input)
			if got.Status != StatusFailed || deref(got.Error) != tt.wantError || !strings.Contains(deref(got.Cause), tt.wantCause) {
				t.Fatalf("got %s %s %q, want FAILED %s containing %q", got.Status, deref(got.Error), deref(got.Cause), tt.wantError, tt.wantCause)
			}
		})
	}
}

func TestCompareUTF16(t *testing.T) {
	tests := []struct {
		a, b string
		want int // sign
	}{
		{"a", "b", -1},
		{"b", "a", 1},
		{"ab", "a", 1},
		{"same", "same", 0},
		// U+FFFD sorts after U+1F600 in UTF-8 but before it in UTF-16, as Java compares.
		{"\uFFFD", "\U0001F600", 1},
	}
	for _, tt := range tests {
		got := compareUTF16(tt.a, tt.b)
		if sign(got) != tt.want {
			t.Errorf("compareUTF16(%q, %q) = %d, want sign %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}
