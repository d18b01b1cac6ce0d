package cleanup_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"

	"github.com/turnstile-sfn/turnstile/constructs/cleanup"
)

// statusRule returns the rule whose event pattern's detail.status is status, as compact JSON.
func statusRule(t *testing.T, status string) map[string]any {
	t.Helper()
	for _, r := range resources("AWS::Events::Rule") {
		pattern, ok := props(r)["EventPattern"].(map[string]any)
		if !ok {
			continue
		}
		if compact(pattern["detail"].(map[string]any)["status"]) == status {
			return r
		}
	}
	t.Fatalf("no rule on detail.status %s", status)
	return nil
}

// TestRulePatterns checks the two status-change rules: both on Step Functions status changes
// of the protected machine only; the cleanup's on its three ends, the redrive guard's on
// RUNNING with a redriveCount above 0.
func TestRulePatterns(t *testing.T) {
	machineRef := compact([]any{map[string]any{"Ref": logicalID(t, fixture.machine.Node().DefaultChild().(awscdk.CfnElement))}})
	tests := []struct {
		name         string
		status       string
		redriveCount string
	}{
		{"cleanup", `["FAILED","TIMED_OUT","ABORTED"]`, "null"},
		{"redrive guard", `["RUNNING"]`, `[{"numeric":["\u003e",0]}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pattern := props(statusRule(t, tt.status))["EventPattern"].(map[string]any)
			detail := pattern["detail"].(map[string]any)
			got := map[string]string{
				"source":          compact(pattern["source"]),
				"detail-type":     compact(pattern["detail-type"]),
				"stateMachineArn": compact(detail["stateMachineArn"]),
				"redriveCount":    compact(detail["redriveCount"]),
				"keys":            compact(len(pattern)) + "/" + compact(len(detail)),
			}
			detailKeys := "3"
			if tt.redriveCount == "null" {
				detailKeys = "2"
			}
			want := map[string]string{
				"source":          `["aws.states"]`,
				"detail-type":     `["Step Functions Execution Status Change"]`,
				"stateMachineArn": machineRef,
				"redriveCount":    tt.redriveCount,
				"keys":            "3/" + detailKeys,
			}
			for _, k := range []string{"source", "detail-type", "stateMachineArn", "redriveCount", "keys"} {
				if got[k] != want[k] {
					t.Errorf("%s: got %s, want %s", k, got[k], want[k])
				}
			}
		})
	}
}

// TestTargetsRetryAndDeadLetter checks that every rule target (the two status-change rules and
// the reconciler's schedule) dead-letters into the cleanup's queue after its retries, and that
// the queue lets EventBridge send to it.
func TestTargetsRetryAndDeadLetter(t *testing.T) {
	dlqArn := compact(map[string]any{"Fn::GetAtt": []any{logicalID(t, fixture.cleanup.DeadLetterQueue().Node().DefaultChild().(awscdk.CfnElement)), "Arn"}})
	statusRetry := compact(map[string]any{"MaximumEventAgeInSeconds": cleanup.DefaultMaxEventAgeHours * 3600, "MaximumRetryAttempts": cleanup.DefaultRetryAttempts})
	rules := resources("AWS::Events::Rule")
	if len(rules) != 3 {
		t.Fatalf("got %d rules, want 3 (cleanup, redrive guard, reconciler schedule)", len(rules))
	}
	for id, r := range rules {
		targets := props(r)["Targets"].([]any)
		if len(targets) != 1 {
			t.Errorf("%s: got %d targets, want 1", id, len(targets))
			continue
		}
		target := targets[0].(map[string]any)
		if got := compact(target["DeadLetterConfig"]); got != `{"Arn":`+dlqArn+`}` {
			t.Errorf("%s: DeadLetterConfig = %s, want the cleanup's queue %s", id, got, dlqArn)
		}
		wantRetry := statusRetry
		if _, scheduled := props(r)["ScheduleExpression"]; scheduled {
			wantRetry = `{"MaximumRetryAttempts":2}`
		}
		if got := compact(target["RetryPolicy"]); got != wantRetry {
			t.Errorf("%s: RetryPolicy = %s, want %s", id, got, wantRetry)
		}
	}
	var grantsEvents bool
	for _, p := range resources("AWS::SQS::QueuePolicy") {
		doc := compact(props(p)["PolicyDocument"])
		grantsEvents = grantsEvents || (strings.Contains(doc, `"sqs:SendMessage"`) && strings.Contains(doc, `"events.amazonaws.com"`))
	}
	if !grantsEvents {
		t.Error("no queue policy lets events.amazonaws.com send to the dead-letter queue")
	}
}

// TestDeadLetterAlarm checks the alarm on the dead-letter queue's depth.
func TestDeadLetterAlarm(t *testing.T) {
	alarms := resources("AWS::CloudWatch::Alarm")
	if len(alarms) != 1 {
		t.Fatalf("got %d alarms, want 1", len(alarms))
	}
	queueName := compact([]any{map[string]any{"Name": "QueueName", "Value": map[string]any{
		"Fn::GetAtt": []any{logicalID(t, fixture.cleanup.DeadLetterQueue().Node().DefaultChild().(awscdk.CfnElement)), "QueueName"},
	}}})
	for id, a := range alarms {
		p := props(a)
		got := []string{compact(p["Namespace"]), compact(p["MetricName"]), compact(p["Dimensions"]), compact(p["ComparisonOperator"]), compact(p["Threshold"])}
		want := []string{`"AWS/SQS"`, `"ApproximateNumberOfMessagesVisible"`, queueName, `"GreaterThanOrEqualToThreshold"`, compact(cleanup.DefaultDeadLetterAlarmThreshold)}
		if !slices.Equal(got, want) {
			t.Errorf("%s: namespace, metric, dimensions, comparison, threshold = %v, want %v", id, got, want)
		}
	}
}

// TestLeastPrivilege checks every statement that grants a Step Functions or DynamoDB action:
// DescribeExecution (and StopExecution for the redrive guard) only on the protected machine's
// executions, the table actions only on the lock table, and nothing else on either service.
func TestLeastPrivilege(t *testing.T) {
	machineID := logicalID(t, fixture.machine.Node().DefaultChild().(awscdk.CfnElement))
	executions := compact(map[string]any{"Fn::Join": []any{"", []any{
		"arn:", map[string]any{"Ref": "AWS::Partition"}, ":states:", map[string]any{"Ref": "AWS::Region"}, ":",
		map[string]any{"Ref": "AWS::AccountId"}, ":execution:",
		map[string]any{"Fn::Select": []any{6, map[string]any{"Fn::Split": []any{":", map[string]any{"Ref": machineID}}}}}, ":*",
	}}})
	table := compact([]any{map[string]any{"Fn::GetAtt": []any{logicalID(t, fixture.table.Node().DefaultChild().(awscdk.CfnElement)), "Arn"}}})
	cleanupMachine := compact(map[string]any{"Ref": logicalID(t, fixture.cleanup.StateMachine().Node().DefaultChild().(awscdk.CfnElement))})
	guard := compact(map[string]any{"Ref": logicalID(t, fixture.cleanup.RedriveGuard().Node().DefaultChild().(awscdk.CfnElement))})

	// got collects, per role, the Step Functions and DynamoDB grants as "action on resource".
	got := map[string][]string{}
	for _, p := range resources("AWS::IAM::Policy") {
		role := compact(props(p)["Roles"])
		for _, s := range props(p)["PolicyDocument"].(map[string]any)["Statement"].([]any) {
			statement := s.(map[string]any)
			actions, ok := statement["Action"].([]any)
			if !ok {
				actions = []any{statement["Action"]}
			}
			for _, a := range actions {
				action := a.(string)
				if !strings.HasPrefix(action, "states:") && !strings.HasPrefix(action, "dynamodb:") {
					continue
				}
				resource := compact(statement["Resource"])
				switch resource {
				case executions:
					resource = "executions"
				case table:
					resource = "table"
				case cleanupMachine:
					resource = "cleanup machine"
				case guard:
					resource = "redrive guard"
				}
				got[role] = append(got[role], action+" on "+resource)
			}
		}
	}
	want := map[string][]string{
		"CleanupStateMachineRole":       {"dynamodb:DeleteItem on table", "dynamodb:Query on table", "dynamodb:UpdateItem on table", "states:DescribeExecution on executions"},
		"CleanupRedriveGuardRole":       {"dynamodb:PutItem on table", "dynamodb:Query on table", "dynamodb:UpdateItem on table", "states:DescribeExecution on executions", "states:StopExecution on executions"},
		"CleanupReconcilerServiceRole":  {"dynamodb:DeleteItem on table", "dynamodb:GetItem on table", "dynamodb:PutItem on table", "dynamodb:Query on table", "dynamodb:Scan on table", "dynamodb:UpdateItem on table", "states:DescribeExecution on executions"},
		"CleanupStateMachineEventsRole": {"states:StartExecution on cleanup machine"},
		"CleanupRedriveGuardEventsRole": {"states:StartExecution on redrive guard"},
	}
	if len(got) != len(want) {
		t.Errorf("got Step Functions or DynamoDB grants for %d roles, want %d: %v", len(got), len(want), got)
	}
	for role, grants := range got {
		slices.Sort(grants)
		var prefix string
		for p := range want {
			if strings.HasPrefix(role, `[{"Ref":"`+p) && len(p) > len(prefix) {
				prefix = p
			}
		}
		if !slices.Equal(grants, want[prefix]) {
			t.Errorf("role %s: grants %v, want %v", role, grants, want[prefix])
		}
	}
}
