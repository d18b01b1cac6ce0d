package cleanup_test

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsstepfunctions"
	"github.com/aws/jsii-runtime-go"

	"github.com/turnstile-sfn/turnstile/constructs/cleanup"
	"github.com/turnstile-sfn/turnstile/lock"
)

// fixture is the one stack every template test reads: a lock table, a state machine standing
// for the semaphore, and a Cleanup built with cleanup.New directly, synthesized once in TestMain.
var fixture struct {
	stack    awscdk.Stack
	table    awsdynamodb.Table
	machine  awsstepfunctions.StateMachine
	cleanup  cleanup.Cleanup
	template assertions.Template
	json     map[string]any
}

// TestMain builds and synthesizes the fixture once, with the CloudFormation validation off
// (CDK_VALIDATION=false) and bundling skipped.
func TestMain(m *testing.M) {
	if err := os.Setenv("CDK_VALIDATION", "false"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	// The jsii runtime copies the environment when it starts; the CDK packages start it at
	// init. Closing it makes the next jsii call start one that sees CDK_VALIDATION.
	jsii.Close()
	if err := buildFixture(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(m.Run())
}

// buildFixture builds the fixture stack; jsii reports CDK failures as panics.
func buildFixture() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("build the fixture: %v", r)
		}
	}()
	app := newApp()
	f := &fixture
	f.stack = awscdk.NewStack(app, jsii.String("CleanupFixture"), nil)
	f.table, f.machine = newSemaphoreParts(f.stack)
	f.cleanup = cleanup.New(f.stack, jsii.String("Cleanup"), &cleanup.Props{
		StateMachine: f.machine,
		Table:        f.table,
		LockName:     "Reports",
		Limit:        3,
	})
	f.template = assertions.Template_FromStack(f.stack, nil)
	f.json = *f.template.ToJSON()
	return nil
}

// newApp returns an app that skips bundling (the reconciler is a Go asset).
func newApp() awscdk.App {
	return awscdk.NewApp(&awscdk.AppProps{Context: &map[string]any{"aws:cdk:bundling-stacks": []string{}}})
}

// newSemaphoreParts adds a lock table and a state machine standing for the semaphore's.
func newSemaphoreParts(stack awscdk.Stack) (awsdynamodb.Table, awsstepfunctions.StateMachine) {
	table := awsdynamodb.NewTable(stack, jsii.String("Locks"), &awsdynamodb.TableProps{
		PartitionKey: &awsdynamodb.Attribute{Name: jsii.String(lock.AttributeLockName), Type: awsdynamodb.AttributeType_STRING},
		SortKey:      &awsdynamodb.Attribute{Name: jsii.String(lock.AttributeEntry), Type: awsdynamodb.AttributeType_STRING},
		BillingMode:  awsdynamodb.BillingMode_PAY_PER_REQUEST,
	})
	machine := awsstepfunctions.NewStateMachine(stack, jsii.String("Semaphore"), &awsstepfunctions.StateMachineProps{
		DefinitionBody: awsstepfunctions.DefinitionBody_FromChainable(awsstepfunctions.NewPass(stack, jsii.String("Work"), nil)),
	})
	return table, machine
}

// noPanic runs a jsii call that panics on failure and reports the panic as a test error
// instead of ending the whole test binary.
func noPanic(t *testing.T, what string, call func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s: %v", what, r)
		}
	}()
	call()
}

// resources returns the fixture's resources of one type, by logical ID.
func resources(typ string) map[string]map[string]any {
	out := map[string]map[string]any{}
	for id, r := range fixture.json["Resources"].(map[string]any) {
		res := r.(map[string]any)
		if res["Type"] == typ {
			out[id] = res
		}
	}
	return out
}

// props returns a resource's Properties.
func props(r map[string]any) map[string]any { return r["Properties"].(map[string]any) }

// logicalID returns the logical ID of a construct's CloudFormation resource.
func logicalID(t *testing.T, element awscdk.CfnElement) string {
	t.Helper()
	var id string
	noPanic(t, "resolve a logical ID", func() { id = *fixture.stack.GetLogicalId(element) })
	return id
}

// compact renders v as compact JSON (maps with sorted keys).
func compact(v any) string {
	out, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(out)
}
