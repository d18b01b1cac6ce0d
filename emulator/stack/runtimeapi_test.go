package stack

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/turnstile-sfn/turnstile/emulator/ddblocal"
	"github.com/turnstile-sfn/turnstile/emulator/ddblocal/ddblocaltest"
	"github.com/turnstile-sfn/turnstile/metrics"
)

// server is the DynamoDB Local the package's stacks share (Options.DynamoDB).
var server ddblocaltest.Server

func TestMain(m *testing.M) { os.Exit(ddblocaltest.Main(m, &server)) }

// TestStackRunsAFunctionThroughTheRuntimeAPI starts a stack whose function has a Go package and
// no handler: the state machine invokes the built binary, whose unchanged AWS SDK client writes
// to the stack's table through the counted endpoint, and whose named error a Catch matches.
func TestStackRunsAFunctionThroughTheRuntimeAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("starts DynamoDB Local and builds a function")
	}
	ctx := context.Background()
	st := startRuntimeStack(t)
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
	// The line reaches the stack through the process's output pipe, which may lag the invocation's
	// response on a loaded machine: wait for it, 30 s at most.
	runExecution(t, st, machine, `{"action":"metric","value":"7"}`)
	var held []float64
	for deadline := time.Now().Add(30 * time.Second); len(held) == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		for _, m := range st.Metrics() {
			if m.Name == metrics.SlotsHeld && m.Dimensions[metrics.DimensionLockName] == "L" && m.Function == st.Template.Functions[0].LogicalID {
				held = append(held, m.Value)
			}
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

// TestStacksShareADynamoDBLocal starts two stacks of one template, tables of the same names, on
// one DynamoDB Local: the item one stack's function writes is in its own table only; closing it
// deletes its tables and leaves the other stack working.
func TestStacksShareADynamoDBLocal(t *testing.T) {
	if testing.Short() {
		t.Skip("starts DynamoDB Local and builds a function")
	}
	ctx := context.Background()
	a, b := startRuntimeStack(t), startRuntimeStack(t)
	table := a.Template.Tables[0].Name
	has := func(st *Stack, value string) bool {
		t.Helper()
		ddb, err := st.DynamoDBClient(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out, err := ddb.GetItem(ctx, &dynamodb.GetItemInput{
			TableName: aws.String(table), Key: map[string]types.AttributeValue{"LockName": &types.AttributeValueMemberS{Value: value}},
		})
		if err != nil {
			t.Fatalf("GetItem from %s's table: %v", st.accessKey, err)
		}
		return out.Item != nil
	}
	runExecution(t, a, a.Template.StateMachines[0].ARN, `{"action":"dynamo","value":"from-a"}`)
	if !has(a, "from-a") || has(b, "from-a") {
		t.Fatalf("a's function's item in a's table: %t, in b's: %t; want true, false", has(a, "from-a"), has(b, "from-a"))
	}

	if err := a.Close(); err != nil {
		t.Fatalf("close a: %v", err)
	}
	left, err := ddblocal.NewClient(ctx, server.Endpoint, ddblocal.WithAccessKey(a.accessKey, a.Template.Region))
	if err != nil {
		t.Fatal(err)
	}
	if tables, err := left.ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil || len(tables.TableNames) != 0 {
		t.Errorf("a's database after a.Close: tables %v, error %v; want none", tables.TableNames, err)
	}
	runExecution(t, b, b.Template.StateMachines[0].ARN, `{"action":"dynamo","value":"from-b"}`)
	if !has(b, "from-b") {
		t.Error("b's function's item is not in b's table after a closed")
	}
	ddb, err := b.DynamoDBClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if tables, err := ddb.ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil || !slices.Equal(tables.TableNames, []string{table}) {
		t.Errorf("b's tables: %v, error %v; want [%s]", tables.TableNames, err, table)
	}
}

func TestStartRefusesAServerWithOneDatabase(t *testing.T) {
	st, err := Start(context.Background(), "testdata/runtimeapi.template.json", Options{DynamoDB: &ddblocal.Server{}})
	if st != nil || !errors.Is(err, ErrSharedServer) {
		t.Fatalf("Start = %v, %v; want nil, ErrSharedServer", st, err)
	}
}

// startRuntimeStack starts the runtime API test stack on the package's DynamoDB Local and closes
// it when the test ends.
func startRuntimeStack(t *testing.T) *Stack {
	t.Helper()
	server.SkipIfMissing(t)
	st, err := Start(context.Background(), "testdata/runtimeapi.template.json", Options{ModuleDir: "../..", FunctionLog: testLog{t}, DynamoDB: server.Local})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Error(err)
		}
	})
	return st
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
