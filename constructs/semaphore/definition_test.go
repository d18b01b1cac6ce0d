package semaphore_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/asl/machines"
)

// goldenDefault is the golden ASL of the default options, kept by asl/machines.
var goldenDefault = filepath.Join("..", "..", "asl", "machines", "testdata", "semaphore-default.asl.json")

// intrinsic renders a CloudFormation intrinsic (Ref, Fn::GetAtt, …) as a stable marker, as it
// would resolve at deploy time: Ref(LogicalId), GetAtt(LogicalId.Arn).
func intrinsic(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Sprint(v)
	}
	if ref, ok := m["Ref"]; ok {
		return fmt.Sprintf("Ref(%v)", ref)
	}
	if att, ok := m["Fn::GetAtt"].([]any); ok && len(att) == 2 {
		return fmt.Sprintf("GetAtt(%v.%v)", att[0], att[1])
	}
	return compact(m)
}

// resolvedDefinition returns the state machine's definition as CloudFormation deploys it:
// the DefinitionString (joined, when it holds tokens) with its DefinitionSubstitutions applied,
// intrinsics rendered by intrinsic.
func resolvedDefinition(t *testing.T, sm map[string]any) string {
	t.Helper()
	var def string
	switch d := props(sm)["DefinitionString"].(type) {
	case string:
		def = d
	case map[string]any:
		parts := d["Fn::Join"].([]any)[1].([]any)
		var b strings.Builder
		for _, p := range parts {
			if s, ok := p.(string); ok {
				b.WriteString(s)
			} else {
				b.WriteString(intrinsic(p))
			}
		}
		def = b.String()
	default:
		t.Fatalf("DefinitionString is %T", d)
	}
	return substitute(def, substitutions(sm))
}

// substitutions returns the DefinitionSubstitutions with their values rendered by intrinsic.
func substitutions(sm map[string]any) map[string]string {
	out := map[string]string{}
	subs, _ := props(sm)["DefinitionSubstitutions"].(map[string]any)
	for k, v := range subs {
		out[k] = intrinsic(v)
	}
	return out
}

// substitute replaces every ${key} of subs in def.
func substitute(def string, subs map[string]string) string {
	keys := make([]string, 0, len(subs))
	for k := range subs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		def = strings.ReplaceAll(def, machines.Placeholder(k), subs[k])
	}
	return def
}

// TestDefinitionIsGoldenASL checks that the synthesized DefinitionString, substitutions
// applied, is exactly the golden ASL of asl/machines for the same options, substitutions
// applied: what the golden file shows is what CloudFormation deploys.
func TestDefinitionIsGoldenASL(t *testing.T) {
	tableID, _ := onlyTable(t, lambdaStack)
	wantSubs := map[string]string{
		machines.SubstitutionTableName:       "Ref(" + tableID + ")",
		machines.SubstitutionWorkFunctionArn: "GetAtt(WorkBF636A8B.Arn)",
	}
	checkGoldenDefinition(t, lambdaStack, goldenDefault, wantSubs)
}

// TestCallbackDefinitionIsGoldenASL is TestDefinitionIsGoldenASL for the Callback strategy,
// whose definition also names the hand-off function.
func TestCallbackDefinitionIsGoldenASL(t *testing.T) {
	tableID, _ := onlyTable(t, callbackStack)
	handOffID, _ := handOffFunction(t, callbackStack)
	wantSubs := map[string]string{
		machines.SubstitutionTableName:          "Ref(" + tableID + ")",
		machines.SubstitutionWorkFunctionArn:    "GetAtt(WorkBF636A8B.Arn)",
		machines.SubstitutionHandOffFunctionArn: "GetAtt(" + handOffID + ".Arn)",
	}
	checkGoldenDefinition(t, callbackStack, filepath.Join("..", "..", "asl", "machines", "testdata", "semaphore-callback.asl.json"), wantSubs)
}

// checkGoldenDefinition compares f's deployed definition with the golden file, both with
// wantSubs applied.
func checkGoldenDefinition(t *testing.T, f fixture, goldenPath string, wantSubs map[string]string) {
	t.Helper()
	sm := stateMachine(t, f)
	subs := substitutions(sm)
	if compact(subs) != compact(wantSubs) {
		t.Errorf("DefinitionSubstitutions = %v, want %v", subs, wantSubs)
	}
	golden, err := os.ReadFile(goldenPath)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := json.Compact(&want, golden); err != nil {
		t.Fatal(err)
	}
	got := resolvedDefinition(t, sm)
	if wantDef := substitute(want.String(), wantSubs); got != wantDef {
		t.Errorf("deployed definition differs from %s:\n got: %s\nwant: %s", goldenPath, got, wantDef)
	}
	if strings.Contains(got, "${") {
		t.Errorf("a placeholder is left unresolved: %s", got)
	}
}

// TestDefinitionAccessor checks that Definition() returns the model of what was deployed (for
// the stacks whose definitions hold no CDK token).
func TestDefinitionAccessor(t *testing.T) {
	for _, f := range []fixture{lambdaStack, childStack} {
		def, err := f.sem.Definition().Render()
		if err != nil {
			t.Fatal(err)
		}
		sm := stateMachine(t, f)
		if got, want := resolvedDefinition(t, sm), substitute(string(def), substitutions(sm)); got != want {
			t.Errorf("%s: Definition() renders\n%s\nbut the template deploys\n%s", *f.stack.StackName(), want, got)
		}
	}
}

// TestChainWorkEmbedded checks that the caller's chain runs, as CDK rendered it, inside the
// Run Work branch, and that the resolved definition is valid States Language.
func TestChainWorkEmbedded(t *testing.T) {
	m, err := asl.Parse([]byte(resolvedDefinition(t, stateMachine(t, chainStack))))
	if err != nil {
		t.Fatalf("the deployed definition does not parse: %v", err)
	}
	if err := m.Validate(); err != nil {
		t.Fatalf("the deployed definition is invalid: %v", err)
	}
	run, ok := m.States.Get(machines.StateRunWork).(*asl.Parallel)
	if !ok || len(run.Branches) != 1 {
		t.Fatalf("%s is not a one-branch Parallel state", machines.StateRunWork)
	}
	branch := run.Branches[0]
	if branch.StartAt != "Prepare Report" || branch.States.Get("Write Report") == nil {
		t.Errorf("branch = %s → %d states, want the chain Prepare Report → Write Report", branch.StartAt, len(branch.States))
	}
	write, ok := branch.States.Get("Write Report").(*asl.Task)
	if !ok {
		t.Fatal("Write Report is not a Task")
	}
	if got := write.Parameters.(map[string]any)["FunctionName"]; got != "GetAtt(Writer3ED51D24.Arn)" {
		t.Errorf("Write Report invokes %v, want the Writer function", got)
	}
}
