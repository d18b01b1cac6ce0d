package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/turnstile-sfn/turnstile/cmd/app/demo"
	"github.com/turnstile-sfn/turnstile/lock"
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
	// Watch until the second redraw (or a generous bound on a loaded machine), then interrupt.
	watchCtx, stopWatch := context.WithTimeout(ctx, 30*time.Second)
	watched := &redraws{stopAt: 2, stop: stopWatch}
	code := run(watchCtx, []string{"inspect", "--table", table, "--json", "--watch", "100ms", "--endpoint-dynamodb", st.Resources.Endpoints.DynamoDB}, watched, io.Discard)
	stopWatch()
	if lines := strings.Split(strings.TrimSpace(watched.String()), "\n"); code != exitOK || len(lines) < 2 {
		t.Errorf("inspect --watch 100ms: exit %d, %d redraws in 30 s, want 0 and at least 2:\n%s", code, len(lines), watched.String())
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
	f := lockFlags{table: table, aws: awsFlags{endpointDynamoDB: st.Resources.Endpoints.DynamoDB, endpointSFN: st.Resources.Endpoints.StepFunctions}}
	c, err := f.client(ctx)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		d, err := readLock(ctx, c, name, time.Now)
		if err == nil && ok(d) {
			return d
		}
		if time.Now().After(deadline) {
			t.Fatalf("the lock did not get there in a minute: %+v (%v)", d, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// redraws collects inspect --watch's output and calls stop once it holds stopAt lines.
type redraws struct {
	bytes.Buffer
	stopAt int
	stop   func()
}

// Write adds p and stops the watch at stopAt lines.
func (r *redraws) Write(p []byte) (int, error) {
	n, err := r.Buffer.Write(p)
	if bytes.Count(r.Bytes(), []byte("\n")) >= r.stopAt {
		r.stop()
	}
	return n, err
}

// TestSteerDemoStack steers a live lock of the demo on `up`'s stack (limit 5, work of an hour,
// real time; holders finish when stopped, and the cleanup releases them): pause stops
// admissions while the queue keeps its order and resume restarts them; a live limit change from
// 5 to 2 lets no more than 2 in once the holders above it finish, and from 2 to 8 admits six
// waiters at once; drain ends the waiters with the named cause and leaks nothing.
func TestSteerDemoStack(t *testing.T) {
	if testing.Short() {
		t.Skip("starts DynamoDB Local and synthesizes the demo app")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cfg := demo.DefaultConfig()
	cfg.Limit, cfg.WorkDuration, cfg.FailureRate = 5, time.Hour, 0
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
	client := st.StepFunctionsClient()
	var started []string
	start := func() {
		t.Helper()
		i := len(started)
		out, err := client.StartExecution(ctx, &sfn.StartExecutionInput{StateMachineArn: aws.String(machine), Name: aws.String(fmt.Sprintf("steered-%d", i))})
		if err != nil {
			t.Fatal(err)
		}
		started = append(started, *out.ExecutionArn)
		waitFor(t, ctx, st, table, name, func(d lockDetail) bool {
			return slices.ContainsFunc(d.Holders, func(h holderDetail) bool { return h.Execution == started[i] }) ||
				slices.ContainsFunc(d.Waiters, func(w waiterDetail) bool { return w.Execution == started[i] })
		})
	}
	stop := func(i int) {
		t.Helper()
		if _, err := client.StopExecution(ctx, &sfn.StopExecutionInput{ExecutionArn: aws.String(started[i])}); err != nil {
			t.Fatal(err)
		}
	}
	holding := func(d lockDetail) []string {
		var hs []string
		for _, h := range d.Holders {
			hs = append(hs, h.Execution)
		}
		slices.Sort(hs)
		return hs
	}
	queue := func(d lockDetail) []string {
		var ws []string
		for _, w := range d.Waiters {
			ws = append(ws, w.Execution)
		}
		return ws
	}
	steer := func(args ...string) steerReport {
		t.Helper()
		var r steerReport
		if code := operate(t, ctx, st, &r, append(append([]string{args[0], "--table", table}, args[1:]...), "--json")...); code != exitOK {
			t.Fatalf("%v: exit %d", args, code)
		}
		return r
	}
	sorted := func(s []string) []string { return slices.Sorted(slices.Values(s)) }

	for range 12 { // e0..e4 hold, e5..e11 wait
		start()
	}

	// Pause: a freed slot goes back to the lock, a newcomer queues behind the others.
	if r := steer("pause", "--lock", name); !r.Paused {
		t.Fatalf("pause reports %+v, want paused", r)
	}
	stop(0)
	d := waitFor(t, ctx, st, table, name, func(d lockDetail) bool { return len(d.Holders) == 4 })
	start() // e12
	d = waitFor(t, ctx, st, table, name, func(d lockDetail) bool { return len(d.Waiters) == 8 })
	if !d.Paused || len(d.Holders) != 4 || !slices.Equal(queue(d), started[5:13]) {
		t.Fatalf("paused with a free slot: paused %v, holders %v, queue %v; want 4 holders and the queue e5..e12 in order", d.Paused, holding(d), queue(d))
	}
	if r := steer("resume", "--lock", name); r.Paused || !slices.Equal(r.Admitted, started[5:6]) {
		t.Fatalf("resume reports %+v, want e5 admitted", r)
	}

	// 5 → 2: the holders above it finish, and their slots go back to the lock.
	if r := steer("limit", "--lock", name, "--set", "2"); r.Limit != 2 || len(r.Admitted) != 0 {
		t.Fatalf("limit --set 2 reports %+v, want limit 2 and nobody admitted", r)
	}
	for _, i := range []int{1, 2, 3} {
		stop(i)
	}
	d = waitFor(t, ctx, st, table, name, func(d lockDetail) bool { return len(d.Holders) == 2 })
	if want := sorted([]string{started[4], started[5]}); !slices.Equal(holding(d), want) || !slices.Equal(queue(d), started[6:13]) || d.Limit != 2 || !d.LimitOverride {
		t.Fatalf("at limit 2: holders %v, queue %v, limit %d; want %v, e6..e12, 2", holding(d), queue(d), d.Limit, want)
	}
	stop(4) // at the limit: its slot goes to the oldest waiter
	d = waitFor(t, ctx, st, table, name, func(d lockDetail) bool { return len(d.Waiters) == 6 })
	if want := sorted([]string{started[5], started[6]}); !slices.Equal(holding(d), want) || d.Count != 2 {
		t.Fatalf("after a release at the limit: holders %v (counter %d), want %v", holding(d), d.Count, want)
	}

	// 2 → 8: six waiters at once, oldest first.
	if r := steer("limit", "--lock", name, "--set", "8"); !slices.Equal(r.Admitted, started[7:13]) {
		t.Fatalf("limit --set 8 admitted %v, want the six waiters e7..e12", r.Admitted)
	}
	d = waitFor(t, ctx, st, table, name, func(d lockDetail) bool { return len(d.Holders) == 8 })
	for _, h := range d.Holders {
		if h.Status != "RUNNING" {
			t.Errorf("holder %s is %s, want RUNNING", h.Execution, h.Status)
		}
	}

	// Drain: the two newcomers waiting at the limit fail with the named cause.
	start()
	start()
	const cause = "database maintenance"
	if r := steer("drain", "--lock", name, "--cause", cause); !slices.Equal(r.Drained, started[13:15]) || len(r.Unreached) != 0 {
		t.Fatalf("drain reports %+v, want e13 and e14 drained", r)
	}
	for _, e := range started[13:15] {
		for {
			out, err := client.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: aws.String(e)})
			if err != nil {
				t.Fatal(err)
			}
			if out.Status == "RUNNING" {
				time.Sleep(20 * time.Millisecond)
				continue
			}
			if out.Status != "FAILED" || aws.ToString(out.Error) != lock.ErrorDrained || aws.ToString(out.Cause) != cause {
				t.Errorf("drained %s ended %s with %q: %q; want FAILED with %s: %q", e, out.Status, aws.ToString(out.Error), aws.ToString(out.Cause), lock.ErrorDrained, cause)
			}
			break
		}
	}

	// The default: the lock has its own limit, so a new default leaves it until cleared.
	if r := steer("limit", "--default", "--state-machine", machine, "--set", "3"); len(r.Locks) != 0 {
		t.Errorf("limit --default reports %+v, want no lock changed (the lock's limit is its own)", r)
	}
	if r := steer("limit", "--lock", name, "--clear"); r.Limit != 3 {
		t.Errorf("limit --clear reports %+v, want the default 3", r)
	}

	// Nothing leaked: every holder stopped, the lock ends empty.
	for i := 5; i < 13; i++ {
		stop(i)
	}
	d = waitFor(t, ctx, st, table, name, func(d lockDetail) bool { return len(d.Holders) == 0 })
	if d.Count != 0 || len(d.Waiters) != 0 {
		t.Errorf("at the end: counter %d, waiters %v; want an empty lock", d.Count, queue(d))
	}
}
