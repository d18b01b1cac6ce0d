package stack

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/turnstile-sfn/turnstile/metrics"
)

// TestStackRunsAFunctionThroughTheRuntimeAPI starts a stack whose function has a Go package and
// no handler: the state machine invokes the built binary, whose unchanged AWS SDK client writes
// to the stack's table through the counted endpoint, and whose named error a Catch matches.
func TestStackRunsAFunctionThroughTheRuntimeAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("starts DynamoDB Local and builds a function")
	}
	ctx := context.Background()
	st, err := Start(ctx, "testdata/runtimeapi.template.json", Options{ModuleDir: "../..", FunctionLog: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := st.Close(); err != nil {
			t.Error(err)
		}
	}()
	machine := st.Template.StateMachines[0].ARN
	before := st.DynamoDBStats()

	out := runExecution(t, st, machine, `{"action":"dynamo","value":"from-the-function"}`)
	var o struct{ Value string }
	if err := json.Unmarshal([]byte(out), &o); err != nil || o.Value != "put from-the-function" {
		t.Fatalf("execution output %s, want the function's response", out)
	}
	ddb, err := st.DynamoDBClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	item, err := ddb.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(st.Template.Tables[0].Name),
		Key:       map[string]types.AttributeValue{"LockName": &types.AttributeValueMemberS{Value: "from-the-function"}},
	})
	if err != nil || item.Item == nil {
		t.Fatalf("the function's item is not in the stack's table: %v", err)
	}
	if after := st.DynamoDBStats(); after.Requests <= before.Requests {
		t.Errorf("DynamoDB requests %d → %d: the function did not go through the stack's proxy", before.Requests, after.Requests)
	}

	// The function's EMF line on its standard output is a metric of the stack.
	runExecution(t, st, machine, `{"action":"metric","value":"7"}`)
	var held []float64
	for _, m := range st.Metrics() {
		if m.Name == metrics.SlotsHeld && m.Dimensions[metrics.DimensionLockName] == "L" && m.Function == st.Template.Functions[0].LogicalID {
			held = append(held, m.Value)
		}
	}
	if len(held) != 1 || held[0] != 7 {
		t.Errorf("SlotsHeld of the function's lock L = %v, want the one 7 it wrote", held)
	}

	out = runExecution(t, st, machine, `{"action":"fail","value":"no luck"}`)
	var caught struct {
		Error struct{ Error, Cause string } `json:"error"`
	}
	if err := json.Unmarshal([]byte(out), &caught); err != nil || caught.Error.Error != "WorkFailed" {
		t.Errorf("execution output %s, want the WorkFailed error caught", out)
	}
}

// runExecution starts an execution and waits until it succeeds, returning its output.
func runExecution(t *testing.T, st *Stack, machine, input string) string {
	t.Helper()
	ctx := context.Background()
	client := st.StepFunctionsClient()
	started, err := client.StartExecution(ctx, &sfn.StartExecutionInput{StateMachineArn: aws.String(machine), Input: aws.String(input)})
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		d, err := client.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: started.ExecutionArn})
		if err != nil {
			t.Fatal(err)
		}
		switch d.Status {
		case sfntypes.ExecutionStatusRunning:
			continue
		case sfntypes.ExecutionStatusSucceeded:
			return aws.ToString(d.Output)
		default:
			t.Fatalf("execution %s: %s %s", d.Status, aws.ToString(d.Error), aws.ToString(d.Cause))
		}
	}
	t.Fatal("the execution did not end within 60 s")
	return ""
}

// testLog writes the functions' output to the test log.
type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(string(p))
	return len(p), nil
}
