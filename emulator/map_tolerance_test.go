package emulator

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/emulator/sfnapi"
)

// toleranceMachine is an inline Map whose iterations fail with Bad on the item "bad"; fields adds
// the Map's threshold fields (a JSON fragment ending in a comma, or empty).
func toleranceMachine(jsonata bool, fields string) string {
	rule := `{"Variable":"$","StringEquals":"bad","Next":"Fail"}`
	items, ql := `"ItemsPath":"$.items",`, ""
	if jsonata {
		rule = `{"Condition":"{% $states.input = 'bad' %}","Next":"Fail"}`
		items, ql = `"Items":"{% $states.input.items %}",`, `"QueryLanguage":"JSONata",`
	}
	return fmt.Sprintf(`{%s"StartAt":"Map","States":{"Map":{"Type":"Map",%s%s"MaxConcurrency":1,
		"ItemProcessor":{"StartAt":"Check","States":{
			"Check":{"Type":"Choice","Choices":[%s],"Default":"Done"},
			"Fail":{"Type":"Fail","Error":"Bad","Cause":"bad item"},
			"Done":{"Type":"Pass","End":true}}},
		"End":true}}}`, ql, items, fields, rule)
}

// TestMapToleratedFailures checks the tolerated failure threshold of an inline Map as the
// Developer Guide defines it for the distributed Map: more failed items than the count, or a
// larger share than the percentage, fails the state with States.ExceedToleratedFailureThreshold;
// fewer leave the failed items' error outputs in the result.
func TestMapToleratedFailures(t *testing.T) {
	em := newEmulator(t, 0)
	badOutput := `{"Error":"Bad","Cause":"bad item"}`
	for _, tc := range []struct {
		name    string
		jsonata bool
		fields  string
		input   string
		output  string // when it succeeds
		error   string // when it fails
	}{
		{"no threshold: the first failure fails the Map", true, ``,
			`{"items":["ok","bad","ok"]}`, ``, "Bad"},
		{"count tolerates as many", true, `"ToleratedFailureCount":"{% $states.input.n %}",`,
			`{"n":1,"items":["ok","bad","ok"]}`, `["ok",` + badOutput + `,"ok"]`, ""},
		{"count exceeded", true, `"ToleratedFailureCount":1,`,
			`{"items":["bad","ok","bad"]}`, ``, asl.ErrorExceedToleratedFail},
		{"percentage tolerates its share", false, `"ToleratedFailurePercentage":50,`,
			`{"items":["bad","ok","bad","ok"]}`, `[` + badOutput + `,"ok",` + badOutput + `,"ok"]`, ""},
		{"percentage exceeded", false, `"ToleratedFailurePercentagePath":"$.pct",`,
			`{"pct":49.9,"items":["bad","ok","bad","ok"]}`, ``, asl.ErrorExceedToleratedFail},
		{"either exceeded", false, `"ToleratedFailurePercentage":100,"ToleratedFailureCountPath":"$.n",`,
			`{"n":0,"items":["ok","bad"]}`, ``, asl.ErrorExceedToleratedFail},
		{"count from a path must be an integer", false, `"ToleratedFailureCountPath":"$.n",`,
			`{"n":"one","items":["ok"]}`, ``, asl.ErrorRuntime},
		{"percentage from JSONata must be 0 to 100", true, `"ToleratedFailurePercentage":"{% 150 %}",`,
			`{"items":["ok"]}`, ``, asl.ErrorQueryEvaluation},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := runMachine(t, em, toleranceMachine(tc.jsonata, tc.fields), tc.input)
			if tc.error != "" {
				if d.Status != StatusFailed || deref(d.Error) != tc.error {
					t.Fatalf("got %s (%s: %s), want FAILED with %s", d.Status, deref(d.Error), deref(d.Cause), tc.error)
				}
				return
			}
			if d.Status != StatusSucceeded {
				t.Fatalf("got %s (%s: %s), want SUCCEEDED", d.Status, deref(d.Error), deref(d.Cause))
			}
			if !sameJSON(decode(t, []byte(*d.Output)), decode(t, []byte(tc.output))) {
				t.Errorf("output %s, want %s", *d.Output, tc.output)
			}
		})
	}
}

// TestMapToleratedFailureHistory checks the events of a Map that exceeds its threshold: the
// failed iterations, then MapStateFailed and the execution's failure.
func TestMapToleratedFailureHistory(t *testing.T) {
	em := newEmulator(t, 0)
	arn := create(t, em, toleranceMachine(true, `"ToleratedFailureCount":1,`))
	d := execute(t, em, arn, `{"items":["bad","ok","bad","ok"]}`)
	if deref(d.Cause) != toleratedFailureCause {
		t.Errorf("cause %q, want %q", deref(d.Cause), toleratedFailureCause)
	}
	var got []sfnapi.HistoryEventType
	for _, ty := range eventTypes(history(t, em, d.ExecutionArn)) {
		if ty == sfnapi.EventMapIterationStarted || ty == sfnapi.EventMapIterationSucceeded || ty == sfnapi.EventMapIterationFailed ||
			ty == sfnapi.EventMapStateFailed || ty == sfnapi.EventMapStateSucceeded || ty == sfnapi.EventExecutionFailed {
			got = append(got, ty)
		}
	}
	want := []sfnapi.HistoryEventType{
		sfnapi.EventMapIterationStarted, sfnapi.EventMapIterationFailed,
		sfnapi.EventMapIterationStarted, sfnapi.EventMapIterationSucceeded,
		sfnapi.EventMapIterationStarted, sfnapi.EventMapIterationFailed,
		sfnapi.EventMapStateFailed, sfnapi.EventExecutionFailed,
	}
	if !slices.Equal(got, want) {
		t.Errorf("events\n got %v\nwant %v", got, want)
	}
}

// TestRedriveMapOverItsToleratedFailures checks that redriving a Map that exceeded its
// threshold reruns its failed iterations, tolerated or not, and none of those that succeeded.
func TestRedriveMapOverItsToleratedFailures(t *testing.T) {
	const (
		steady = "arn:aws:states:::lambda:invoke:steady"
		flaky  = "arn:aws:states:::lambda:invoke:flaky"
	)
	em := newEmulator(t, 0)
	fake := newFake().handle(steady, returning("steady")).handle(flaky, failing("Boom", "Boom"))
	em.RegisterIntegration(fake)
	first := runMachine(t, em, `{"StartAt":"Each","States":{"Each":{"Type":"Map","MaxConcurrency":1,"ToleratedFailureCount":1,"End":true,
		"ItemProcessor":{"StartAt":"Pick","States":{
			"Pick":{"Type":"Choice","Choices":[{"Variable":"$","NumericEquals":2,"Next":"Flaky"}],"Default":"Steady"},
			"Steady":{"Type":"Task","Resource":"`+steady+`","End":true},
			"Flaky":{"Type":"Task","Resource":"`+flaky+`","End":true}}}}}}`, `[1,2,2]`)
	if first.Status != StatusFailed || deref(first.Error) != asl.ErrorExceedToleratedFail {
		t.Fatalf("first run: got %s (%s), want FAILED with %s", first.Status, deref(first.Error), asl.ErrorExceedToleratedFail)
	}
	ctx := context.Background()
	if _, err := em.RedriveExecution(ctx, first.ExecutionArn); err != nil {
		t.Fatal(err)
	}
	done, err := em.Wait(ctx, first.ExecutionArn)
	if err != nil {
		t.Fatal(err)
	}
	if want := `["steady","done","done"]`; done.Status != StatusSucceeded || !sameJSON(mustJSON(t, deref(done.Output)), mustJSON(t, want)) {
		t.Fatalf("after the redrive: got %s %s (%s), want %s", done.Status, deref(done.Output), deref(done.Cause), want)
	}
	if calls := []int{fake.count(steady), fake.count(flaky)}; !slices.Equal(calls, []int{1, 4}) {
		t.Errorf("invocations (steady, flaky): got %v, want [1 4]", calls)
	}
}
