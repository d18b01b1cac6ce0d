package semaphore_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsstepfunctions"
	"github.com/aws/jsii-runtime-go"

	"github.com/turnstile-sfn/turnstile/constructs/semaphore"
)

// newTreeStack returns a fresh stack for tests that read the construct tree without a synth.
func newTreeStack(id string) (awscdk.Stack, awslambda.IFunction) {
	app := awscdk.NewApp(nil)
	stack := awscdk.NewStack(app, jsii.String(id), nil)
	fn := awslambda.Function_FromFunctionArn(stack, jsii.String("Fn"), jsii.String("arn:aws:lambda:us-east-1:123456789012:function:work"))
	return stack, fn
}

// TestSemaphoreIsAConstruct checks that a Semaphore can be passed wherever the CDK expects a
// construct: as the scope of another construct, and to Tags.
func TestSemaphoreIsAConstruct(t *testing.T) {
	stack, fn := newTreeStack("Scope")
	sem := semaphore.New(stack, jsii.String("Gate"), &semaphore.Props{LockName: "L", Limit: 1, WorkFunction: fn})
	noPanic(t, "a child of the semaphore", func() {
		child := awsstepfunctions.NewPass(sem, jsii.String("Child"), nil)
		if got, want := *child.Node().Path(), "Scope/Gate/Child"; got != want {
			t.Errorf("child path = %q, want %q", got, want)
		}
	})
	noPanic(t, "tags", func() { awscdk.Tags_Of(sem).Add(jsii.String("team"), jsii.String("platform"), nil) })
	if got := *sem.StateMachine().Node().Path(); !strings.HasPrefix(got, "Scope/Gate/") {
		t.Errorf("state machine path = %q, want it under Scope/Gate/", got)
	}
}

// TestRemovalPolicyAndLogGroupProps checks that RemovalPolicy reaches the table and the log
// group, and that a given LogGroup is used instead of a new one.
func TestRemovalPolicyAndLogGroupProps(t *testing.T) {
	stack, fn := newTreeStack("Retained")
	sem := semaphore.New(stack, jsii.String("Semaphore"), &semaphore.Props{
		LockName: "L", Limit: 1, WorkFunction: fn, RemovalPolicy: awscdk.RemovalPolicy_RETAIN,
	})
	table, ok := sem.Table().Node().DefaultChild().(awsdynamodb.CfnTable)
	if !ok {
		t.Fatal("the new table has no CfnTable")
	}
	if got := table.CfnOptions().DeletionPolicy(); got != awscdk.CfnDeletionPolicy_RETAIN {
		t.Errorf("table DeletionPolicy = %v, want RETAIN", got)
	}
	logs, ok := sem.LogGroup().Node().DefaultChild().(awslogs.CfnLogGroup)
	if !ok {
		t.Fatal("the new log group has no CfnLogGroup")
	}
	if got := logs.CfnOptions().DeletionPolicy(); got != awscdk.CfnDeletionPolicy_RETAIN {
		t.Errorf("log group DeletionPolicy = %v, want RETAIN", got)
	}

	given := awslogs.NewLogGroup(stack, jsii.String("Given"), nil)
	other := semaphore.New(stack, jsii.String("Other"), &semaphore.Props{
		LockName: "L", Limit: 1, WorkFunction: fn, LogGroup: given,
	})
	if got := *other.LogGroup().Node().Path(); got != "Retained/Given" {
		t.Errorf("LogGroup() = %s, want the given Retained/Given", got)
	}
	if child := other.Node().TryFindChild(jsii.String("Logs")); child != nil {
		t.Errorf("a semaphore with a given log group created its own: %s", *child.Node().Path())
	}
}
