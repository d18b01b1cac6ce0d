package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/cmd/app/demo"
	"github.com/turnstile-sfn/turnstile/constructs/semaphore"
	"github.com/turnstile-sfn/turnstile/lock"
)

func TestSubmitCommandsRefuseBadInput(t *testing.T) {
	const machine = "arn:aws:states:us-east-1:000000000000:stateMachine:M"
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"submit", "--state-machine", machine}, "--table is required"},
		{[]string{"submit", "--table", "T", "--state-machine", "M"}, "--state-machine must be a state machine ARN"},
		{[]string{"submit", "--table", "T", "--state-machine", machine, "--input", "{"}, "--input must be JSON"},
		{[]string{"submit", "--table", "T", "--state-machine", machine, "--ttl", "0s"}, "--ttl must be positive"},
		{[]string{"submission", "--table", "T", "--lock", "L"}, "--id is required"},
		{[]string{"cancel", "--table", "T", "--id", "1-0123456789abcdef"}, "--lock is required"},
		{[]string{"simulate", "--submit", "--start-reply-lost", "2"}, "--start-reply-lost must be a fraction"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), tt.args, &stdout, &stderr); code != exitUsage || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tt.args, code, stderr.String(), exitUsage, tt.want)
		}
	}
}

// TestSubmitDemoStack submits to the demo on `up`'s stack (limit 1, work of an hour): the first
// submission starts at once holding the slot (its park goes straight on: one holder), the second
// waits, and cancel takes it out of the queue.
func TestSubmitDemoStack(t *testing.T) {
	if testing.Short() {
		t.Skip("starts DynamoDB Local and synthesizes the demo app")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cfg := demo.DefaultConfig()
	cfg.Limit, cfg.WorkDuration, cfg.FailureRate = 1, time.Hour, 0
	st, err := startLocal(ctx, upFlags{timeScale: DefaultUpTimeScale, demo: cfg, portSFN: freePort(t), portDDB: freePort(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := st.Close(); err != nil {
			t.Error(err)
		}
	}()
	table, name := st.Resources.Tables[0].Name, cfg.LockName
	var machine string
	for _, sm := range st.Resources.StateMachines {
		if strings.HasPrefix(sm.LogicalID, "SemaphoreStateMachine") {
			machine = sm.ARN
		}
	}
	var first, second lock.SubmissionStatus
	if code := operate(t, ctx, st, &first, "submit", "--table", table, "--state-machine", machine, "--input", `{"n":1}`, "--json"); code != exitOK || first.Outcome != lock.OutcomeStarted {
		t.Fatalf("the first submit: exit %d, %+v; want started", code, first)
	}
	d := waitFor(t, ctx, st, table, name, func(d lockDetail) bool {
		return len(d.Holders) == 1 && d.Holders[0].Execution == first.Execution && d.Holders[0].Status == "RUNNING"
	})
	out, err := st.StepFunctionsClient().DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: aws.String(first.Execution)})
	if err != nil || aws.ToString(out.Input) != `{"n":1}` {
		t.Fatalf("the started execution: %v, %v", out, err)
	}
	if code := operate(t, ctx, st, &second, "submit", "--table", table, "--state-machine", machine, "--input", `{"n":2}`, "--json"); code != exitOK || second.Outcome != lock.OutcomeQueued {
		t.Fatalf("the second submit: exit %d, %+v; want queued", code, second)
	}
	var got lock.SubmissionStatus
	if code := operate(t, ctx, st, &got, "submission", "--table", table, "--lock", name, "--json", "--id", second.ID); code != exitOK || got.Outcome != lock.OutcomeQueued {
		t.Fatalf("submission: exit %d, %+v; want queued", code, got)
	}
	if code := operate(t, ctx, st, &got, "cancel", "--table", table, "--lock", name, "--json", "--id", second.ID); code != exitOK || got.Outcome != lock.OutcomeCancelled {
		t.Fatalf("cancel: exit %d, %+v; want cancelled", code, got)
	}
	if d = waitFor(t, ctx, st, table, name, func(d lockDetail) bool { return len(d.Waiters) == 0 }); d.Count != 1 {
		t.Fatalf("the lock after the cancel: %+v", d)
	}
}

// TestSubmitWithPrioritiesAndWeights submits to a demo with priorities (ageing 5) and weighted
// permits on `up`'s stack (limit 2, work of an hour): a weight-2 input takes the whole lock, a
// plain input queues, a priority-9 input queues ahead of it, and an input whose priority the
// machine would refuse is not submitted.
func TestSubmitWithPrioritiesAndWeights(t *testing.T) {
	if testing.Short() {
		t.Skip("starts DynamoDB Local and synthesizes the demo app")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cfg := demo.DefaultConfig()
	cfg.Limit, cfg.WorkDuration, cfg.FailureRate, cfg.WaitStrategy = 2, time.Hour, 0, semaphore.WaitCallback
	cfg.PriorityAgeing, cfg.Weighted = 5, true
	st, err := startLocal(ctx, upFlags{timeScale: DefaultUpTimeScale, demo: cfg, portSFN: freePort(t), portDDB: freePort(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := st.Close(); err != nil {
			t.Error(err)
		}
	}()
	table, name := st.Resources.Tables[0].Name, cfg.LockName
	var machine string
	for _, sm := range st.Resources.StateMachines {
		if strings.HasPrefix(sm.LogicalID, "SemaphoreStateMachine") {
			machine = sm.ARN
		}
	}
	submitInput := func(input string) (lock.SubmissionStatus, int) {
		var s lock.SubmissionStatus
		code := operate(t, ctx, st, &s, "submit", "--table", table, "--state-machine", machine, "--input", input, "--json")
		return s, code
	}
	if heavy, code := submitInput(`{"slots":2}`); code != exitOK || heavy.Outcome != lock.OutcomeStarted {
		t.Fatalf("the heavy submit: exit %d, %+v; want started", code, heavy)
	}
	low, code := submitInput(`{}`)
	if code != exitOK || low.Outcome != lock.OutcomeQueued {
		t.Fatalf("the plain submit: exit %d, %+v; want queued", code, low)
	}
	high, code := submitInput(`{"priority":9}`)
	if code != exitOK || high.Outcome != lock.OutcomeQueued || high.Ahead != 0 {
		t.Fatalf("the priority-9 submit: exit %d, %+v; want queued first", code, high)
	}
	var got lock.SubmissionStatus
	if code := operate(t, ctx, st, &got, "submission", "--table", table, "--lock", name, "--json", "--id", low.ID); code != exitOK || got.Ahead != 1 {
		t.Fatalf("the plain one: exit %d, %+v; want 1 ahead", code, got)
	}
	var stdout, stderr bytes.Buffer
	args := []string{"submit", "--table", table, "--state-machine", machine, "--input", `{"priority":12}`,
		"--endpoint-dynamodb", st.Resources.Endpoints.DynamoDB, "--endpoint-sfn", st.Resources.Endpoints.StepFunctions}
	if code := run(ctx, args, &stdout, &stderr); code == exitOK || !strings.Contains(stderr.String(), machines.ErrInputPriority.Error()) {
		t.Fatalf("priority 12: exit %d, stderr %q; want refused", code, stderr.String())
	}
}

// TestSubmitSeveralLocks submits to a demo with two locks read from the input on `up`'s stack
// (limit 1 each, work of an hour): a submission waits for the first lock by name ("db" before
// "region"), starts holding it and takes "region" in flight; a second one whose first lock is
// "db" queues there; an input without the second lock name, and a --lock that is not the
// input's first lock, are refused with named errors.
func TestSubmitSeveralLocks(t *testing.T) {
	if testing.Short() {
		t.Skip("starts DynamoDB Local and synthesizes the demo app")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cfg := demo.DefaultConfig()
	cfg.Limit, cfg.WorkDuration, cfg.FailureRate, cfg.WaitStrategy = 1, time.Hour, 0, semaphore.WaitCallback
	cfg.Locks = []semaphore.LockSpec{{LockNamePath: "$.first"}, {LockNamePath: "$.second"}}
	st, err := startLocal(ctx, upFlags{timeScale: DefaultUpTimeScale, demo: cfg, portSFN: freePort(t), portDDB: freePort(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := st.Close(); err != nil {
			t.Error(err)
		}
	}()
	table := st.Resources.Tables[0].Name
	var machine string
	for _, sm := range st.Resources.StateMachines {
		if strings.HasPrefix(sm.LogicalID, "SemaphoreStateMachine") {
			machine = sm.ARN
		}
	}
	submitInput := func(input string, extra ...string) (lock.SubmissionStatus, int, string) {
		var s lock.SubmissionStatus
		var stdout, stderr bytes.Buffer
		args := append([]string{"submit", "--table", table, "--state-machine", machine, "--input", input, "--json",
			"--endpoint-dynamodb", st.Resources.Endpoints.DynamoDB, "--endpoint-sfn", st.Resources.Endpoints.StepFunctions}, extra...)
		code := run(ctx, args, &stdout, &stderr)
		if code == exitOK {
			if err := json.Unmarshal(stdout.Bytes(), &s); err != nil {
				t.Fatalf("%s: %v", stdout.String(), err)
			}
		}
		return s, code, stderr.String()
	}
	first, code, stderr := submitInput(`{"first":"region","second":"db"}`)
	if code != exitOK || first.Outcome != lock.OutcomeStarted || first.Lock != "db" {
		t.Fatalf("the first submit: exit %d, %+v, %s; want started on db", code, first, stderr)
	}
	holds := func(d lockDetail) bool {
		return len(d.Holders) == 1 && d.Holders[0].Execution == first.Execution && d.Holders[0].Status == "RUNNING"
	}
	waitFor(t, ctx, st, table, "db", holds)
	waitFor(t, ctx, st, table, "region", holds)
	second, code, stderr := submitInput(`{"first":"db","second":"queue"}`)
	if code != exitOK || second.Outcome != lock.OutcomeQueued || second.Lock != "db" {
		t.Fatalf("the second submit: exit %d, %+v, %s; want queued on db", code, second, stderr)
	}
	if _, code, stderr := submitInput(`{"first":"db"}`); code == exitOK || !strings.Contains(stderr, machines.ErrInputLockName.Error()) {
		t.Errorf("an input without $.second: exit %d, stderr %q; want refused", code, stderr)
	}
	if _, code, stderr := submitInput(`{"first":"region","second":"db"}`, "--lock", "region"); code == exitOK || !strings.Contains(stderr, errNotFirstLock.Error()) {
		t.Errorf("--lock region: exit %d, stderr %q; want refused", code, stderr)
	}
}
