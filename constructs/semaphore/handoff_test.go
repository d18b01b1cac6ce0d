package semaphore_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/constructs/semaphore"
)

// handOffFunction returns the logical ID and the resource of the hand-off function.
func handOffFunction(t *testing.T, f fixture) (string, map[string]any) {
	t.Helper()
	for id, fn := range resources(f, "AWS::Lambda::Function") {
		if strings.HasPrefix(id, "Semaphore"+semaphore.HandOffID) {
			return id, fn
		}
	}
	t.Fatalf("%s: no hand-off function", *f.stack.StackName())
	return "", nil
}

// policyStatements returns the statements of the IAM policies whose logical ID starts with
// prefix.
func policyStatements(f fixture, prefix string) []map[string]any {
	var out []map[string]any
	for id, p := range resources(f, "AWS::IAM::Policy") {
		if !strings.HasPrefix(id, prefix) {
			continue
		}
		for _, s := range props(p)["PolicyDocument"].(map[string]any)["Statement"].([]any) {
			out = append(out, s.(map[string]any))
		}
	}
	return out
}

// TestHandOffLeastPrivilege: the hand-off function only gets and updates items of the lock
// table, completes task tokens of its own machine and describes its executions; the machine
// may invoke it; the polling stacks have no hand-off function at all.
func TestHandOffLeastPrivilege(t *testing.T) {
	fnID, fn := handOffFunction(t, callbackStack)
	env := props(fn)["Environment"].(map[string]any)["Variables"].(map[string]any)
	tableID, _ := onlyTable(t, callbackStack)
	if compact(env[machines.EnvHandOffLockTable]) != compact(map[string]any{"Ref": tableID}) {
		t.Errorf("hand-off environment = %v, want %s = Ref(%s)", env, machines.EnvHandOffLockTable, tableID)
	}
	var actions []string
	for _, s := range policyStatements(callbackStack, "Semaphore"+semaphore.HandOffID) {
		for _, a := range strs(s["Action"]) {
			if !strings.HasPrefix(a.(string), "logs:") { // its own log group, granted by golambda
				actions = append(actions, a.(string))
			}
		}
		res := compact(strs(s["Resource"]))
		switch {
		case slices.Contains(strs(s["Action"]), any("states:SendTaskSuccess")):
			if !strings.Contains(res, `"Ref":"SemaphoreStateMachine`) {
				t.Errorf("SendTaskSuccess on %s, want the semaphore machine only", res)
			}
		case slices.Contains(strs(s["Action"]), any("states:DescribeExecution")):
			if !strings.Contains(res, `":execution:",{"Fn::Select":[6,{"Fn::Split":[":",{"Ref":"SemaphoreStateMachine`) || !strings.HasSuffix(res, `":*"]]}]`) {
				t.Errorf("DescribeExecution on %s, want the machine's executions only", res)
			}
		case strings.HasPrefix(strs(s["Action"])[0].(string), "dynamodb:"):
			if res != compact([]any{map[string]any{"Fn::GetAtt": []any{tableID, "Arn"}}}) {
				t.Errorf("DynamoDB actions on %s, want the lock table only", res)
			}
		}
	}
	slices.Sort(actions)
	want := []string{"dynamodb:DeleteItem", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:Query", "dynamodb:UpdateItem", "states:DescribeExecution", "states:SendTaskSuccess", "states:StartExecution"}
	if !slices.Equal(actions, want) {
		t.Errorf("hand-off actions %v, want %v", actions, want)
	}
	invokes := false
	for _, s := range statements(t, callbackStack) {
		if slices.Contains(strs(s["Action"]), any("lambda:InvokeFunction")) && strings.Contains(compact(s["Resource"]), fnID) {
			invokes = true
		}
	}
	if !invokes {
		t.Error("the semaphore machine may not invoke the hand-off function")
	}
	// The function must not wait for the policy that names the machine, or CloudFormation
	// finds a cycle (machine → function → policy → machine).
	if deps := compact(fn["DependsOn"]); strings.Contains(deps, "HandOffPolicy") {
		t.Errorf("the hand-off function depends on %s", deps)
	}
	for _, f := range []fixture{lambdaStack, chainStack} {
		if f.sem.HandOffFunction() != nil || len(policyStatements(f, "Semaphore"+semaphore.HandOffID)) > 0 {
			t.Errorf("%s polls but has a hand-off function", *f.stack.StackName())
		}
	}
}
