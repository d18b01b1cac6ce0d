package semaphore_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/jsii-runtime-go"

	"github.com/turnstile-sfn/turnstile/constructs/semaphore"
)

// policyActionsOn returns, for the policies attached to the role with the given logical ID, the
// actions granted on each resource (rendered as compact JSON).
func policyActionsOn(f fixture, roleID string) map[string][]string {
	out := map[string][]string{}
	for _, p := range resources(f, "AWS::IAM::Policy") {
		roles := compact(props(p)["Roles"])
		if !strings.Contains(roles, `"`+roleID+`"`) {
			continue
		}
		doc := props(p)["PolicyDocument"].(map[string]any)
		for _, s := range doc["Statement"].([]any) {
			st := s.(map[string]any)
			for _, r := range strs(st["Resource"]) {
				for _, a := range strs(st["Action"]) {
					out[compact(r)] = append(out[compact(r)], a.(string))
				}
			}
		}
	}
	return out
}

// TestWorkFunctionGetsTheSlotCheckGrant checks that a WorkFunction may run slot.Verify without
// the user granting anything: GetItem and UpdateItem on the lock table, nothing more on it.
func TestWorkFunctionGetsTheSlotCheckGrant(t *testing.T) {
	for _, f := range []fixture{lambdaStack, callbackStack} {
		tableID, _ := onlyTable(t, f)
		roleID := ""
		for id := range resources(f, "AWS::IAM::Role") {
			if strings.HasPrefix(id, "WorkServiceRole") {
				roleID = id
			}
		}
		if roleID == "" {
			t.Fatalf("%s: no role of the work function", *f.stack.StackName())
		}
		got := policyActionsOn(f, roleID)[compact(map[string]any{"Fn::GetAtt": []any{tableID, "Arn"}})]
		slices.Sort(got)
		if want := []string{"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"}; !slices.Equal(got, want) {
			t.Errorf("%s: the work function's actions on the lock table = %v, want %v", *f.stack.StackName(), got, want)
		}
	}
}

// TestGrantStartExecution checks the producer's grant: states:StartExecution on the semaphore's
// machine.
func TestGrantStartExecution(t *testing.T) {
	app := awscdk.NewApp(&awscdk.AppProps{Context: &map[string]any{"aws:cdk:bundling-stacks": []string{}}})
	stack := awscdk.NewStack(app, jsii.String("Producer"), nil)
	sem := semaphore.New(stack, jsii.String("Semaphore"), &semaphore.Props{
		LockName: "Jobs", Limit: 2, WorkFunction: echoFunction(stack, "Work"),
	})
	producer := awsiam.NewRole(stack, jsii.String("Producer"), &awsiam.RoleProps{
		AssumedBy: awsiam.NewServicePrincipal(jsii.String("lambda.amazonaws.com"), nil),
	})
	sem.GrantStartExecution(producer)
	f := fixture{stack: stack, template: assertions.Template_FromStack(stack, nil)}
	f.json = *f.template.ToJSON()
	var roleID, machineID string
	for id := range resources(f, "AWS::IAM::Role") {
		if strings.HasPrefix(id, "Producer") {
			roleID = id
		}
	}
	for id := range resources(f, "AWS::StepFunctions::StateMachine") {
		if strings.HasPrefix(id, "SemaphoreStateMachine") {
			machineID = id
		}
	}
	got := policyActionsOn(f, roleID)[compact(map[string]any{"Ref": machineID})]
	if !slices.Equal(got, []string{"states:StartExecution"}) {
		t.Errorf("producer's actions on the machine = %v, want [states:StartExecution]", got)
	}
}
