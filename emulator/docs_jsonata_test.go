package emulator

import (
	"context"
	"errors"
	"testing"
)

// TestDocsJSONataConversionExample runs the example of the Developer Guide page "Transforming
// data with JSONata in Step Functions": a Task's JSONPath Parameters and their JSONata Arguments
// conversion, given the input {"title":"Doctor"} and the variable customerName assigned "María",
// both produce the same result.
func TestDocsJSONataConversionExample(t *testing.T) {
	const resource = "arn:aws:states:::example:echo"
	em := newEmulator(t, 0, newFake().handle(resource, func(_ context.Context, call *TaskCall) (any, error) {
		return call.Parameters, nil
	}))
	const want = `{"static":"Hello","title":"Doctor","name":"María","not-evaluated":"$customerName"}`
	definitions := map[string]string{
		"JSONPath": `{"StartAt":"Name","States":{
			"Name":{"Type":"Pass","Assign":{"customerName":"María"},"Next":"Task"},
			"Task":{"QueryLanguage":"JSONPath","Type":"Task","Resource":"` + resource + `","Parameters":{
				"static":"Hello","title.$":"$.title","name.$":"$customerName","not-evaluated":"$customerName"},"End":true}}}`,
		"JSONata": `{"QueryLanguage":"JSONata","StartAt":"Name","States":{
			"Name":{"Type":"Pass","Assign":{"customerName":"María"},"Next":"Task"},
			"Task":{"QueryLanguage":"JSONata","Type":"Task","Resource":"` + resource + `","Arguments":{
				"static":"Hello","title":"{% $states.input.title %}","name":"{% $customerName %}","not-evaluated":"$customerName"},"End":true}}}`,
	}
	for name, def := range definitions {
		t.Run(name, func(t *testing.T) {
			got := runMachine(t, em, def, `{"title":"Doctor"}`)
			if got.Status != StatusSucceeded {
				t.Fatalf("status: got %s (%s: %s), want SUCCEEDED", got.Status, deref(got.Error), deref(got.Cause))
			}
			if !sameJSON(decode(t, []byte(*got.Output)), decode(t, []byte(want))) {
				t.Errorf("output: got %s, want %s", *got.Output, want)
			}
		})
	}
}

// TestJSONataCatchAndScopes checks a JSONata Catch (its Output and Assign see
// $states.errorOutput) and the variable scopes: a Map iteration reads the outer variables, and
// what it assigns does not outlive it.
func TestJSONataCatchAndScopes(t *testing.T) {
	const failing = "arn:aws:states:::example:fail"
	em := newEmulator(t, 0, newFake().handle(failing, func(context.Context, *TaskCall) (any, error) {
		return nil, errors.New("boom")
	}))
	def := `{"QueryLanguage":"JSONata","StartAt":"Set","States":{
		"Set":{"Type":"Pass","Assign":{"base":10},"Next":"Work"},
		"Work":{"Type":"Task","Resource":"` + failing + `","Catch":[{"ErrorEquals":["States.ALL"],
			"Assign":{"caught":"{% $states.errorOutput.Error %}"},"Output":{"cause":"{% $states.errorOutput.Cause %}"},"Next":"Map"}],"End":true},
		"Map":{"Type":"Map","Items":[1,2],"ItemProcessor":{"StartAt":"Add","States":{
			"Add":{"Type":"Pass","Assign":{"inner":"{% $states.input + $base %}"},"Output":"{% $states.input + $base %}","End":true}}},
			"Output":{"sums":"{% $states.result %}","caught":"{% $caught %}","innerVisible":"{% $exists($inner) %}"},"End":true}}}`
	got := runMachine(t, em, def, `{}`)
	if got.Status != StatusSucceeded {
		t.Fatalf("status: got %s (%s: %s), want SUCCEEDED", got.Status, deref(got.Error), deref(got.Cause))
	}
	const want = `{"sums":[11,12],"caught":"States.TaskFailed","innerVisible":false}`
	if !sameJSON(decode(t, []byte(*got.Output)), decode(t, []byte(want))) {
		t.Errorf("output: got %s, want %s", *got.Output, want)
	}
}

// TestRedriveKeepsVariables redrives a JSONata execution that failed after assigning a variable:
// the resumed run still reads it.
func TestRedriveKeepsVariables(t *testing.T) {
	const flaky = "arn:aws:states:::example:flaky"
	em := newEmulator(t, 0, newFake().handle(flaky, failing("Work.Crashed")))
	first := runMachine(t, em, `{"QueryLanguage":"JSONata","StartAt":"Set","States":{
		"Set":{"Type":"Pass","Assign":{"x":"{% $states.input.order %}"},"Next":"Flaky"},
		"Flaky":{"Type":"Task","Resource":"`+flaky+`","Next":"Use"},
		"Use":{"Type":"Pass","Output":{"x":"{% $x %}"},"End":true}}}`, `{"order":7}`)
	if first.Status != StatusFailed {
		t.Fatalf("first run: got %s, want FAILED", first.Status)
	}
	ctx := context.Background()
	if _, err := em.RedriveExecution(ctx, first.ExecutionArn); err != nil {
		t.Fatal(err)
	}
	done, err := em.Wait(ctx, first.ExecutionArn)
	if err != nil || done.Status != StatusSucceeded {
		t.Fatalf("after the redrive: got %v %s %s", err, done.Status, deref(done.Cause))
	}
	if want := `{"x":7}`; !sameJSON(decode(t, []byte(*done.Output)), decode(t, []byte(want))) {
		t.Errorf("output: got %s, want %s", *done.Output, want)
	}
}

// TestJSONataStepFunctionsFunctions checks $hash and $uuid, the functions Step Functions adds to
// JSONata beside $partition, $range and $parse (which the recorded cases cover).
func TestJSONataStepFunctionsFunctions(t *testing.T) {
	em := newEmulator(t, 0)
	got := runMachine(t, em, `{"QueryLanguage":"JSONata","StartAt":"P","States":{"P":{"Type":"Pass",
		"Output":{"hash":"{% $hash('input data', 'SHA-1') %}","uuid":"{% $uuid() %}"},"End":true}}}`, `{}`)
	if got.Status != StatusSucceeded {
		t.Fatalf("status: got %s (%s: %s), want SUCCEEDED", got.Status, deref(got.Error), deref(got.Cause))
	}
	out, _ := decode(t, []byte(*got.Output)).(map[string]any)
	// SHA-1 of "input data", as the Developer Guide's States.Hash example gives it.
	if h := out["hash"]; h != "aaff4a450a104cd177d28d18d74485e8cae074b7" {
		t.Errorf("$hash: got %v", h)
	}
	if u, _ := out["uuid"].(string); len(u) != 36 || u[14] != '4' {
		t.Errorf("$uuid: got %v, want a version 4 UUID", out["uuid"])
	}
}
