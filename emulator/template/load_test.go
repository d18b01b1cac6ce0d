package template_test

import (
	"errors"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/emulator/template"
)

const demoAssembly = "testdata/cdk.out"

func loadDemo(t *testing.T, opts template.Options) *template.Template {
	t.Helper()
	tpl, err := template.Load(demoAssembly, opts)
	if err != nil {
		t.Fatalf("Load(%s): %v", demoAssembly, err)
	}
	return tpl
}

func TestLoadPathForms(t *testing.T) {
	tests := []struct {
		name string
		path string
	}{
		{"assembly directory", demoAssembly},
		{"manifest file", filepath.Join(demoAssembly, "manifest.json")},
		{"template file", filepath.Join(demoAssembly, "TurnstileDemo.template.json")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tpl, err := template.Load(tt.path, template.Options{})
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if got, want := tpl.StackName, "TurnstileDemo"; got != want {
				t.Errorf("StackName = %q, want %q", got, want)
			}
			if got, want := len(tpl.StateMachines), 2; got != want {
				t.Errorf("len(StateMachines) = %d, want %d", got, want)
			}
		})
	}
}

func TestLoadPseudoParametersAndDefaults(t *testing.T) {
	tpl := loadDemo(t, template.Options{})
	got := []string{tpl.Region, tpl.Account, tpl.Partition}
	want := []string{template.DefaultRegion, template.DefaultAccount, template.DefaultPartition}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("region/account/partition = %v, want %v", got, want)
	}
	again := loadDemo(t, template.Options{})
	if tpl.StackID != again.StackID {
		t.Errorf("StackID is not deterministic: %q then %q", tpl.StackID, again.StackID)
	}
	if want := "arn:aws:cloudformation:us-east-1:000000000000:stack/TurnstileDemo/"; len(tpl.StackID) <= len(want) || tpl.StackID[:len(want)] != want {
		t.Errorf("StackID = %q, want prefix %q", tpl.StackID, want)
	}
}

func TestLoadTables(t *testing.T) {
	tpl := loadDemo(t, template.Options{})
	want := []template.Table{{
		LogicalID:            "LockTable1A2B3C4D",
		CDKPath:              "TurnstileDemo/Semaphore/LockTable/Resource",
		Name:                 "TurnstileDemo-LockTable1A2B3C4D",
		ARN:                  "arn:aws:dynamodb:us-east-1:000000000000:table/TurnstileDemo-LockTable1A2B3C4D",
		KeySchema:            []template.KeySchemaElement{{AttributeName: "LockName", KeyType: "HASH"}},
		AttributeDefinitions: []template.AttributeDefinition{{AttributeName: "LockName", AttributeType: "S"}},
		GlobalSecondaryIndexes: []template.SecondaryIndex{{
			IndexName:  "ByOwner",
			KeySchema:  []template.KeySchemaElement{{AttributeName: "Owner", KeyType: "HASH"}},
			Projection: template.Projection{ProjectionType: "INCLUDE", NonKeyAttributes: []string{"LockName"}},
		}},
		BillingMode:         template.BillingModePayPerRequest,
		TimeToLiveAttribute: "ExpiresAt",
	}}
	if !reflect.DeepEqual(tpl.Tables, want) {
		t.Errorf("Tables =\n%+v\nwant\n%+v", tpl.Tables, want)
	}
	if got, ok := tpl.TableByName("TurnstileDemo-LockTable1A2B3C4D"); !ok || got.LogicalID != "LockTable1A2B3C4D" {
		t.Errorf("TableByName = %+v, %v", got, ok)
	}
}

func TestLoadConditionsAndParameters(t *testing.T) {
	tests := []struct {
		name       string
		params     map[string]string
		wantTables []string
		wantStrict string
	}{
		{"default parameter excludes the prod table", nil, []string{"LockTable1A2B3C4D"}, ""},
		{"overridden parameter includes it", map[string]string{"Environment": "prod"}, []string{"LockTable1A2B3C4D", "OptionalAuditTable"}, "on"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tpl := loadDemo(t, template.Options{Parameters: tt.params})
			var got []string
			for _, tbl := range tpl.Tables {
				got = append(got, tbl.LogicalID)
			}
			if !reflect.DeepEqual(got, tt.wantTables) {
				t.Errorf("tables = %v, want %v", got, tt.wantTables)
			}
			if got := tpl.Functions[0].Environment["STRICT_MODE"]; got != tt.wantStrict {
				t.Errorf("STRICT_MODE = %q, want %q", got, tt.wantStrict)
			}
		})
	}
}

func TestLoadFunctions(t *testing.T) {
	tpl := loadDemo(t, template.Options{Region: "eu-west-1", Account: "123456789012"})
	reserved := 10
	want := []template.Function{{
		LogicalID:           "WorkFn12345678",
		CDKPath:             "TurnstileDemo/WorkFn/Resource",
		Name:                "TurnstileDemo-WorkFn12345678",
		ARN:                 "arn:aws:lambda:eu-west-1:123456789012:function:TurnstileDemo-WorkFn12345678",
		Handler:             "bootstrap",
		Runtime:             "provided.al2023",
		Architectures:       []string{"arm64"},
		MemorySize:          256,
		Timeout:             60 * time.Second,
		ReservedConcurrency: &reserved,
		Environment: map[string]string{
			"LOCK_TABLE":       "TurnstileDemo-LockTable1A2B3C4D",
			"FAILURE_RATE":     "0.1",
			"DURATION_SECONDS": "15",
		},
		RoleARN:   "arn:aws:iam::123456789012:role/TurnstileDemo-WorkFnServiceRole5B4C3D2E",
		AssetPath: "asset.4f2d2c9b1e0a",
	}}
	if !reflect.DeepEqual(tpl.Functions, want) {
		t.Errorf("Functions =\n%+v\nwant\n%+v", tpl.Functions, want)
	}
}

func TestFunctionLookup(t *testing.T) {
	tpl := loadDemo(t, template.Options{})
	arn := "arn:aws:lambda:us-east-1:000000000000:function:TurnstileDemo-WorkFn12345678"
	tests := []struct {
		ref    string
		wantOK bool
	}{
		{"TurnstileDemo-WorkFn12345678", true},
		{arn, true},
		{arn + ":$LATEST", true},
		{arn + ":live", true},
		{"WorkFn12345678", false},
		{"arn:aws:lambda:us-east-1:000000000000:function:Other", false},
	}
	for _, tt := range tests {
		f, ok := tpl.Function(tt.ref)
		if ok != tt.wantOK {
			t.Errorf("Function(%q) found = %v, want %v", tt.ref, ok, tt.wantOK)
		}
		if ok && f.LogicalID != "WorkFn12345678" {
			t.Errorf("Function(%q) = %s", tt.ref, f.LogicalID)
		}
	}
}

func TestLoadStateMachines(t *testing.T) {
	tpl := loadDemo(t, template.Options{})
	want := []template.StateMachine{
		{
			LogicalID:  "CleanupMachine5E6F7A8B",
			CDKPath:    "TurnstileDemo/Cleanup/Machine/Resource",
			Name:       "TurnstileDemo-cleanup",
			ARN:        "arn:aws:states:us-east-1:000000000000:stateMachine:TurnstileDemo-cleanup",
			Type:       template.StateMachineTypeStandard,
			Definition: `{"StartAt":"Release","States":{"Release":{"End":true,"Parameters":{"ReturnValues":"NONE","TableName":"TurnstileDemo-LockTable1A2B3C4D"},"Resource":"arn:aws:states:::dynamodb:updateItem","TimeoutSeconds":30,"Type":"Task"}}}`,
			RoleARN:    "arn:aws:iam::000000000000:role/TurnstileDemo-SemaphoreMachineRole9A8B7C6D",
		},
		{
			LogicalID: "SemaphoreMachineABCDEF12",
			CDKPath:   "TurnstileDemo/Semaphore/Machine/Resource",
			Name:      "TurnstileDemo-SemaphoreMachineABCDEF12",
			ARN:       "arn:aws:states:us-east-1:000000000000:stateMachine:TurnstileDemo-SemaphoreMachineABCDEF12",
			Type:      template.StateMachineTypeStandard,
			Definition: `{"StartAt":"Acquire","States":{"Acquire":{"Type":"Task","Resource":"arn:aws:states:::dynamodb:updateItem",` +
				`"Parameters":{"TableName":"TurnstileDemo-LockTable1A2B3C4D","Key":{"LockName":{"S":"demo"}},` +
				`"ConditionExpression":"attribute_not_exists(#h) AND (attribute_not_exists(#c) OR #c < :limit)"},"Next":"Work"},` +
				`"Work":{"Type":"Task","Resource":"arn:aws:lambda:us-east-1:000000000000:function:TurnstileDemo-WorkFn12345678",` +
				`"Comment":"${Unknown} stays","End":true}}}`,
			RoleARN: "arn:aws:iam::000000000000:role/TurnstileDemo-SemaphoreMachineRole9A8B7C6D",
			Logging: &template.Logging{
				Level:                "ALL",
				IncludeExecutionData: true,
				LogGroupARNs:         []string{"arn:aws:logs:us-east-1:000000000000:log-group:TurnstileDemo-SemaphoreMachineLogs0A1B2C3D:*"},
			},
			TracingEnabled: true,
			DependsOn:      []string{"SemaphoreMachineRoleDefaultPolicy1F2E3D4C", "SemaphoreMachineRole9A8B7C6D"},
		},
	}
	if !reflect.DeepEqual(tpl.StateMachines, want) {
		t.Errorf("StateMachines =\n%+v\nwant\n%+v", tpl.StateMachines, want)
	}
	if got, ok := tpl.StateMachineByARN(want[1].ARN); !ok || got.LogicalID != want[1].LogicalID {
		t.Errorf("StateMachineByARN = %+v, %v", got, ok)
	}
}

func TestLoadRules(t *testing.T) {
	tpl := loadDemo(t, template.Options{})
	maxAttempts, maxAge := 10, 3600
	want := []template.Rule{
		{
			LogicalID:    "CleanupRule2B3C4D5E",
			CDKPath:      "TurnstileDemo/Cleanup/Rule/Resource",
			Name:         "TurnstileDemo-CleanupRule2B3C4D5E",
			ARN:          "arn:aws:events:us-east-1:000000000000:rule/TurnstileDemo-CleanupRule2B3C4D5E",
			EventBusName: "default",
			EventPattern: map[string]any{
				"source":      []any{"aws.states"},
				"detail-type": []any{"Step Functions Execution Status Change"},
				"detail": map[string]any{
					"stateMachineArn": []any{"arn:aws:states:us-east-1:000000000000:stateMachine:TurnstileDemo-SemaphoreMachineABCDEF12"},
					"status":          []any{"FAILED", "TIMED_OUT", "ABORTED"},
				},
			},
			State: template.RuleStateEnabled,
			Targets: []template.Target{{
				ID:               "Target0",
				ARN:              "arn:aws:states:us-east-1:000000000000:stateMachine:TurnstileDemo-cleanup",
				RoleARN:          "arn:aws:iam::000000000000:role/TurnstileDemo-CleanupRuleEventsRole1A2B3C4D",
				RetryPolicy:      &template.RetryPolicy{MaximumRetryAttempts: &maxAttempts, MaximumEventAgeInSeconds: &maxAge},
				DeadLetterConfig: &template.DeadLetterConfig{ARN: "arn:aws:sqs:us-east-1:000000000000:TurnstileDemo-CleanupDlq7C8D9E0F"},
			}},
		},
		{
			LogicalID:          "ReconcileSchedule3C4D5E6F",
			CDKPath:            "TurnstileDemo/Cleanup/Schedule/Resource",
			Name:               "TurnstileDemo-ReconcileSchedule3C4D5E6F",
			ARN:                "arn:aws:events:us-east-1:000000000000:rule/TurnstileDemo-ReconcileSchedule3C4D5E6F",
			EventBusName:       "default",
			ScheduleExpression: "rate(5 minutes)",
			State:              template.RuleStateEnabled,
			Targets: []template.Target{{
				ID:    "Target0",
				ARN:   "arn:aws:lambda:us-east-1:000000000000:function:TurnstileDemo-WorkFn12345678",
				Input: `{"trigger":"schedule"}`,
			}},
		},
	}
	if !reflect.DeepEqual(tpl.Rules, want) {
		t.Errorf("Rules =\n%#v\nwant\n%#v", tpl.Rules, want)
	}
}

func TestLoadQueuesAndAlarms(t *testing.T) {
	tpl := loadDemo(t, template.Options{})
	wantQueues := []template.Queue{{
		LogicalID:              "CleanupDlq7C8D9E0F",
		CDKPath:                "TurnstileDemo/Cleanup/Dlq/Resource",
		Name:                   "TurnstileDemo-CleanupDlq7C8D9E0F",
		ARN:                    "arn:aws:sqs:us-east-1:000000000000:TurnstileDemo-CleanupDlq7C8D9E0F",
		URL:                    "https://sqs.us-east-1.amazonaws.com/000000000000/TurnstileDemo-CleanupDlq7C8D9E0F",
		VisibilityTimeout:      30 * time.Second,
		MessageRetentionPeriod: 14 * 24 * time.Hour,
	}}
	if !reflect.DeepEqual(tpl.Queues, wantQueues) {
		t.Errorf("Queues =\n%+v\nwant\n%+v", tpl.Queues, wantQueues)
	}
	if q, ok := tpl.QueueByARN(wantQueues[0].ARN); !ok || q.LogicalID != wantQueues[0].LogicalID {
		t.Errorf("QueueByARN = %+v, %v", q, ok)
	}
	wantAlarms := []template.Alarm{{
		LogicalID:          "DlqDepthAlarm4D5E6F7A",
		CDKPath:            "TurnstileDemo/Cleanup/DlqAlarm/Resource",
		Name:               "TurnstileDemo-DlqDepthAlarm4D5E6F7A",
		ARN:                "arn:aws:cloudwatch:us-east-1:000000000000:alarm:TurnstileDemo-DlqDepthAlarm4D5E6F7A",
		Namespace:          "AWS/SQS",
		MetricName:         "ApproximateNumberOfMessagesVisible",
		Dimensions:         []template.Dimension{{Name: "QueueName", Value: "TurnstileDemo-CleanupDlq7C8D9E0F"}},
		Statistic:          "Maximum",
		Period:             5 * time.Minute,
		EvaluationPeriods:  1,
		Threshold:          1,
		ComparisonOperator: "GreaterThanOrEqualToThreshold",
		TreatMissingData:   "notBreaching",
	}}
	if !reflect.DeepEqual(tpl.Alarms, wantAlarms) {
		t.Errorf("Alarms =\n%+v\nwant\n%+v", tpl.Alarms, wantAlarms)
	}
}

func TestLoadAssemblySelection(t *testing.T) {
	multi := writeAssembly(t, map[string]string{"Alpha": minimalTemplate, "Beta": minimalTemplate})
	tests := []struct {
		name      string
		path      string
		stackName string
		wantStack string
		wantErr   error
	}{
		{"single stack without a filter", demoAssembly, "", "TurnstileDemo", nil},
		{"filter by name", multi, "Beta", "Beta", nil},
		{"ambiguous", multi, "", "", template.ErrAmbiguousStack},
		{"no such stack", multi, "Gamma", "", template.ErrStackNotFound},
		{"missing path", filepath.Join(t.TempDir(), "nothing"), "", "", template.ErrInvalidTemplate},
		{"directory without a manifest", t.TempDir(), "", "", template.ErrInvalidTemplate},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tpl, err := template.Load(tt.path, template.Options{StackName: tt.stackName})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Load error = %v, want %v", err, tt.wantErr)
			}
			if err == nil && tpl.StackName != tt.wantStack {
				t.Errorf("StackName = %q, want %q", tpl.StackName, tt.wantStack)
			}
		})
	}
}

func TestLoadAllNestedAssembly(t *testing.T) {
	tpls, err := template.LoadAll("testdata/staged.out", template.Options{})
	if err != nil {
		t.Fatalf("LoadAll: %v", err)
	}
	var got [][3]string
	for _, tpl := range tpls {
		got = append(got, [3]string{tpl.StackName, tpl.Account, tpl.Region})
	}
	want := [][3]string{
		{"Root", template.DefaultAccount, template.DefaultRegion},
		{"Prod-Service", "111122223333", "eu-central-1"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("stacks = %v, want %v", got, want)
	}
}
