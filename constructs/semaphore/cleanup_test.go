package semaphore_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"

	"github.com/turnstile-sfn/turnstile/constructs/semaphore"
)

// TestCleanupIsWiredByDefault checks that every fixture has its cleanup: the cleanup machine
// and the redrive guard beside the semaphore's, the two rules on its status changes and the
// reconciler's schedule, and the alarm on the dead-letter queue.
func TestCleanupIsWiredByDefault(t *testing.T) {
	wantCounts := []struct {
		typ  string
		want int
	}{
		{"AWS::StepFunctions::StateMachine", 3},
		{"AWS::Events::Rule", 3},
		{"AWS::SQS::Queue", 1},
		{"AWS::CloudWatch::Alarm", 1},
	}
	for _, f := range []fixture{lambdaStack, childStack, chainStack, callbackStack} {
		name := *f.stack.StackName()
		if f.sem.Cleanup() == nil {
			t.Errorf("%s: Cleanup() = nil, want the default cleanup", name)
		}
		for _, c := range wantCounts {
			// The child-work fixture has its own child state machine.
			want := c.want
			if name == "ChildWork" && c.typ == "AWS::StepFunctions::StateMachine" {
				want++
			}
			if got := len(resources(f, c.typ)); got != want {
				t.Errorf("%s: got %d %s, want %d", name, got, c.typ, want)
			}
		}
	}
}

// TestCleanupOptOutAndSeveralSemaphores checks that Props.Cleanup false leaves the cleanup out
// and that two semaphores in one stack each get their own cleanup without colliding IDs.
func TestCleanupOptOutAndSeveralSemaphores(t *testing.T) {
	var tmpl assertions.Template
	var without semaphore.Semaphore
	noPanic(t, "two semaphores and one without cleanup", func() {
		app := awscdk.NewApp(&awscdk.AppProps{Context: &map[string]any{"aws:cdk:bundling-stacks": []string{}}})
		stack := awscdk.NewStack(app, jsii.String("Several"), nil)
		for _, id := range []string{"First", "Second"} {
			semaphore.New(stack, jsii.String(id), &semaphore.Props{LockName: id, Limit: 1, WorkFunction: echoFunction(stack, id+"Work")})
		}
		without = semaphore.New(stack, jsii.String("Bare"), &semaphore.Props{
			LockName: "bare", Limit: 1, WorkFunction: echoFunction(stack, "BareWork"), Cleanup: jsii.Bool(false),
		})
		tmpl = assertions.Template_FromStack(stack, nil)
	})
	if tmpl == nil {
		return
	}
	if without.Cleanup() != nil {
		t.Error("Cleanup() with Props.Cleanup false is not nil")
	}
	machines := map[string]int{}
	for id := range *tmpl.FindResources(jsii.String("AWS::StepFunctions::StateMachine"), nil) {
		if owner, _, isCleanup := strings.Cut(id, "Cleanup"); isCleanup {
			machines[owner]++
		}
	}
	want := map[string]int{"First": 2, "Second": 2}
	if len(machines) != len(want) || machines["First"] != 2 || machines["Second"] != 2 {
		t.Errorf("cleanup machines by semaphore = %v, want %v (none for Bare)", machines, want)
	}
}
