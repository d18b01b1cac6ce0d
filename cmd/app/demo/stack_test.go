//lint:file-ignore SA1019 the assertions API reads annotations only through cxapi.SynthesisMessage, whose Go binding is marked deprecated; it has no other accessor

package demo_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"

	"github.com/turnstile-sfn/turnstile/cmd/app/demo"
	"github.com/turnstile-sfn/turnstile/constructs/cleanup"
	"github.com/turnstile-sfn/turnstile/constructs/semaphore"
	"github.com/turnstile-sfn/turnstile/metrics"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// synthesized is the demo stack with the cdk-nag AwsSolutions checks applied, synthesized once
// in TestMain.
var synthesized struct {
	stack    demo.Stack
	template map[string]any
	errors   []string
	warnings []string
	ignored  []string
}

// TestMain synthesizes the demo stack once, with the CloudFormation validation on (this is the
// one synth of the project's tests that keeps it) and bundling skipped.
func TestMain(m *testing.M) {
	flag.Parse()
	// Validation stays on even if the caller turned it off for speed. The jsii kernel copied the
	// environment at package init; closing it (unstarted) lets the next call see the change.
	if err := os.Unsetenv("CDK_VALIDATION"); err != nil {
		panic(err)
	}
	jsii.Close()
	app := awscdk.NewApp(&awscdk.AppProps{
		Context: &map[string]any{"aws:cdk:bundling-stacks": []string{}},
	})
	cfg, err := demo.ConfigFromContext(app.Node())
	if err != nil {
		panic(err)
	}
	synthesized.stack = demo.NewStack(app, cfg)
	awscdk.Aspects_Of(app).Add(cdknag.NewAwsSolutionsChecks(&cdknag.NagPackProps{Verbose: jsii.Bool(true), LogIgnores: jsii.Bool(true)}), nil)
	synthesized.template = *assertions.Template_FromStack(synthesized.stack, nil).ToJSON()
	annotations := assertions.Annotations_FromStack(synthesized.stack)
	nag := assertions.Match_StringLikeRegexp(jsii.String("AwsSolutions-.*"))
	for _, msg := range *annotations.FindError(jsii.String("*"), nag) {
		synthesized.errors = append(synthesized.errors, *msg.Id+": "+describe(msg.Entry.Data))
	}
	for _, msg := range *annotations.FindWarning(jsii.String("*"), nag) {
		synthesized.warnings = append(synthesized.warnings, *msg.Id+": "+describe(msg.Entry.Data))
	}
	for _, msg := range *annotations.FindInfo(jsii.String("*"), nag) {
		synthesized.ignored = append(synthesized.ignored, *msg.Id+": "+describe(msg.Entry.Data))
	}
	os.Exit(m.Run())
}

// describe renders an annotation's data on one line.
func describe(data any) string {
	s, _ := data.(string)
	return strings.Join(strings.Fields(s), " ")
}

// TestNagAwsSolutions checks that cdk-nag's AwsSolutions pack reports no unsuppressed error on
// the demo stack (warnings are logged).
func TestNagAwsSolutions(t *testing.T) {
	for _, e := range synthesized.errors {
		t.Errorf("unsuppressed cdk-nag error: %s", e)
	}
	for _, w := range synthesized.warnings {
		t.Logf("cdk-nag warning: %s", w)
	}
	// The pack ran: the accepted findings are reported as ignored.
	if len(synthesized.ignored) == 0 {
		t.Error("cdk-nag reported no ignored finding: the AwsSolutions checks did not run")
	}
	for _, i := range synthesized.ignored {
		t.Logf("cdk-nag ignored: %s", i)
	}
}

// TestNagSuppressionsCarryReasons reads every cdk-nag suppression recorded in the template and
// checks that it has a reason and is one of the reviewed suppressions.
func TestNagSuppressionsCarryReasons(t *testing.T) {
	reviewed := map[string]bool{}
	all := slices.Concat(demo.TestRunnerRoleSuppressions, cleanup.NagSuppressions, semaphore.NagSuppressions)
	for _, s := range all {
		reviewed[s.RuleID] = true
	}
	var found int
	for id, r := range synthesized.template["Resources"].(map[string]any) {
		metadata, _ := r.(map[string]any)["Metadata"].(map[string]any)
		nag, _ := metadata["cdk_nag"].(map[string]any)
		rules, _ := nag["rules_to_suppress"].([]any)
		for _, rule := range rules {
			rule := rule.(map[string]any)
			found++
			if reason, _ := rule["reason"].(string); len(strings.TrimSpace(reason)) < 20 {
				t.Errorf("%s: suppression of %v has no real reason: %q", id, rule["id"], reason)
			}
			if !reviewed[rule["id"].(string)] {
				t.Errorf("%s: suppression of %v is not among the reviewed suppressions", id, rule["id"])
			}
		}
	}
	if found == 0 {
		t.Error("no suppression found in the template: the test reads the wrong metadata")
	}
}

// resourcesOf returns the template's resources of one type, by logical ID.
func resourcesOf(typ string) map[string]map[string]any {
	out := map[string]map[string]any{}
	for id, r := range synthesized.template["Resources"].(map[string]any) {
		if res := r.(map[string]any); res["Type"] == typ {
			out[id] = res
		}
	}
	return out
}

// TestDemoStack checks the demo's wiring: one table, the semaphore machine whose work is the
// dowork function (arm64, provided.al2023, no reserved concurrency by default), the limit and
// lock name of the original demo, and the outputs.
func TestDemoStack(t *testing.T) {
	if got := *synthesized.stack.StackName(); got != demo.DefaultStackName {
		t.Errorf("stack name = %q, want %q", got, demo.DefaultStackName)
	}
	if got := len(resourcesOf("AWS::DynamoDB::Table")); got != 1 {
		t.Errorf("%d tables, want 1", got)
	}
	functions := resourcesOf("AWS::Lambda::Function")
	if len(functions) != 4 {
		t.Fatalf("%d functions, want 4 (dowork, the test runner, the hand-off function and the cleanup's reconciler)", len(functions))
	}
	var fnID string
	for id, fn := range functions {
		if strings.HasPrefix(id, demo.SemaphoreID+semaphore.CleanupID) || strings.HasPrefix(id, demo.SemaphoreID+semaphore.HandOffID) {
			continue // the reconciler and the hand-off function: checked in constructs/semaphore and test/
		}
		if strings.HasPrefix(id, demo.TestRunnerID) {
			if got := fn["Properties"].(map[string]any)["Timeout"]; compactJSON(got) != "900" {
				t.Errorf("test runner timeout = %v, want 900 s", got)
			}
			continue
		}
		fnID = id
		p := fn["Properties"].(map[string]any)
		for field, want := range map[string]any{
			"Architectures": []any{"arm64"}, "Runtime": "provided.al2023", "Handler": "bootstrap",
		} {
			if got := p[field]; compactJSON(got) != compactJSON(want) {
				t.Errorf("dowork %s = %v, want %v", field, got, want)
			}
		}
		if got, ok := p["ReservedConcurrentExecutions"]; ok {
			t.Errorf("dowork reserves %v concurrent executions by default, want none", got)
		}
	}
	var machine map[string]any
	for id, sm := range resourcesOf("AWS::StepFunctions::StateMachine") {
		if strings.HasPrefix(id, demo.SemaphoreID+"StateMachine") {
			machine = sm["Properties"].(map[string]any)
		}
	}
	if machine == nil {
		t.Fatal("no semaphore state machine")
	}
	subs := compactJSON(machine["DefinitionSubstitutions"])
	if !strings.Contains(subs, `"WorkFunctionArn":{"Fn::GetAtt":["`+fnID+`","Arn"]}`) {
		t.Errorf("DefinitionSubstitutions = %s, want WorkFunctionArn = the dowork function", subs)
	}
	def, _ := machine["DefinitionString"].(string)
	for _, want := range []string{`"lockName":"MySemaphore"`, `"limit":5`} {
		if !strings.Contains(def, want) {
			t.Errorf("definition lacks %s", want)
		}
	}
	outputs := synthesized.template["Outputs"].(map[string]any)
	var names []string
	for name := range outputs {
		names = append(names, name)
	}
	slices.Sort(names)
	if want := []string{demo.OutputAlarmTopicArn, demo.OutputDoWorkFunctionName, demo.OutputLockTableName, demo.OutputStateMachineArn, demo.OutputTestRunnerFunctionName}; !slices.Equal(names, want) {
		t.Errorf("outputs = %v, want %v", names, want)
	}
}

var spaces = regexp.MustCompile(`\s+`)

// compactJSON renders v for comparisons.
func compactJSON(v any) string {
	return spaces.ReplaceAllString(strings.TrimSpace(jsonString(v)), "")
}

// TestReservedConcurrency checks that the reservedConcurrency context caps the dowork function
// (read from the construct tree: no second synth).
func TestReservedConcurrency(t *testing.T) {
	app := awscdk.NewApp(&awscdk.AppProps{Context: &map[string]any{
		"aws:cdk:bundling-stacks":       []string{},
		demo.ContextReservedConcurrency: "5",
	}})
	cfg, err := demo.ConfigFromContext(app.Node())
	if err != nil {
		t.Fatal(err)
	}
	stack := demo.NewStack(app, cfg)
	fn, ok := stack.DoWork().Node().DefaultChild().(awslambda.CfnFunction)
	if !ok {
		t.Fatal("the dowork function has no CfnFunction")
	}
	if got := fn.ReservedConcurrentExecutions(); got == nil || *got != 5 {
		t.Errorf("ReservedConcurrentExecutions = %v, want 5", got)
	}
}

// assetHash matches the 64-hex-digit asset hashes, which change with the dowork binary.
var assetHash = regexp.MustCompile(`[0-9a-f]{64}`)

// TestDemoTemplateGolden compares the demo template (what cdk synth deploys, bundling skipped)
// with testdata/TurnstileDemo.template.json, asset hashes normalized; -update rewrites it.
func TestDemoTemplateGolden(t *testing.T) {
	out, err := json.MarshalIndent(synthesized.template, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got := append(assetHash.ReplaceAll(out, []byte("<asset-hash>")), '\n')
	path := filepath.Join("testdata", demo.DefaultStackName+".template.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the synthesized template (review, then go test -update)", path)
	}
}

// TestTestRunnerPermissions checks that the load-test function may start and read the
// semaphore's executions and read the lock table, and nothing broader.
func TestTestRunnerPermissions(t *testing.T) {
	var actions []string
	for id, p := range resourcesOf("AWS::IAM::Policy") {
		if !strings.HasPrefix(id, demo.TestRunnerID) {
			continue
		}
		doc := p["Properties"].(map[string]any)["PolicyDocument"].(map[string]any)
		for _, st := range doc["Statement"].([]any) {
			switch a := st.(map[string]any)["Action"].(type) {
			case string:
				actions = append(actions, a)
			case []any:
				for _, x := range a {
					actions = append(actions, x.(string))
				}
			}
		}
	}
	for _, want := range []string{"states:StartExecution", "states:DescribeExecution", "states:GetExecutionHistory", "dynamodb:Scan"} {
		if !slices.Contains(actions, want) {
			t.Errorf("the test runner may not %s; its actions: %v", want, actions)
		}
	}
	for _, a := range actions {
		if strings.HasSuffix(a, ":*") || strings.HasPrefix(a, "dynamodb:Put") || strings.HasPrefix(a, "dynamodb:Update") || strings.HasPrefix(a, "dynamodb:Delete") {
			t.Errorf("the test runner may %s: broader than a load test needs", a)
		}
	}
}

// TestDemoIsMonitored checks that the demo turns on the semaphore's alarms, each notifying the
// alarm topic, and its dashboard.
func TestDemoIsMonitored(t *testing.T) {
	topics := resourcesOf("AWS::SNS::Topic")
	if len(topics) != 1 {
		t.Fatalf("%d topics, want the alarm topic", len(topics))
	}
	var topicID string
	for id := range topics {
		topicID = id
	}
	alarmed := map[string]bool{}
	for id, alarm := range resourcesOf("AWS::CloudWatch::Alarm") {
		p := alarm["Properties"].(map[string]any)
		if p["Namespace"] != metrics.Namespace {
			continue // the cleanup's dead-letter alarm
		}
		alarmed[p["MetricName"].(string)] = true
		if got := compactJSON(p["AlarmActions"]); got != `[{"Ref":"`+topicID+`"}]` {
			t.Errorf("%s: actions %s, want the alarm topic", id, got)
		}
	}
	for _, name := range []string{metrics.SlotsFreedByReconciler, metrics.OldestWait, metrics.AcquireTimeouts} {
		if !alarmed[name] {
			t.Errorf("no alarm on %s", name)
		}
	}
	if got := len(resourcesOf("AWS::CloudWatch::Dashboard")); got != 1 {
		t.Errorf("%d dashboards, want 1", got)
	}
}
