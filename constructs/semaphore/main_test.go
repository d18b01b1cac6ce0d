package semaphore_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsstepfunctions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsstepfunctionstasks"
	"github.com/aws/jsii-runtime-go"

	"github.com/turnstile-sfn/turnstile/constructs/semaphore"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// fixture is one synthesized stack: its template as JSON and as an assertions.Template.
type fixture struct {
	stack    awscdk.Stack
	sem      semaphore.Semaphore
	template assertions.Template
	json     map[string]any
}

// The stacks every template test reads, synthesized once in TestMain.
var (
	// lambdaStack: LockName "MySemaphore", Limit 5, a Lambda function as the work, the Poll
	// strategy, defaults otherwise: the golden semaphore-default.asl.json.
	lambdaStack fixture
	// childStack: a lock name path, a child state machine as the work, an existing table,
	// logging and tracing off (and the default Callback strategy: one queue per key).
	childStack fixture
	// chainStack: a chain of the caller's own states, one of them a Lambda task; Poll.
	chainStack fixture
	// callbackStack: lambdaStack's semaphore with the default strategy (Callback): the demo's
	// semaphore, and the golden semaphore-callback.asl.json.
	callbackStack fixture
	// rateStack: callbackStack's semaphore with a Rate of 10 a second, burst 5: the golden
	// semaphore-rate-callback.asl.json.
	rateStack fixture
)

// TestMain builds the fixture stacks and synthesizes them once, with the CloudFormation
// validation off (CDK_VALIDATION=false) and bundling skipped. The demo app's test synthesizes
// with validation on.
func TestMain(m *testing.M) {
	flag.Parse()
	if err := os.Setenv("CDK_VALIDATION", "false"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	// The jsii runtime prepares its kernel process, and copies the environment, while the CDK
	// packages register their classes at init, before TestMain runs. Closing the unstarted
	// kernel makes the next jsii call start a new one that sees CDK_VALIDATION.
	jsii.Close()
	app := awscdk.NewApp(&awscdk.AppProps{
		Context: &map[string]any{"aws:cdk:bundling-stacks": []string{}},
	})
	lambdaStack = newLambdaStack(app)
	childStack = newChildStack(app)
	chainStack = newChainStack(app)
	callbackStack = newCallbackStack(app)
	rateStack = newRateStack(app)
	for _, f := range []*fixture{&lambdaStack, &childStack, &chainStack, &callbackStack, &rateStack} {
		f.template = assertions.Template_FromStack(f.stack, nil)
		f.json = *f.template.ToJSON()
	}
	os.Exit(m.Run())
}

// echoFunction is a small inline Lambda function (no asset to bundle).
func echoFunction(stack awscdk.Stack, id string) awslambda.Function {
	return awslambda.NewFunction(stack, jsii.String(id), &awslambda.FunctionProps{
		Runtime: awslambda.Runtime_NODEJS_22_X(),
		Handler: jsii.String("index.handler"),
		Code:    awslambda.Code_FromInline(jsii.String("exports.handler = async (event) => event;")),
	})
}

func newLambdaStack(app awscdk.App) fixture {
	stack := awscdk.NewStack(app, jsii.String("LambdaWork"), nil)
	sem := semaphore.New(stack, jsii.String("Semaphore"), &semaphore.Props{
		LockName:     "MySemaphore",
		Limit:        5,
		WorkFunction: echoFunction(stack, "Work"),
		WaitStrategy: semaphore.WaitPoll,
	})
	return fixture{stack: stack, sem: sem}
}

func newCallbackStack(app awscdk.App) fixture {
	stack := awscdk.NewStack(app, jsii.String("CallbackWait"), nil)
	sem := semaphore.New(stack, jsii.String("Semaphore"), &semaphore.Props{
		LockName:     "MySemaphore",
		Limit:        5,
		WorkFunction: echoFunction(stack, "Work"),
	})
	return fixture{stack: stack, sem: sem}
}

func newChildStack(app awscdk.App) fixture {
	stack := awscdk.NewStack(app, jsii.String("ChildWork"), nil)
	child := awsstepfunctions.NewStateMachine(stack, jsii.String("Child"), &awsstepfunctions.StateMachineProps{
		DefinitionBody: awsstepfunctions.DefinitionBody_FromChainable(awsstepfunctions.NewPass(stack, jsii.String("Child Work"), nil)),
	})
	table := awsdynamodb.NewTable(stack, jsii.String("SharedLocks"), &awsdynamodb.TableProps{
		PartitionKey: &awsdynamodb.Attribute{Name: jsii.String(semaphore.PartitionKey), Type: awsdynamodb.AttributeType_STRING},
		SortKey:      &awsdynamodb.Attribute{Name: jsii.String(semaphore.SortKey), Type: awsdynamodb.AttributeType_STRING},
		BillingMode:  awsdynamodb.BillingMode_PAY_PER_REQUEST,
	})
	sem := semaphore.New(stack, jsii.String("Semaphore"), &semaphore.Props{
		LockNamePath:     "$.environment",
		Limit:            2,
		WorkStateMachine: child,
		Table:            table,
		Logging:          jsii.Bool(false),
		Tracing:          jsii.Bool(false),
	})
	return fixture{stack: stack, sem: sem}
}

func newChainStack(app awscdk.App) fixture {
	stack := awscdk.NewStack(app, jsii.String("ChainWork"), nil)
	prepare := awsstepfunctions.NewPass(stack, jsii.String("Prepare Report"), &awsstepfunctions.PassProps{
		ResultPath: jsii.String("$.report"),
		Result:     awsstepfunctions.Result_FromString(jsii.String("nightly")),
	})
	write := awsstepfunctionstasks.NewLambdaInvoke(stack, jsii.String("Write Report"), &awsstepfunctionstasks.LambdaInvokeProps{
		LambdaFunction: echoFunction(stack, "Writer"),
		OutputPath:     jsii.String("$.Payload"),
	})
	sem := semaphore.New(stack, jsii.String("Semaphore"), &semaphore.Props{
		LockName:     "Reports",
		Limit:        3,
		Work:         prepare.Next(write),
		WaitStrategy: semaphore.WaitPoll,
	})
	return fixture{stack: stack, sem: sem}
}

// noPanic runs a jsii call that panics on failure (assertions, construction) and reports the
// panic as a test error instead of ending the whole test binary.
func noPanic(t *testing.T, what string, call func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s: %v", what, r)
		}
	}()
	call()
}

// resources returns the template's resources of one type, by logical ID.
func resources(f fixture, typ string) map[string]map[string]any {
	out := map[string]map[string]any{}
	for id, r := range f.json["Resources"].(map[string]any) {
		res := r.(map[string]any)
		if res["Type"] == typ {
			out[id] = res
		}
	}
	return out
}

// only returns the single resource of a type, failing the test if there is not exactly one.
func only(t *testing.T, f fixture, typ string) (string, map[string]any) {
	t.Helper()
	rs := resources(f, typ)
	if len(rs) != 1 {
		t.Fatalf("%s: got %d %s resources, want 1", *f.stack.StackName(), len(rs), typ)
	}
	for id, r := range rs {
		return id, r
	}
	return "", nil
}

// semaphoreLogGroupID returns the logical ID of the semaphore's own log group (the cleanup's
// reconciler has one too).
func semaphoreLogGroupID(t *testing.T, f fixture) string {
	t.Helper()
	var ids []string
	for id := range resources(f, "AWS::Logs::LogGroup") {
		if strings.HasPrefix(id, "SemaphoreLogs") {
			ids = append(ids, id)
		}
	}
	if len(ids) != 1 {
		t.Fatalf("%s: got semaphore log groups %v, want one", *f.stack.StackName(), ids)
	}
	return ids[0]
}

// stateMachine returns the semaphore's CloudFormation state machine (its logical ID starts with
// the construct's path).
func stateMachine(t *testing.T, f fixture) map[string]any {
	t.Helper()
	for id, r := range resources(f, "AWS::StepFunctions::StateMachine") {
		if strings.HasPrefix(id, "SemaphoreStateMachine") {
			return r
		}
	}
	t.Fatalf("%s: no semaphore state machine", *f.stack.StackName())
	return nil
}

// props returns a resource's Properties.
func props(r map[string]any) map[string]any { return r["Properties"].(map[string]any) }

// compact renders v as compact JSON (maps with sorted keys).
func compact(v any) string {
	out, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(out)
}
