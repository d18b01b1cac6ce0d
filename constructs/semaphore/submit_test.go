package semaphore_test

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"

	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/constructs/semaphore"
	"github.com/turnstile-sfn/turnstile/lock"
)

// TestSubmissionsDeployTheSubmitFunction: Props.Submissions adds the submit function, configured
// with the table, the machine, the limit, the lock name path and the TTL, allowed to start the
// machine's executions, complete its tokens and describe its executions; without the Callback
// strategy the props are refused (with one lock or several).
func TestSubmissionsDeployTheSubmitFunction(t *testing.T) {
	app := awscdk.NewApp(&awscdk.AppProps{Context: &map[string]any{"aws:cdk:bundling-stacks": []string{}}})
	stack := awscdk.NewStack(app, jsii.String("Submissions"), nil)
	sem := semaphore.New(stack, jsii.String("Semaphore"), &semaphore.Props{
		LockNamePath:  "$.environment",
		Limit:         1,
		WorkFunction:  echoFunction(stack, "Work"),
		Submissions:   jsii.Bool(true),
		SubmissionTTL: awscdk.Duration_Hours(jsii.Number(2)),
	})
	if sem.SubmitFunction() == nil {
		t.Fatal("SubmitFunction() is nil")
	}
	f := fixture{stack: stack, sem: sem, template: assertions.Template_FromStack(stack, nil)}
	f.json = *f.template.ToJSON()
	var env map[string]any
	for id, fn := range resources(f, "AWS::Lambda::Function") {
		if strings.HasPrefix(id, "Semaphore"+semaphore.SubmitID) {
			env = props(fn)["Environment"].(map[string]any)["Variables"].(map[string]any)
		}
	}
	if env == nil {
		t.Fatal("no submit function")
	}
	if env[machines.EnvSubmitLockNamePath] != "$.environment" || env[machines.EnvReconcilerLimit] != "1" || env[machines.EnvSubmitTTL] != "7200s" ||
		!strings.Contains(compact(env[machines.EnvReconcilerStateMachineArn]), "SemaphoreStateMachine") {
		t.Errorf("submit environment = %v", env)
	}
	// The table expires the submissions' status items; one without submissions has no time to live.
	for _, c := range []struct {
		f    fixture
		want any
	}{{f, map[string]any{"AttributeName": lock.AttributeTimeToLive, "Enabled": true}}, {callbackStack, nil}} {
		for _, table := range resources(c.f, "AWS::DynamoDB::Table") {
			if got := props(table)["TimeToLiveSpecification"]; !reflect.DeepEqual(got, c.want) {
				t.Errorf("%s: table TimeToLiveSpecification = %v, want %v", *c.f.stack.StackName(), got, c.want)
			}
		}
	}
	var actions []string
	for _, s := range policyStatements(f, "SemaphoreSubmit") {
		for _, a := range strs(s["Action"]) {
			if strings.HasPrefix(a.(string), "states:") {
				actions = append(actions, a.(string))
			}
		}
	}
	slices.Sort(actions)
	if want := []string{"states:DescribeExecution", "states:SendTaskSuccess", "states:StartExecution"}; !slices.Equal(actions, want) {
		t.Errorf("submit actions %v, want %v", actions, want)
	}
	poll := awscdk.NewStack(app, jsii.String("PollSubmissions"), nil)
	msg := panicMessage(func() {
		semaphore.New(poll, jsii.String("Semaphore"), &semaphore.Props{LockName: "L", Limit: 1, WorkFunction: echoFunction(poll, "Work"),
			WaitStrategy: semaphore.WaitPoll, Submissions: jsii.Bool(true)})
	})
	if !strings.Contains(msg, "Props.Submissions needs WaitStrategy Callback") {
		t.Errorf("Poll with submissions: panic %q", msg)
	}
	pollLocks := awscdk.NewStack(app, jsii.String("PollLocksSubmissions"), nil)
	msg = panicMessage(func() {
		semaphore.New(pollLocks, jsii.String("Semaphore"), &semaphore.Props{Locks: []semaphore.LockSpec{{LockName: "a"}, {LockName: "b"}}, Limit: 1,
			WorkFunction: echoFunction(pollLocks, "Work"), WaitStrategy: semaphore.WaitPoll, Submissions: jsii.Bool(true)})
	})
	if !strings.Contains(msg, "Props.Submissions needs WaitStrategy Callback") {
		t.Errorf("Poll with several locks and submissions: panic %q", msg)
	}
	if callbackStack.sem.SubmitFunction() != nil {
		t.Error("a semaphore without Submissions has a submit function")
	}
}

// TestSubmissionsWithPrioritiesAndWeights: a semaphore with PriorityPath and WeightPath takes
// submissions, and its submit function reads each input's priority and weight where the
// machine does, with the machine's ageing step (the default when PriorityAgeing is unset).
func TestSubmissionsWithPrioritiesAndWeights(t *testing.T) {
	for ageing, want := range map[int]string{0: strconv.Itoa(semaphore.DefaultPriorityAgeing), 7: "7"} {
		app := awscdk.NewApp(&awscdk.AppProps{Context: &map[string]any{"aws:cdk:bundling-stacks": []string{}}})
		stack := awscdk.NewStack(app, jsii.String("PrioritySubmissions"), nil)
		sem := semaphore.New(stack, jsii.String("Semaphore"), &semaphore.Props{
			LockName: "L", Limit: 4, WorkFunction: echoFunction(stack, "Work"), WaitStrategy: semaphore.WaitCallback,
			PriorityPath: "$.urgency", PriorityAgeing: ageing, WeightPath: "$.slots", Submissions: jsii.Bool(true),
		})
		f := fixture{stack: stack, sem: sem, template: assertions.Template_FromStack(stack, nil)}
		f.json = *f.template.ToJSON()
		var env map[string]any
		for id, fn := range resources(f, "AWS::Lambda::Function") {
			if strings.HasPrefix(id, "Semaphore"+semaphore.SubmitID) {
				env = props(fn)["Environment"].(map[string]any)["Variables"].(map[string]any)
			}
		}
		if env[machines.EnvSubmitPriorityPath] != "$.urgency" || env[machines.EnvSubmitPriorityAgeing] != want || env[machines.EnvSubmitWeightPath] != "$.slots" {
			t.Errorf("PriorityAgeing %d: submit environment = %v, want ageing %s", ageing, env, want)
		}
	}
}

// TestSubmissionsWithSeveralLocksOrATotalCap: a semaphore with Locks, and one with a TotalLimit,
// take submissions; their submit function reads the machine's definition (no lock name or path
// in its environment, the several-locks flag set) and may describe that machine.
func TestSubmissionsWithSeveralLocksOrATotalCap(t *testing.T) {
	for name, p := range map[string]semaphore.Props{
		"Locks":      {Locks: []semaphore.LockSpec{{LockName: "a"}, {LockNamePath: "$.b", Limit: 3}}},
		"TotalLimit": {LockNamePath: "$.tenant", TotalLimit: 12},
	} {
		t.Run(name, func(t *testing.T) {
			app := awscdk.NewApp(&awscdk.AppProps{Context: &map[string]any{"aws:cdk:bundling-stacks": []string{}}})
			stack := awscdk.NewStack(app, jsii.String("SeveralLocksSubmissions"), nil)
			p.Limit, p.WorkFunction, p.WaitStrategy, p.Submissions = 2, echoFunction(stack, "Work"), semaphore.WaitCallback, jsii.Bool(true)
			sem := semaphore.New(stack, jsii.String("Semaphore"), &p)
			if sem.SubmitFunction() == nil {
				t.Fatal("SubmitFunction() is nil")
			}
			f := fixture{stack: stack, sem: sem, template: assertions.Template_FromStack(stack, nil)}
			f.json = *f.template.ToJSON()
			var env map[string]any
			for id, fn := range resources(f, "AWS::Lambda::Function") {
				if strings.HasPrefix(id, "Semaphore"+semaphore.SubmitID) {
					env = props(fn)["Environment"].(map[string]any)["Variables"].(map[string]any)
				}
			}
			_, hasName := env[machines.EnvSubmitLockName]
			_, hasPath := env[machines.EnvSubmitLockNamePath]
			if env[machines.EnvSubmitSeveralLocks] != "true" || hasName || hasPath {
				t.Errorf("submit environment = %v, want %s=true and no lock name or path", env, machines.EnvSubmitSeveralLocks)
			}
			var describes []any
			for _, s := range policyStatements(f, "SemaphoreSubmit") {
				if slices.Contains(strs(s["Action"]), any("states:DescribeStateMachine")) {
					describes = append(describes, s["Resource"])
				}
			}
			if len(describes) != 1 || !strings.Contains(compact(describes[0]), "SemaphoreStateMachine") {
				t.Errorf("states:DescribeStateMachine granted on %v, want the semaphore's machine alone", describes)
			}
		})
	}
}
