package submit_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/turnstile-sfn/turnstile/emulator/ddblocal/ddblocaltest"
	"github.com/turnstile-sfn/turnstile/lambdas/submit/submit"
	"github.com/turnstile-sfn/turnstile/lock"
)

var server ddblocaltest.Server

func TestMain(m *testing.M) { os.Exit(ddblocaltest.Main(m, &server)) }

const machine = "arn:aws:states:us-east-1:123456789012:stateMachine:Deploy"

// starts records the executions started; every one is RUNNING.
type starts struct {
	mu     sync.Mutex
	inputs map[string]string
}

func (s *starts) StartExecution(_ context.Context, in *sfn.StartExecutionInput, _ ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inputs[aws.ToString(in.Name)] = aws.ToString(in.Input)
	return &sfn.StartExecutionOutput{}, nil
}

func (s *starts) SendTaskSuccess(context.Context, *sfn.SendTaskSuccessInput, ...func(*sfn.Options)) (*sfn.SendTaskSuccessOutput, error) {
	return &sfn.SendTaskSuccessOutput{}, nil
}

func (s *starts) DescribeExecution(context.Context, *sfn.DescribeExecutionInput, ...func(*sfn.Options)) (*sfn.DescribeExecutionOutput, error) {
	return &sfn.DescribeExecutionOutput{Status: sfntypes.ExecutionStatusRunning}, nil
}

// TestWirings: a direct invocation, an EventBridge event and an SQS batch each submit their
// inputs to the lock their input names; an SQS record without a lock name is a batch item
// failure, the others are submitted. With limit 1 per environment, the first of each starts and
// the second of "prod" waits.
func TestWirings(t *testing.T) {
	ctx := t.Context()
	table := server.CreateLockTable(t)
	sf := &starts{inputs: map[string]string{}}
	locks, err := lock.New(table, server.Client, sf)
	if err != nil {
		t.Fatal(err)
	}
	h, err := submit.New(submit.Config{TableName: table, StateMachineArn: machine, Limit: 1, LockNamePath: "$.deploy.env"}, locks)
	if err != nil {
		t.Fatal(err)
	}
	direct, err := h.Handle(ctx, json.RawMessage(`{"deploy":{"env":"prod","v":1}}`))
	if err != nil || len(direct.Submissions) != 1 || direct.Submissions[0].Lock != "prod" {
		t.Fatalf("direct = %+v, %v", direct, err)
	}
	event, err := h.Handle(ctx, json.RawMessage(`{"version":"0","detail-type":"Deploy requested","source":"ci","detail":{"deploy":{"env":"dev","v":2}}}`))
	if err != nil || len(event.Submissions) != 1 || event.Submissions[0].Lock != "dev" {
		t.Fatalf("event = %+v, %v", event, err)
	}
	batch, err := h.Handle(ctx, json.RawMessage(`{"Records":[
		{"messageId":"m1","eventSource":"aws:sqs","body":"{\"deploy\":{\"env\":\"prod\",\"v\":3}}"},
		{"messageId":"m2","eventSource":"aws:sqs","body":"{\"deploy\":{}}"}]}`))
	if err != nil || len(batch.Submissions) != 1 || len(batch.BatchItemFailures) != 1 || batch.BatchItemFailures[0].ItemIdentifier != "m2" {
		t.Fatalf("batch = %+v, %v; want m1 submitted, m2 failed", batch, err)
	}
	if len(sf.inputs) != 2 || sf.inputs["sub-"+event.Submissions[0].ID] != `{"deploy":{"env":"dev","v":2}}` {
		t.Fatalf("started %v, want the first of prod and the dev one", sf.inputs)
	}
	st, err := locks.Status(ctx, "prod", batch.Submissions[0].ID)
	if err != nil || st.Outcome != lock.OutcomeQueued {
		t.Fatalf("the second prod submission = %+v, %v; want queued", st, err)
	}
	if _, err := h.Handle(ctx, json.RawMessage(`{"deploy":{"env":""}}`)); !errors.Is(err, submit.ErrNoLockName) {
		t.Fatalf("an input without a lock name: %v, want ErrNoLockName", err)
	}
}

func TestConfigFromEnv(t *testing.T) {
	env := map[string]string{"TURNSTILE_LOCK_TABLE": "T", "TURNSTILE_STATE_MACHINE_ARN": machine, "TURNSTILE_LIMIT": "2", "TURNSTILE_LOCK_NAME": "L", "TURNSTILE_SUBMISSION_TTL": "2h"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	c, err := submit.ConfigFromEnv(lookup)
	if err != nil || c.Limit != 2 || c.LockName != "L" || c.TTL.Hours() != 2 {
		t.Fatalf("ConfigFromEnv = %+v, %v", c, err)
	}
	env["TURNSTILE_LOCK_NAME_PATH"] = "$.env"
	if _, err := submit.ConfigFromEnv(lookup); !errors.Is(err, submit.ErrConfig) || !strings.Contains(err.Error(), "exactly one") {
		t.Fatalf("both lock name and path: %v", err)
	}
}
