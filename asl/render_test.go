package asl_test

import (
	"bytes"
	"testing"

	"github.com/turnstile-sfn/turnstile/asl"
)

// sample builds a machine that uses every kind of state and the optional fields whose absence,
// nullness and value must survive a round trip.
func sample() *asl.StateMachine {
	return &asl.StateMachine{
		Comment:        "every state type",
		StartAt:        "Prepare",
		TimeoutSeconds: asl.Int(300),
		States: asl.States{
			{Name: "Prepare", State: &asl.Pass{
				Common:     asl.Common{InputPath: asl.P("$.in"), OutputPath: asl.P("$")},
				Parameters: map[string]any{"b": int64(2), "a.$": "$.x", "nested": map[string]any{"z": true, "y": nil}},
				ResultPath: asl.NullPath(),
				Transition: asl.Next("Work"),
			}},
			{Name: "Work", State: &asl.Task{
				Resource:       "arn:aws:states:::dynamodb:updateItem",
				Parameters:     map[string]any{"TableName": "${LockTable}"},
				ResultSelector: map[string]any{"count.$": "$.Attributes.count.N"},
				ResultPath:     asl.P("$.result"),
				TimeoutSeconds: asl.Int(10),
				Retry: []*asl.Retrier{
					{ErrorEquals: []string{"DynamoDB.ThrottlingException"}, IntervalSeconds: asl.Int(1), MaxAttempts: asl.Int(0), BackoffRate: asl.Float(1.5), MaxDelaySeconds: asl.Int(5), JitterStrategy: asl.JitterFull},
					{ErrorEquals: []string{asl.ErrorAll}},
				},
				Catch:      []*asl.Catcher{{ErrorEquals: []string{asl.ErrorAll}, Next: "Failed", ResultPath: asl.P("$.error")}},
				Transition: asl.Next("Route"),
			}},
			{Name: "Route", State: &asl.Choice{
				Choices: []*asl.ChoiceRule{
					{And: []*asl.ChoiceRule{
						{Variable: "$.n", Operator: "NumericGreaterThan", Value: int64(1)},
						{Not: &asl.ChoiceRule{Variable: "$.s", Operator: "StringMatches", Value: "a*"}},
					}, Next: "Fan"},
				},
				Default: "Sleep",
			}},
			{Name: "Sleep", State: &asl.Wait{SecondsPath: "$.wait", Transition: asl.Next("Fan")}},
			{Name: "Fan", State: &asl.Parallel{
				Branches:   []*asl.Graph{{StartAt: "One", States: asl.States{{Name: "One", State: &asl.Succeed{}}}}},
				Transition: asl.Next("Each"),
			}},
			{Name: "Each", State: &asl.Map{
				ItemsPath:      asl.P("$.items"),
				ItemSelector:   map[string]any{"v.$": "$$.Map.Item.Value"},
				MaxConcurrency: asl.Int(2),
				ItemProcessor: &asl.ItemProcessor{
					ProcessorConfig: &asl.ProcessorConfig{Mode: "INLINE"},
					Graph:           asl.Graph{StartAt: "Item", States: asl.States{{Name: "Item", State: &asl.Pass{Transition: asl.End()}}}},
				},
				Transition: asl.Next("Done"),
			}},
			{Name: "Done", State: &asl.Succeed{}},
			{Name: "Failed", State: &asl.Fail{ErrorPath: "$.error.Error", CausePath: "$.error.Cause"}},
		},
	}
}

func TestRenderIsDeterministicAndOrdered(t *testing.T) {
	first, err := sample().Render()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		again, err := sample().Render()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first, again) {
			t.Fatalf("render %d differs:\n%s\n%s", i, first, again)
		}
	}
	// States keep their declared order; "Type" leads every state; map keys are sorted.
	wantOrder := []string{`"Prepare":{"Type":"Pass","InputPath":"$.in","Parameters":{"a.$":"$.x","b":2,"nested":{"y":null,"z":true}},"ResultPath":null,"OutputPath":"$","Next":"Work"}`,
		`"Work":{"Type":"Task"`, `"Route":{"Type":"Choice"`, `"Failed":{"Type":"Fail","ErrorPath":"$.error.Error","CausePath":"$.error.Cause"}`}
	last := -1
	for _, w := range wantOrder {
		i := bytes.Index(first, []byte(w))
		if i < 0 {
			t.Fatalf("rendering lacks %s:\n%s", w, first)
		}
		if i < last {
			t.Errorf("%s is out of order", w)
		}
		last = i
	}
}

func TestRenderParseRoundTrip(t *testing.T) {
	m := sample()
	if err := m.Validate(); err != nil {
		t.Fatalf("sample is invalid: %v", err)
	}
	doc, err := m.RenderIndent()
	if err != nil {
		t.Fatal(err)
	}
	back, err := asl.Parse(doc)
	if err != nil {
		t.Fatalf("Parse(Render()) = %v\n%s", err, doc)
	}
	again, err := back.RenderIndent()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(doc, again) {
		t.Errorf("round trip changed the document:\n got: %s\nwant: %s", again, doc)
	}
	task := back.States.Get("Work").(*asl.Task)
	if got, want := task.Retry[0].Attempts(), 0; got != want {
		t.Errorf("MaxAttempts 0 became %d", got)
	}
	if got, want := task.Retry[1].Attempts(), asl.DefaultMaxAttempts; got != want {
		t.Errorf("default MaxAttempts = %d, want %d", got, want)
	}
	if p := back.States.Get("Prepare").(*asl.Pass).ResultPath; p == nil || !p.Null {
		t.Errorf("ResultPath null became %+v", p)
	}
}

func TestSuccessors(t *testing.T) {
	m := sample()
	got := asl.Successors(m.States.Get("Work"))
	want := []string{"Route", "Failed"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("Successors(Work) = %v, want %v", got, want)
	}
}

func TestRenderDoesNotEscapeHTML(t *testing.T) {
	m := &asl.StateMachine{StartAt: "A", States: asl.States{{Name: "A", State: &asl.Pass{
		Parameters: map[string]any{"expr": "#count < :limit AND a > b & c"}, Transition: asl.End()}}}}
	doc, err := m.Render()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(doc, []byte(`"#count < :limit AND a > b & c"`)) {
		t.Errorf("Render escaped HTML characters: %s", doc)
	}
}
