package emulator

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestStartExecutionIntegration(t *testing.T) {
	em := newEmulator(t, 0)
	child, err := em.CreateStateMachine("child", `{"StartAt":"Echo","States":{"Echo":{"Type":"Pass","Parameters":{"seen.$":"$.x","child":true},"End":true}}}`, StateMachineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	failingChild, err := em.CreateStateMachine("failing-child", `{"StartAt":"F","States":{"F":{"Type":"Fail","Error":"Child.Failed","Cause":"bad item"}}}`, StateMachineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	parent := func(resource, machine, extra string) string {
		return `{"StartAt":"Run","States":{"Run":{"Type":"Task","Resource":"` + resource + `",
"Parameters":{"StateMachineArn":"` + machine + `","Input":{"x.$":"$.x"}},` + extra + `"End":true},"Handled":{"Type":"Pass","End":true}}}`
	}
	catchAll := `"Catch":[{"ErrorEquals":["Other"],"Next":"Handled"}],`
	t.Run(".sync:2 returns the child's output as JSON", func(t *testing.T) {
		done := runMachine(t, em, parent("arn:aws:states:::states:startExecution.sync:2", child, catchAll), `{"x":42}`)
		if done.Status != StatusSucceeded {
			t.Fatalf("status %s: %s", done.Status, deref(done.Cause))
		}
		out := mustJSON(t, *done.Output).(map[string]any)
		if !sameJSON(out["Output"], mustJSON(t, `{"seen":42,"child":true}`)) || !sameJSON(out["Input"], mustJSON(t, `{"x":42}`)) ||
			out["Status"] != "SUCCEEDED" || out["StateMachineArn"] != child || !strings.HasPrefix(out["ExecutionArn"].(string), "arn:aws:states:") {
			t.Errorf("output: got %s", *done.Output)
		}
		for _, key := range []string{"StartDate", "StopDate", "Name", "InputDetails", "OutputDetails", "RedriveCount", "RedriveStatus"} {
			if _, ok := out[key]; !ok {
				t.Errorf("output has no %s: %s", key, *done.Output)
			}
		}
	})
	t.Run(".sync returns the child's output as text", func(t *testing.T) {
		done := runMachine(t, em, parent("arn:aws:states:::states:startExecution.sync", child, catchAll), `{"x":1}`)
		out := mustJSON(t, deref(done.Output)).(map[string]any)
		if done.Status != StatusSucceeded || out["Output"] != `{"child":true,"seen":1}` || out["Input"] != `{"x":1}` {
			t.Fatalf("got %s %s", done.Status, deref(done.Output))
		}
	})
	t.Run("a failed child fails the task with States.TaskFailed", func(t *testing.T) {
		done := runMachine(t, em, parent("arn:aws:states:::states:startExecution.sync:2", failingChild, catchAll), `{"x":1}`)
		cause := mustJSON(t, deref(done.Cause)).(map[string]any)
		if done.Status != StatusFailed || deref(done.Error) != "States.TaskFailed" || cause["Status"] != "FAILED" ||
			cause["Error"] != "Child.Failed" || cause["Cause"] != "bad item" {
			t.Fatalf("got %s %s %s, want FAILED States.TaskFailed with the child's description as cause", done.Status, deref(done.Error), deref(done.Cause))
		}
	})
	t.Run("request-response returns the ARN and start date", func(t *testing.T) {
		done := runMachine(t, em, parent("arn:aws:states:::states:startExecution", child, catchAll), `{"x":1}`)
		out := mustJSON(t, deref(done.Output)).(map[string]any)
		if _, isNumber := out["StartDate"].(int64); done.Status != StatusSucceeded || !isNumber || !strings.Contains(out["ExecutionArn"].(string), ":execution:child:") {
			t.Fatalf("got %s %s", done.Status, deref(done.Output))
		}
	})
	t.Run("a name already used is StepFunctions.ExecutionAlreadyExistsException", func(t *testing.T) {
		def := `{"StartAt":"Run","States":{"Run":{"Type":"Task","Resource":"arn:aws:states:::states:startExecution",
"Parameters":{"StateMachineArn":"` + child + `","Name":"fixed","Input":{"x.$":"$.x"}},"End":true}}}`
		arn := create(t, em, def)
		execute(t, em, arn, `{"x":1}`)
		done := execute(t, em, arn, `{"x":2}`)
		if done.Status != StatusFailed || deref(done.Error) != "StepFunctions.ExecutionAlreadyExistsException" ||
			!strings.Contains(deref(done.Cause), "Service: AWSStepFunctions; Status Code: 400; Error Code: ExecutionAlreadyExists") {
			t.Fatalf("got %s %s %s", done.Status, deref(done.Error), deref(done.Cause))
		}
	})
}

func TestSDKIntegration(t *testing.T) {
	em := newEmulator(t, 0)
	t.Run("describeExecution of an unknown execution", func(t *testing.T) {
		done := runMachine(t, em, `{"StartAt":"D","States":{"D":{"Type":"Task","Resource":"arn:aws:states:::aws-sdk:sfn:describeExecution",
"Parameters":{"ExecutionArn":"arn:aws:states:us-east-1:123456789012:execution:nope:nope"},
"Catch":[{"ErrorEquals":["Sfn.ExecutionDoesNotExistException"],"ResultPath":"$.error","Next":"Handled"}],"End":true},
"Handled":{"Type":"Pass","End":true}}}`, `{}`)
		out := mustJSON(t, deref(done.Output)).(map[string]any)
		errorOutput, _ := out["error"].(map[string]any)
		if done.Status != StatusSucceeded || errorOutput["Error"] != "Sfn.ExecutionDoesNotExistException" {
			t.Fatalf("got %s %s, want the Sfn.ExecutionDoesNotExistException caught", done.Status, deref(done.Output))
		}
	})
	t.Run("a child completes its parent's task token", func(t *testing.T) {
		child, err := em.CreateStateMachine("approver", `{"StartAt":"Approve","States":{"Approve":{"Type":"Task",
"Resource":"arn:aws:states:::aws-sdk:sfn:sendTaskSuccess",
"Parameters":{"TaskToken.$":"$.token","Output.$":"States.JsonToString($.answer)"},"End":true}}}`, StateMachineOptions{})
		if err != nil {
			t.Fatal(err)
		}
		done := runMachine(t, em, `{"StartAt":"Ask","States":{"Ask":{"Type":"Task","Resource":"arn:aws:states:::states:startExecution.waitForTaskToken",
"Parameters":{"StateMachineArn":"`+child+`","Input":{"token.$":"$$.Task.Token","answer":{"approved":true}}},"End":true}}}`, `{}`)
		if done.Status != StatusSucceeded || deref(done.Output) != `{"approved":true}` {
			t.Fatalf("got %s %s (%s), want SUCCEEDED {\"approved\":true}", done.Status, deref(done.Output), deref(done.Cause))
		}
	})
	t.Run("describeExecution of a finished execution", func(t *testing.T) {
		target := execute(t, em, create(t, em, passMachine), `{"a":1}`)
		done := runMachine(t, em, `{"StartAt":"D","States":{"D":{"Type":"Task","Resource":"arn:aws:states:::aws-sdk:sfn:describeExecution",
"Parameters":{"ExecutionArn.$":"$.arn"},"ResultSelector":{"status.$":"$.Status","output.$":"$.Output"},"End":true}}}`,
			`{"arn":"`+target.ExecutionArn+`"}`)
		if done.Status != StatusSucceeded || !sameJSON(mustJSON(t, *done.Output), mustJSON(t, `{"status":"SUCCEEDED","output":"{\"a\":1}"}`)) {
			t.Fatalf("got %s %s", done.Status, deref(done.Output))
		}
	})
}

func TestSDKStartAndStopExecution(t *testing.T) {
	fake, _ := tokenQueue()
	em := newEmulator(t, 0, fake)
	waiting := create(t, em, waitingMachine)
	done := runMachine(t, em, `{"StartAt":"Start","States":{
"Start":{"Type":"Task","Resource":"arn:aws:states:::aws-sdk:sfn:startExecution",
 "Parameters":{"StateMachineArn":"`+waiting+`","Input.$":"States.JsonToString($)"},"ResultPath":"$.started","Next":"Stop"},
"Stop":{"Type":"Task","Resource":"arn:aws:states:::aws-sdk:sfn:stopExecution",
 "Parameters":{"ExecutionArn.$":"$.started.ExecutionArn","Error":"Parent.Stop","Cause":"no longer needed"},"ResultPath":"$.stopped","End":true}}}`,
		`{"job":1}`)
	if done.Status != StatusSucceeded {
		t.Fatalf("status %s: %s", done.Status, deref(done.Cause))
	}
	out := mustJSON(t, *done.Output).(map[string]any)
	child := out["started"].(map[string]any)["ExecutionArn"].(string)
	if _, ok := out["stopped"].(map[string]any)["StopDate"].(int64); !ok {
		t.Errorf("stopExecution output: got %s, want a StopDate", encodeJSON(out["stopped"]))
	}
	d, err := em.DescribeExecution(context.Background(), child)
	if err != nil || d.Status != StatusAborted || deref(d.Error) != "Parent.Stop" || d.Input != `{"job":1}` {
		t.Errorf("child: got %v %s %s %s, want ABORTED Parent.Stop with the parent's input", err, d.Status, deref(d.Error), d.Input)
	}
}

func TestSyncWaitTakesTheChildsTime(t *testing.T) {
	em := newEmulator(t, 0)
	child := create(t, em, `{"StartAt":"Long","States":{"Long":{"Type":"Wait","Seconds":3600,"End":true}}}`)
	done := runMachine(t, em, `{"StartAt":"Run","States":{"Run":{"Type":"Task","Resource":"arn:aws:states:::states:startExecution.sync:2",
"Parameters":{"StateMachineArn":"`+child+`"},"End":true}}}`, `{}`)
	if took := done.StopDate.Sub(done.StartDate); done.Status != StatusSucceeded || took < time.Hour {
		t.Fatalf("got %s after %v, want SUCCEEDED after at least the child's hour", done.Status, took)
	}
}
