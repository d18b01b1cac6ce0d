package handoff_test

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/aws/aws-lambda-go/lambda/messages"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/emulator/ddblocal/ddblocaltest"
	"github.com/turnstile-sfn/turnstile/lambdas/handoff/handoff"
	"github.com/turnstile-sfn/turnstile/lock"
)

var server ddblocaltest.Server

func TestMain(m *testing.M) { os.Exit(ddblocaltest.Main(m, &server)) }

// runningSFN completes every token and reports every execution RUNNING.
type runningSFN struct{ woken []string }

func (s *runningSFN) SendTaskSuccess(_ context.Context, in *sfn.SendTaskSuccessInput, _ ...func(*sfn.Options)) (*sfn.SendTaskSuccessOutput, error) {
	s.woken = append(s.woken, *in.TaskToken)
	return &sfn.SendTaskSuccessOutput{}, nil
}

func (s *runningSFN) DescribeExecution(context.Context, *sfn.DescribeExecutionInput, ...func(*sfn.Options)) (*sfn.DescribeExecutionOutput, error) {
	return &sfn.DescribeExecutionOutput{Status: "RUNNING"}, nil
}

const (
	a = "arn:aws:states:us-east-1:123456789012:execution:Sem:a"
	b = "arn:aws:states:us-east-1:123456789012:execution:Sem:b"
	c = "arn:aws:states:us-east-1:123456789012:execution:Sem:c"
)

// TestParkAndRelease: A takes the free slot by parking, B queues, A's release hands the slot
// to B and wakes it, B's release frees the lock; C queues and leaves.
func TestParkAndRelease(t *testing.T) {
	table := server.CreateLockTable(t)
	s := &runningSFN{}
	locks, err := lock.New(table, server.Client, s)
	if err != nil {
		t.Fatal(err)
	}
	h := handoff.New(locks)
	ctx := t.Context()
	// The lock's items do not exist yet: A's park creates them, taking the free slot.
	res, err := h.Handle(ctx, handoff.Request{Action: machines.HandOffActionPark, LockName: "L", Limit: 1, ExecutionArn: a, Ticket: 1, TaskToken: "ta"})
	if err != nil || res.Park == nil || !res.Park.Admitted {
		t.Fatalf("park A = %+v, %v", res, err)
	}
	res, err = h.Handle(ctx, handoff.Request{Action: machines.HandOffActionPark, LockName: "L", Limit: 1, ExecutionArn: b, Ticket: 2, TaskToken: "tb"})
	if err != nil || res.Park == nil || !res.Park.Queued {
		t.Fatalf("park B = %+v, %v", res, err)
	}
	res, err = h.Handle(ctx, handoff.Request{Action: machines.HandOffActionRelease, LockName: "L", Limit: 1, ExecutionArn: a})
	if err != nil || res.Release == nil || len(res.Release.HandedTo) != 1 || res.Release.HandedTo[0] != b {
		t.Fatalf("release A = %+v, %v", res, err)
	}
	res, err = h.Handle(ctx, handoff.Request{Action: machines.HandOffActionRelease, LockName: "L", Limit: 1, ExecutionArn: b})
	if err != nil || !res.Release.Released || len(res.Release.HandedTo) != 0 {
		t.Fatalf("release B = %+v, %v", res, err)
	}
	if len(s.woken) != 2 || s.woken[0] != "ta" || s.woken[1] != "tb" {
		t.Fatalf("woken %v, want [ta tb]", s.woken)
	}
	res, err = h.Handle(ctx, handoff.Request{Action: machines.HandOffActionPark, LockName: "L", Limit: 1, ExecutionArn: b, Ticket: 3, TaskToken: "tb2"})
	if err != nil || !res.Park.Admitted {
		t.Fatalf("park B again = %+v, %v", res, err)
	}
	res, err = h.Handle(ctx, handoff.Request{Action: machines.HandOffActionPark, LockName: "L", Limit: 1, ExecutionArn: c, Ticket: 4, TaskToken: "tc"})
	if err != nil || !res.Park.Queued {
		t.Fatalf("park C = %+v, %v", res, err)
	}
	if _, err := h.Handle(ctx, handoff.Request{Action: machines.HandOffActionLeave, LockName: "L", Limit: 1, ExecutionArn: c, Ticket: 4}); err != nil {
		t.Fatal(err)
	}
	st, err := locks.Read(ctx, "L")
	if err != nil || len(st.Waiters) != 0 || st.Count != 1 {
		t.Fatalf("after C left: %+v, %v", st, err)
	}
}

// TestPriorityPlacesTheWaiter: with priorities, a park queues under lock.Place, so a later
// waiter of a higher priority is woken first; leave finds the waiter under the same place.
func TestPriorityPlacesTheWaiter(t *testing.T) {
	table := server.CreateLockTable(t)
	s := &runningSFN{}
	locks, err := lock.New(table, server.Client, s)
	if err != nil {
		t.Fatal(err)
	}
	h := handoff.New(locks)
	ctx := t.Context()
	low, high := 0, 9
	park := func(arn string, ticket int64, priority *int, tok string) {
		t.Helper()
		if _, err := h.Handle(ctx, handoff.Request{Action: machines.HandOffActionPark, LockName: "L", Limit: 1, ExecutionArn: arn,
			Ticket: ticket, TaskToken: tok, Priority: priority, PriorityAgeing: 10}); err != nil {
			t.Fatal(err)
		}
	}
	park(a, 1, &low, "ta")
	park(b, 2, &low, "tb")
	park(c, 3, &high, "tc")
	st, err := locks.Read(ctx, "L")
	if err != nil || len(st.Waiters) != 2 || st.Waiters[0].Execution != c || st.Waiters[0].Ticket != lock.Place(3, high, 10) {
		t.Fatalf("queue %+v, %v; want C first, at its place", st.Waiters, err)
	}
	if _, err := h.Handle(ctx, handoff.Request{Action: machines.HandOffActionLeave, LockName: "L", Limit: 1, ExecutionArn: b, Ticket: 2, Priority: &low, PriorityAgeing: 10}); err != nil {
		t.Fatal(err)
	}
	res, err := h.Handle(ctx, handoff.Request{Action: machines.HandOffActionRelease, LockName: "L", Limit: 1, ExecutionArn: a})
	if err != nil || len(res.Release.HandedTo) != 1 || res.Release.HandedTo[0] != c {
		t.Fatalf("release A = %+v, %v; want handed to C", res, err)
	}
	if st, err := locks.Read(ctx, "L"); err != nil || len(st.Waiters) != 0 {
		t.Fatalf("B did not leave: %+v, %v", st, err)
	}
}

// TestWeightedPark: a park of weight 3 (written 3.0) on a lock of 4 takes 3 slots; one of weight 5 fails
// with Turnstile.WeightAboveLimit, the name the machine fails with.
func TestWeightedPark(t *testing.T) {
	table := server.CreateLockTable(t)
	locks, err := lock.New(table, server.Client, &runningSFN{})
	if err != nil {
		t.Fatal(err)
	}
	h := handoff.New(locks)
	ctx := t.Context()
	if res, err := h.Handle(ctx, handoff.Request{Action: machines.HandOffActionPark, LockName: "L", Limit: 4, ExecutionArn: a, Ticket: 1, TaskToken: "ta", Weight: "3.0"}); err != nil || !res.Park.Admitted {
		t.Fatalf("park A = %+v, %v", res, err)
	}
	if st, err := locks.Read(ctx, "L"); err != nil || st.Count != 3 {
		t.Fatalf("after A: %+v, %v; want 3 held", st, err)
	}
	_, err = h.Handle(ctx, handoff.Request{Action: machines.HandOffActionPark, LockName: "L", Limit: 4, ExecutionArn: b, Ticket: 2, TaskToken: "tb", Weight: "5"})
	var named messages.InvokeResponse_Error
	if !errors.As(err, &named) || named.Type != lock.ErrorWeightAboveLimit {
		t.Fatalf("park B of weight 5 = %v, want a %s error", err, lock.ErrorWeightAboveLimit)
	}
}

// TestBadRequestIsNamed: an unknown action or a missing field fails with
// Turnstile.InvalidHandOffRequest, the name the machines see.
func TestBadRequestIsNamed(t *testing.T) {
	locks, err := lock.New("locks", server.Client, &runningSFN{})
	if err != nil {
		t.Fatal(err)
	}
	h := handoff.New(locks)
	tooHigh, valid := lock.MaxPriority+1, lock.MaxPriority
	for _, req := range []handoff.Request{
		{Action: "steal", LockName: "L", ExecutionArn: a},
		{Action: machines.HandOffActionPark, LockName: "L", Limit: 1, ExecutionArn: a, Ticket: 1},
		{Action: machines.HandOffActionPark, LockName: "L", Limit: 1, ExecutionArn: a, TaskToken: "t"},
		{Action: machines.HandOffActionLeave, LockName: "L", Limit: 1, ExecutionArn: a},
		{Action: machines.HandOffActionRelease, ExecutionArn: a},
		{Action: machines.HandOffActionPark, LockName: "L", Limit: 1, ExecutionArn: a, Ticket: 1, TaskToken: "t", Priority: &tooHigh, PriorityAgeing: 1},
		{Action: machines.HandOffActionPark, LockName: "L", Limit: 1, ExecutionArn: a, Ticket: 1, TaskToken: "t", Priority: &valid},
		{Action: machines.HandOffActionPark, LockName: "L", Limit: 3, ExecutionArn: a, Ticket: 1, TaskToken: "t", Weight: "2.5"},
		{Action: machines.HandOffActionPark, LockName: "L", Limit: 3, ExecutionArn: a, Ticket: 1, TaskToken: "t", Weight: "0"},
	} {
		_, err := h.Handle(t.Context(), req)
		var named messages.InvokeResponse_Error
		if !errors.As(err, &named) || named.Type != machines.ErrorInvalidHandOffRequest {
			t.Errorf("%+v: got %v, want a %s error", req, err, machines.ErrorInvalidHandOffRequest)
		}
	}
}

// TestTableFromEnv: the table comes from the environment; without it, a named error.
func TestTableFromEnv(t *testing.T) {
	env := map[string]string{machines.EnvHandOffLockTable: "locks"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	if got, err := handoff.TableFromEnv(lookup); err != nil || got != "locks" {
		t.Errorf("TableFromEnv = %q, %v", got, err)
	}
	delete(env, machines.EnvHandOffLockTable)
	if _, err := handoff.TableFromEnv(lookup); !errors.Is(err, handoff.ErrMissingTable) {
		t.Errorf("TableFromEnv without the variable: %v", err)
	}
}
