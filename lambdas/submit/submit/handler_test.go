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

	"github.com/turnstile-sfn/turnstile/asl/machines"
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

// TestPrioritiesAndWeights: configured from the environment the construct sets, the function
// submits each input with the priority and weight it gives. Limit 2: a weight-2 input takes the
// lock whole; the next low one queues, then a priority-9 input queues ahead of it; an SQS
// record with an invalid priority or weight is a batch item failure.
func TestPrioritiesAndWeights(t *testing.T) {
	ctx := t.Context()
	table := server.CreateLockTable(t)
	env := map[string]string{"TURNSTILE_LOCK_TABLE": table, "TURNSTILE_STATE_MACHINE_ARN": machine, "TURNSTILE_LIMIT": "2", "TURNSTILE_LOCK_NAME": "L",
		"TURNSTILE_PRIORITY_PATH": "$.job.urgency", "TURNSTILE_PRIORITY_AGEING": "10", "TURNSTILE_WEIGHT_PATH": "$.job.slots"}
	cfg, err := submit.ConfigFromEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	sf := &starts{inputs: map[string]string{}}
	locks, err := lock.New(table, server.Client, sf)
	if err != nil {
		t.Fatal(err)
	}
	h, err := submit.New(cfg, locks)
	if err != nil {
		t.Fatal(err)
	}
	heavy, err := h.Handle(ctx, json.RawMessage(`{"job":{"slots":2}}`))
	if err != nil || len(sf.inputs) != 1 {
		t.Fatalf("heavy = %+v, %v; started %v, want it started", heavy, err, sf.inputs)
	}
	batch, err := h.Handle(ctx, json.RawMessage(`{"Records":[
		{"messageId":"low","eventSource":"aws:sqs","body":"{\"job\":{}}"},
		{"messageId":"high","eventSource":"aws:sqs","body":"{\"job\":{\"urgency\":9}}"},
		{"messageId":"bad-priority","eventSource":"aws:sqs","body":"{\"job\":{\"urgency\":12}}"},
		{"messageId":"bad-weight","eventSource":"aws:sqs","body":"{\"job\":{\"slots\":3}}"}]}`))
	if err != nil || len(batch.Submissions) != 2 || len(batch.BatchItemFailures) != 2 {
		t.Fatalf("batch = %+v, %v; want low and high submitted, the other two failed", batch, err)
	}
	low, high := batch.Submissions[0], batch.Submissions[1]
	if st, err := locks.Status(ctx, "L", high.ID); err != nil || st.Outcome != lock.OutcomeQueued || st.Ahead != 0 {
		t.Fatalf("high = %+v, %v; want queued first", st, err)
	}
	if st, err := locks.Status(ctx, "L", low.ID); err != nil || st.Outcome != lock.OutcomeQueued || st.Ahead != 1 {
		t.Fatalf("low = %+v, %v; want queued behind high", st, err)
	}
	state, err := locks.Read(ctx, "L")
	if err != nil || state.Count != 2 || len(state.Holders) != 1 || state.Holders[0].Weight != 2 {
		t.Fatalf("the lock = %+v, %v; want the heavy one holding 2", state, err)
	}
	for _, bad := range []string{`{"job":{"urgency":"high"}}`, `{"job":{"slots":1.5}}`} {
		if _, err := h.Handle(ctx, json.RawMessage(bad)); !errors.Is(err, machines.ErrInputPriority) && !errors.Is(err, machines.ErrInputWeight) {
			t.Errorf("%s: %v, want a named input error", bad, err)
		}
	}
	env["TURNSTILE_PRIORITY_AGEING"] = ""
	if _, err := submit.ConfigFromEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok }); !errors.Is(err, submit.ErrConfig) {
		t.Errorf("a priority path without ageing: %v, want ErrConfig", err)
	}
}

// definition answers DescribeStateMachine with one definition.
type definition string

func (d definition) DescribeStateMachine(context.Context, *sfn.DescribeStateMachineInput, ...func(*sfn.Options)) (*sfn.DescribeStateMachineOutput, error) {
	return &sfn.DescribeStateMachineOutput{Definition: aws.String(string(d))}, nil
}

// TestSeveralLocks: configured for a semaphore with several locks (the construct's environment),
// the function reads the machine's definition and submits each input to the first lock its
// execution takes, the first by name, with that lock's limit: "db" at $.a (limit 1) before
// "queue" and "region". The second input naming "db" first queues behind the first; one whose
// first lock is "queue" starts; one without a name at a lock name path fails with machines.ErrInputLockName.
// Without LoadInputLocks, New refuses the configuration.
func TestSeveralLocks(t *testing.T) {
	ctx := t.Context()
	table := server.CreateLockTable(t)
	m, err := machines.Semaphore(machines.SemaphoreOptions{Locks: []machines.LockSpec{{LockNamePath: "$.a", Limit: 1}, {LockNamePath: "$.b"}, {LockName: "region"}},
		Limit: 2, WaitStrategy: machines.WaitCallback, Work: machines.LambdaWork("arn:work")})
	if err != nil {
		t.Fatal(err)
	}
	rendered, err := m.Render()
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"TURNSTILE_LOCK_TABLE": table, "TURNSTILE_STATE_MACHINE_ARN": machine, "TURNSTILE_LIMIT": "2", "TURNSTILE_SEVERAL_LOCKS": "true"}
	cfg, err := submit.ConfigFromEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	sf := &starts{inputs: map[string]string{}}
	locks, err := lock.New(table, server.Client, sf)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := submit.New(cfg, locks); !errors.Is(err, submit.ErrConfig) || !strings.Contains(err.Error(), "LoadInputLocks") {
		t.Fatalf("New before LoadInputLocks: %v, want ErrConfig", err)
	}
	if cfg, err = submit.LoadInputLocks(ctx, definition(rendered), cfg); err != nil {
		t.Fatal(err)
	}
	h, err := submit.New(cfg, locks)
	if err != nil {
		t.Fatal(err)
	}
	var subs []lock.Submission
	for _, in := range []string{`{"a":"db","b":"queue"}`, `{"a":"db","b":"x"}`, `{"a":"z","b":"queue"}`} {
		res, err := h.Handle(ctx, json.RawMessage(in))
		if err != nil || len(res.Submissions) != 1 {
			t.Fatalf("%s: %+v, %v", in, res, err)
		}
		subs = append(subs, res.Submissions[0])
	}
	if subs[0].Lock != "db" || subs[1].Lock != "db" || subs[2].Lock != "queue" {
		t.Errorf("submitted to %q, %q, %q; want db, db, queue", subs[0].Lock, subs[1].Lock, subs[2].Lock)
	}
	if st, err := locks.Status(ctx, "db", subs[1].ID); err != nil || st.Outcome != lock.OutcomeQueued {
		t.Errorf("the second on db (limit 1) = %+v, %v; want queued", st, err)
	}
	if len(sf.inputs) != 2 {
		t.Errorf("started %v, want the first on db and the one on queue", sf.inputs)
	}
	if _, err := h.Handle(ctx, json.RawMessage(`{"a":"db"}`)); !errors.Is(err, machines.ErrInputLockName) {
		t.Errorf("an input without $.b: %v, want ErrInputLockName", err)
	}
	env["TURNSTILE_LOCK_NAME"] = "L"
	if _, err := submit.ConfigFromEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok }); !errors.Is(err, submit.ErrConfig) {
		t.Errorf("several locks and a lock name: %v, want ErrConfig", err)
	}
}
