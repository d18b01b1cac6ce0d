package semaphore_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aws/jsii-runtime-go"
	"github.com/turnstile-sfn/turnstile/constructs/semaphore"
)

// TestLockTable checks the table the construct creates: exactly one, keyed by LockName and
// Entry, on demand, point-in-time recovery on, encrypted with the AWS-managed key.
func TestLockTable(t *testing.T) {
	noPanic(t, "one table", func() {
		lambdaStack.template.ResourceCountIs(jsii.String("AWS::DynamoDB::Table"), jsii.Number(1))
	})
	noPanic(t, "table properties", func() {
		lambdaStack.template.HasResourceProperties(jsii.String("AWS::DynamoDB::Table"), map[string]any{
			"KeySchema": []any{
				map[string]any{"AttributeName": "LockName", "KeyType": "HASH"},
				map[string]any{"AttributeName": "Entry", "KeyType": "RANGE"},
			},
			"BillingMode":                      "PAY_PER_REQUEST",
			"PointInTimeRecoverySpecification": map[string]any{"PointInTimeRecoveryEnabled": true},
			"SSESpecification":                 map[string]any{"SSEEnabled": true},
		})
	})
	_, table := only(t, lambdaStack, "AWS::DynamoDB::Table")
	if got := table["DeletionPolicy"]; got != "Delete" {
		t.Errorf("DeletionPolicy = %v, want Delete (DefaultRemovalPolicy)", got)
	}
	if _, kms := props(table)["SSESpecification"].(map[string]any)["KMSMasterKeyId"]; kms {
		t.Error("the table names a KMS key: want the AWS-managed key")
	}
	// With an existing table, the construct creates none.
	noPanic(t, "existing table", func() {
		childStack.template.ResourceCountIs(jsii.String("AWS::DynamoDB::Table"), jsii.Number(1))
	})
}

// statements returns every IAM statement attached to the semaphore's state machine role.
func statements(t *testing.T, f fixture) []map[string]any {
	t.Helper()
	var out []map[string]any
	for id, p := range resources(f, "AWS::IAM::Policy") {
		if !strings.HasPrefix(id, "SemaphoreStateMachineRole") {
			continue
		}
		for _, s := range props(p)["PolicyDocument"].(map[string]any)["Statement"].([]any) {
			out = append(out, s.(map[string]any))
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s: the state machine role has no policy", *f.stack.StackName())
	}
	return out
}

// strs returns a statement field that may be a string or a list, as a list.
func strs(v any) []any {
	if list, ok := v.([]any); ok {
		return list
	}
	return []any{v}
}

// TestRoleDynamoDBLeastPrivilege checks that the role may only do what its lock tasks need on
// its own lock table (package lock's action lists): no other DynamoDB action, no wildcard
// action, no other resource.
func TestRoleDynamoDBLeastPrivilege(t *testing.T) {
	for _, f := range []fixture{lambdaStack, childStack, chainStack, callbackStack} {
		tableID, _ := onlyTable(t, f)
		wantResource := compact([]any{map[string]any{"Fn::GetAtt": []any{tableID, "Arn"}}})
		var dynamo int
		for _, s := range statements(t, f) {
			actions := strs(s["Action"])
			for _, a := range actions {
				if a == "*" || strings.HasSuffix(a.(string), ":*") {
					t.Errorf("%s: wildcard action %v", *f.stack.StackName(), a)
				}
			}
			if !slices.ContainsFunc(actions, func(a any) bool { return strings.HasPrefix(a.(string), "dynamodb:") }) {
				continue
			}
			dynamo++
			want := `["dynamodb:UpdateItem","dynamodb:PutItem","dynamodb:Query","dynamodb:DeleteItem"]`
			if f.sem.HandOffFunction() != nil {
				want = `["dynamodb:UpdateItem"]` // it draws tickets; the hand-off function does the rest
			}
			if got := compact(actions); got != want {
				t.Errorf("%s: DynamoDB actions %s, want %s", *f.stack.StackName(), got, want)
			}
			if got := compact(strs(s["Resource"])); got != wantResource {
				t.Errorf("%s: DynamoDB resources %s, want %s", *f.stack.StackName(), got, wantResource)
			}
		}
		if dynamo != 1 {
			t.Errorf("%s: %d statements grant DynamoDB actions, want 1", *f.stack.StackName(), dynamo)
		}
	}
}

// onlyTable returns the stack's single table.
func onlyTable(t *testing.T, f fixture) (string, map[string]any) {
	t.Helper()
	return only(t, f, "AWS::DynamoDB::Table")
}

// TestRoleWorkPermissions checks what each kind of work is granted: the function itself (no
// version wildcard), the child machine with its executions and the .sync rule, or the chain's
// own statements.
func TestRoleWorkPermissions(t *testing.T) {
	byAction := func(f fixture) map[string]string {
		out := map[string]string{}
		for _, s := range statements(t, f) {
			for _, a := range strs(s["Action"]) {
				out[a.(string)] = compact(s["Resource"])
			}
		}
		return out
	}
	lambda := byAction(lambdaStack)
	if got, want := lambda["lambda:InvokeFunction"], `{"Fn::GetAtt":["WorkBF636A8B","Arn"]}`; got != want {
		t.Errorf("lambda:InvokeFunction on %s, want %s", got, want)
	}
	child := byAction(childStack)
	if got, want := child["states:StartExecution"], `{"Ref":"ChildDAB30558"}`; got != want {
		t.Errorf("states:StartExecution on %s, want %s", got, want)
	}
	for _, a := range []string{"states:DescribeExecution", "states:StopExecution"} {
		if got := child[a]; !strings.Contains(got, `":execution:",{"Fn::Select":[6,{"Fn::Split":[":",{"Ref":"ChildDAB30558"}]}]},":*"`) {
			t.Errorf("%s on %s, want the child's executions", a, got)
		}
	}
	for _, a := range []string{"events:PutTargets", "events:PutRule", "events:DescribeRule"} {
		if got := child[a]; !strings.Contains(got, ":rule/StepFunctionsGetEventsForStepFunctionsExecutionRule") {
			t.Errorf("%s on %s, want the managed .sync rule", a, got)
		}
	}
	chain := byAction(chainStack)
	if got := chain["lambda:InvokeFunction"]; !strings.Contains(got, "Writer3ED51D24") {
		t.Errorf("chain: lambda:InvokeFunction on %s, want the chain's Writer function", got)
	}
}

// TestLoggingAndTracing checks the defaults (logs at level ALL with execution data to a log
// group, X-Ray on) and that both can be turned off.
func TestLoggingAndTracing(t *testing.T) {
	logsID := semaphoreLogGroupID(t, lambdaStack)
	noPanic(t, "logging and tracing on", func() {
		lambdaStack.template.HasResourceProperties(jsii.String("AWS::StepFunctions::StateMachine"), map[string]any{
			"StateMachineType": "STANDARD",
			"LoggingConfiguration": map[string]any{
				"Level":                "ALL",
				"IncludeExecutionData": true,
				"Destinations": []any{map[string]any{"CloudWatchLogsLogGroup": map[string]any{
					"LogGroupArn": map[string]any{"Fn::GetAtt": []any{logsID, "Arn"}},
				}}},
			},
			"TracingConfiguration": map[string]any{"Enabled": true},
		})
	})
	noPanic(t, "log retention", func() {
		lambdaStack.template.HasResourceProperties(jsii.String("AWS::Logs::LogGroup"), map[string]any{"RetentionInDays": 30})
	})
	off := props(stateMachine(t, childStack))
	if _, ok := off["LoggingConfiguration"]; ok {
		t.Error("Logging: false still configures logging")
	}
	if got := compact(off["TracingConfiguration"]); got != `{"Enabled":false}` {
		t.Errorf("Tracing: false gives TracingConfiguration %s", got)
	}
	for id := range resources(childStack, "AWS::Logs::LogGroup") {
		if !strings.HasPrefix(id, "SemaphoreCleanup") && !strings.HasPrefix(id, "Semaphore"+semaphore.HandOffID) {
			t.Errorf("Logging: false still has the log group %s (only the cleanup's and the hand-off function's are expected)", id)
		}
	}
}

// TestNoPhysicalNames checks that the construct hard-codes no physical name: CloudFormation
// generates them, so two semaphores (or two deployments) never collide.
func TestNoPhysicalNames(t *testing.T) {
	named := map[string]string{
		"AWS::DynamoDB::Table":             "TableName",
		"AWS::StepFunctions::StateMachine": "StateMachineName",
		"AWS::Logs::LogGroup":              "LogGroupName",
		"AWS::IAM::Role":                   "RoleName",
	}
	for _, f := range []fixture{lambdaStack, childStack, chainStack, callbackStack} {
		for typ, field := range named {
			for id, r := range resources(f, typ) {
				if name, ok := props(r)[field]; ok {
					t.Errorf("%s: %s has the physical name %v", *f.stack.StackName(), id, name)
				}
			}
		}
	}
}

// assetHash matches the 64-hex-digit asset hashes that change with any asset's bytes.
var assetHash = regexp.MustCompile(`[0-9a-f]{64}`)

// TestTemplateGolden compares each synthesized template with testdata/<stack>.template.json
// (rewritten with -update), asset hashes normalized.
func TestTemplateGolden(t *testing.T) {
	for _, f := range []fixture{lambdaStack, childStack, chainStack, callbackStack} {
		name := *f.stack.StackName()
		t.Run(name, func(t *testing.T) {
			out, err := json.MarshalIndent(f.json, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got := append(assetHash.ReplaceAll(out, []byte("<asset-hash>")), '\n')
			path := filepath.Join("testdata", name+".template.json")
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
		})
	}
}
