package semaphore_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/constructs/semaphore"
)

func newRateStack(app awscdk.App) fixture {
	stack := awscdk.NewStack(app, jsii.String("RateLimited"), nil)
	sem := semaphore.New(stack, jsii.String("Semaphore"), &semaphore.Props{
		LockName:     "MySemaphore",
		Limit:        5,
		WorkFunction: echoFunction(stack, "Work"),
		Rate:         &semaphore.Rate{PerSecond: 10, Burst: 5},
	})
	return fixture{stack: stack, sem: sem}
}

// TestRateDefinitionIsGoldenASL checks that a semaphore with a Rate deploys the golden machine
// of asl/machines for the same options, the Rate gate included.
func TestRateDefinitionIsGoldenASL(t *testing.T) {
	tableID, _ := onlyTable(t, rateStack)
	handOffID, _ := handOffFunction(t, rateStack)
	wantSubs := map[string]string{
		machines.SubstitutionTableName:          "Ref(" + tableID + ")",
		machines.SubstitutionWorkFunctionArn:    "GetAtt(WorkBF636A8B.Arn)",
		machines.SubstitutionHandOffFunctionArn: "GetAtt(" + handOffID + ".Arn)",
	}
	checkGoldenDefinition(t, rateStack, filepath.Join("..", "..", "asl", "machines", "testdata", "semaphore-rate-callback.asl.json"), wantSubs)
}

// TestRateNeedsNoMoreThanUpdateItem checks that the state machine may write the rate items (in
// the lock table, with UpdateItem as the acquire does) and gets nothing more on the table than
// without a Rate.
func TestRateNeedsNoMoreThanUpdateItem(t *testing.T) {
	actions := func(f fixture) []string {
		tableID, _ := onlyTable(t, f)
		roleID := ""
		for id := range resources(f, "AWS::IAM::Role") {
			if strings.HasPrefix(id, "SemaphoreStateMachineRole") {
				roleID = id
			}
		}
		if roleID == "" {
			t.Fatalf("%s: no role of the state machine", *f.stack.StackName())
		}
		got := policyActionsOn(f, roleID)[compact(map[string]any{"Fn::GetAtt": []any{tableID, "Arn"}})]
		slices.Sort(got)
		return got
	}
	with, without := actions(rateStack), actions(callbackStack)
	if !slices.Contains(with, "dynamodb:UpdateItem") || !slices.Equal(with, without) {
		t.Errorf("the state machine's actions on the lock table: %v with a Rate, %v without; want UpdateItem, and the same", with, without)
	}
}
