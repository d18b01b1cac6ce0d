package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/turnstile-sfn/turnstile/cmd/app/demo"
)

func TestOperatorCommandsRefuseBadInput(t *testing.T) {
	const arn = "arn:aws:states:us-east-1:000000000000:execution:M:e1"
	const machine = "arn:aws:states:us-east-1:000000000000:stateMachine:M"
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"up skipping time", []string{"up", "--time-scale", "0"}, "--time-scale must be above 0"},
		{"up port out of range", []string{"up", "--port-sfn", "70000"}, "--port-sfn must be a TCP port"},
		{"up negative port", []string{"up", "--port-dynamodb", "-1"}, "--port-dynamodb must be a TCP port"},
		{"up same ports", []string{"up", "--port-sfn", "9000", "--port-dynamodb", "9000"}, "must differ"},
		{"up demo flag with a cloud assembly", []string{"up", "--cdk-out", "x", "--limit", "3"}, "--limit configures the demo app"},
		{"up bad limit", []string{"up", "--limit", "0"}, "--limit: must be an integer from 1"},
		{"up stray argument", []string{"up", "now"}, "up takes no arguments"},
		{"inspect without a table", []string{"inspect"}, "--table is required"},
		{"inspect negative watch", []string{"inspect", "--table", "T", "--watch", "-1s"}, "--watch must be a positive interval"},
		{"release without a table", []string{"release", "--lock", "L", "--execution", arn, "--limit", "2"}, "--table is required"},
		{"release without a lock", []string{"release", "--table", "T", "--execution", arn, "--limit", "2"}, "--lock is required"},
		{"release without an execution ARN", []string{"release", "--table", "T", "--lock", "L", "--execution", "e1", "--limit", "2"}, "--execution must be an execution ARN"},
		{"release without a limit", []string{"release", "--table", "T", "--lock", "L", "--execution", arn}, "--limit is required"},
		{"reconcile without a machine", []string{"reconcile", "--table", "T", "--limit", "2"}, "--state-machine must be a state machine ARN"},
		{"reconcile without a limit", []string{"reconcile", "--table", "T", "--state-machine", machine}, "--limit is required"},
		{"limit without a table", []string{"limit", "--lock", "L", "--set", "2"}, "--table is required"},
		{"limit without a target", []string{"limit", "--table", "T", "--set", "2"}, "exactly one of --lock NAME"},
		{"limit with both targets", []string{"limit", "--table", "T", "--lock", "L", "--default", "--set", "2"}, "exactly one of --lock NAME"},
		{"limit without a change", []string{"limit", "--table", "T", "--lock", "L"}, "exactly one of --set N and --clear"},
		{"limit set and clear", []string{"limit", "--table", "T", "--lock", "L", "--set", "2", "--clear"}, "exactly one of --set N and --clear"},
		{"limit zero", []string{"limit", "--table", "T", "--lock", "L", "--set", "0"}, "--set must be from 1"},
		{"limit default cleared", []string{"limit", "--table", "T", "--default", "--state-machine", machine, "--clear"}, "--default takes --set only"},
		{"limit default without a machine", []string{"limit", "--table", "T", "--default", "--set", "3"}, "--default needs --state-machine"},
		{"limit machine without default", []string{"limit", "--table", "T", "--lock", "L", "--state-machine", machine, "--set", "3"}, "--state-machine goes with --default only"},
		{"pause without a lock", []string{"pause", "--table", "T"}, "--lock is required"},
		{"resume without a table", []string{"resume", "--lock", "L"}, "--table is required"},
		{"drain without a lock", []string{"drain", "--table", "T"}, "--lock is required"},
		{"drain with an empty cause", []string{"drain", "--table", "T", "--lock", "L", "--cause", " "}, "--cause must not be empty"},
		{"reconcile with no holders checked", []string{"reconcile", "--table", "T", "--state-machine", machine, "--limit", "2", "--max-holders", "0"}, "--max-holders must be at least 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(context.Background(), tt.args, &stdout, &stderr); code != exitUsage {
				t.Errorf("exit status %d, want %d; stderr: %s", code, exitUsage, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("stderr %q\nwant it to contain %q", stderr.String(), tt.want)
			}
		})
	}
}

func TestOperatorCommandHelpExitsZero(t *testing.T) {
	for cmd, flagName := range map[string]string{"up": "-port-sfn", "inspect": "-watch", "release": "-force", "reconcile": "-state-machine", "limit": "-default", "pause": "-lock", "resume": "-lock", "drain": "-cause"} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), []string{cmd, "-h"}, &stdout, &stderr); code != exitOK {
			t.Errorf("%s -h: exit status %d, want 0", cmd, code)
		}
		if !strings.Contains(stderr.String(), flagName) {
			t.Errorf("%s -h does not list %s: %s", cmd, flagName, stderr.String())
		}
	}
}

// operate runs one command against the local stack and decodes its JSON output into out.
func operate(t *testing.T, ctx context.Context, st *localStack, out any, args ...string) int {
	t.Helper()
	args = append(args, "--endpoint-dynamodb", st.Resources.Endpoints.DynamoDB, "--endpoint-sfn", st.Resources.Endpoints.StepFunctions)
	var stdout, stderr bytes.Buffer
	code := run(ctx, args, &stdout, &stderr)
	if code == exitOK && out != nil {
		if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
			t.Fatalf("%v: output is not JSON: %v\n%s", args, err, stdout.String())
		}
	}
	if code != exitOK {
		t.Logf("%v: exit %d: %s", args[0], code, stderr.String())
	}
	return code
}

// TestOperateDemoStack parks executions of the demo on `up`'s stack (work of an hour, real
// time), then checks what inspect shows and that a forced release hands the slot to the oldest
// waiter, while an unforced one refuses and changes nothing.
func TestOperateDemoStack(t *testing.T) {
	if testing.Short() {
		t.Skip("starts DynamoDB Local and synthesizes the demo app")
	}
	const limit, executions = 3, 8
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cfg := demo.DefaultConfig()
	cfg.Limit, cfg.WorkDuration, cfg.FailureRate = limit, time.Hour, 0
	portSFN, portDDB := freePort(t), freePort(t)
	st, err := startLocal(ctx, upFlags{timeScale: DefaultUpTimeScale, demo: cfg, portSFN: portSFN, portDDB: portDDB})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := st.Close(); err != nil {
			t.Error(err)
		}
	}()
	if want := (upEndpoints{StepFunctions: fmt.Sprintf("http://127.0.0.1:%d", portSFN), DynamoDB: fmt.Sprintf("http://127.0.0.1:%d", portDDB)}); st.Resources.Endpoints != want {
		t.Errorf("endpoints %+v, want the ports asked for: %+v", st.Resources.Endpoints, want)
	}
	if len(st.Resources.Tables) != 1 {
		t.Fatalf("the demo has tables %v, want one lock table", st.Resources.Tables)
	}
	table := st.Resources.Tables[0].Name
	var machine string
	for _, sm := range st.Resources.StateMachines {
		if strings.HasPrefix(sm.LogicalID, "SemaphoreStateMachine") {
			machine = sm.ARN
		}
	}
	if machine == "" {
		t.Fatalf("no semaphore machine among %v", st.Resources.StateMachines)
	}

	// Start them one after the other, each once the previous one is in the lock, so that the
	// queue's order is the start order.
	client := st.StepFunctionsClient()
	var started []string
	for i := range executions {
		out, err := client.StartExecution(ctx, &sfn.StartExecutionInput{StateMachineArn: aws.String(machine), Name: aws.String(fmt.Sprintf("parked-%d", i)), Input: aws.String(fmt.Sprintf(`{"index": %d}`, i))})
		if err != nil {
			t.Fatal(err)
		}
		started = append(started, *out.ExecutionArn)
		waitFor(t, ctx, st, table, cfg.LockName, func(d lockDetail) bool { return len(d.Holders)+len(d.Waiters) == i+1 })
	}

	var locks []lockSummary
	if code := operate(t, ctx, st, &locks, "inspect", "--table", table, "--json"); code != exitOK {
		t.Fatalf("inspect: exit %d", code)
	}
	if len(locks) != 1 || locks[0].Name != cfg.LockName || locks[0].Holders != limit || locks[0].Waiters != executions-limit || locks[0].OldestWaitSeconds <= 0 {
		t.Errorf("inspect lists %+v, want %s with %d holders and %d waiters that have waited", locks, cfg.LockName, limit, executions-limit)
	}
	watchCtx, stopWatch := context.WithTimeout(ctx, 450*time.Millisecond)
	var watched bytes.Buffer
	code := run(watchCtx, []string{"inspect", "--table", table, "--json", "--watch", "100ms", "--endpoint-dynamodb", st.Resources.Endpoints.DynamoDB}, &watched, io.Discard)
	stopWatch()
	if lines := strings.Split(strings.TrimSpace(watched.String()), "\n"); code != exitOK || len(lines) < 2 {
		t.Errorf("inspect --watch 100ms for 450ms: exit %d, %d redraws, want 0 and at least 2:\n%s", code, len(lines), watched.String())
	}
	var before lockDetail
	if code := operate(t, ctx, st, &before, "inspect", "--table", table, "--lock", cfg.LockName, "--json"); code != exitOK {
		t.Fatalf("inspect --lock: exit %d", code)
	}
	for i, h := range before.Holders {
		if h.Status != "RUNNING" || h.Execution != started[i] {
			t.Errorf("holder %d is %s (%s), want %s RUNNING", i, h.Execution, h.Status, started[i])
		}
	}
	for i, w := range before.Waiters {
		if w.Execution != started[limit+i] {
			t.Errorf("waiter %d is %s, want %s: the queue is not in start order", i, w.Execution, started[limit+i])
		}
		if i > 0 && (w.Ticket <= before.Waiters[i-1].Ticket || w.WaitSeconds > before.Waiters[i-1].WaitSeconds) {
			t.Errorf("waiter %d (ticket %d, %gs) is not behind waiter %d (ticket %d, %gs)", i, w.Ticket, w.WaitSeconds, i-1, before.Waiters[i-1].Ticket, before.Waiters[i-1].WaitSeconds)
		}
	}

	victim, oldest := before.Holders[0].Execution, before.Waiters[0].Execution
	release := []string{"release", "--table", table, "--lock", cfg.LockName, "--execution", victim, "--limit", fmt.Sprint(limit), "--json"}
	if code := operate(t, ctx, st, nil, release...); code != exitUsage {
		t.Errorf("release of a RUNNING holder without --force: exit %d, want %d", code, exitUsage)
	}
	var unchanged lockDetail
	operate(t, ctx, st, &unchanged, "inspect", "--table", table, "--lock", cfg.LockName, "--json")
	if len(unchanged.Holders) != limit || unchanged.Holders[0].Execution != victim || len(unchanged.Waiters) != executions-limit {
		t.Errorf("a refused release changed the lock: %+v", unchanged)
	}

	var report releaseReport
	if code := operate(t, ctx, st, &report, append(release, "--force")...); code != exitOK {
		t.Fatalf("release --force: exit %d", code)
	}
	if !report.Released || len(report.HandedTo) != 1 || report.HandedTo[0] != oldest {
		t.Errorf("release --force did %+v, want the slot handed to the oldest waiter %s", report.ReleaseResult, oldest)
	}
	after := waitFor(t, ctx, st, table, cfg.LockName, func(d lockDetail) bool { return len(d.Waiters) == executions-limit-1 })
	holders := map[string]string{}
	for _, h := range after.Holders {
		holders[h.Execution] = h.Status
	}
	if _, ok := holders[victim]; ok || holders[oldest] != "RUNNING" || len(after.Holders) != limit {
		t.Errorf("after the release the holders are %v, want %s (RUNNING) in place of %s, %d in all", holders, oldest, victim, limit)
	}
	if len(after.Waiters) > 0 && after.Waiters[0].Execution != started[limit+1] {
		t.Errorf("after the release the queue starts with %s, want %s", after.Waiters[0].Execution, started[limit+1])
	}

	var rec struct {
		Live     int `json:"live"`
		Released int `json:"released"`
	}
	if code := operate(t, ctx, st, &rec, "reconcile", "--table", table, "--state-machine", machine, "--limit", fmt.Sprint(limit), "--json"); code != exitOK {
		t.Fatalf("reconcile: exit %d", code)
	}
	// The released execution still runs, but neither holds nor waits: the others are checked.
	if rec.Released != 0 || rec.Live != executions-1 {
		t.Errorf("reconcile with every execution running: %+v, want %d live and none released", rec, executions-1)
	}
}

// freePort returns a port that is free now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// waitFor reads the lock until ok holds of it, for a minute at most.
func waitFor(t *testing.T, ctx context.Context, st *localStack, table, name string, ok func(lockDetail) bool) lockDetail {
	t.Helper()
	ddb, sfnClient, err := awsFlags{endpointDynamoDB: st.Resources.Endpoints.DynamoDB, endpointSFN: st.Resources.Endpoints.StepFunctions}.clients(ctx)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		d, err := readLock(ctx, ddb, sfnClient, table, name, time.Now)
		if err == nil && ok(d) {
			return d
		}
		if time.Now().After(deadline) {
			t.Fatalf("the lock did not get there in a minute: %+v (%v)", d, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
