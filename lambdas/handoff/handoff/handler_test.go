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
	"github.com/turnstile-sfn/turnstile/internal/waitqueue"
	"github.com/turnstile-sfn/turnstile/lambdas/handoff/handoff"
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
)

// TestParkAndRelease: A takes the free slot by parking, B queues, A's release hands the slot
// to B and wakes it, B's release frees the lock.
func TestParkAndRelease(t *testing.T) {
	table := server.CreateLockTable(t)
	s := &runningSFN{}
	q, err := waitqueue.New(table, server.Client, s)
	if err != nil {
		t.Fatal(err)
	}
	h := handoff.New(q)
	ctx := t.Context()
	// The lock item does not exist yet: A's park creates it, taking the free slot.
	res, err := h.Handle(ctx, handoff.Request{Action: machines.HandOffActionPark, LockName: "L", Limit: 1, ExecutionArn: a, TaskToken: "ta"})
	if err != nil || res.Park == nil || !res.Park.Admitted {
		t.Fatalf("park A = %+v, %v", res, err)
	}
	res, err = h.Handle(ctx, handoff.Request{Action: machines.HandOffActionPark, LockName: "L", Limit: 1, ExecutionArn: b, TaskToken: "tb"})
	if err != nil || res.Park == nil || !res.Park.Queued || res.Park.Ticket != 1 {
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
}

// TestBadRequestIsNamed: an unknown action or a missing field fails with
// Turnstile.InvalidHandOffRequest, the name the machines see.
func TestBadRequestIsNamed(t *testing.T) {
	q, err := waitqueue.New("locks", server.Client, &runningSFN{})
	if err != nil {
		t.Fatal(err)
	}
	h := handoff.New(q)
	for _, req := range []handoff.Request{
		{Action: "steal", LockName: "L", ExecutionArn: a},
		{Action: machines.HandOffActionPark, LockName: "L", Limit: 1, ExecutionArn: a},
		{Action: machines.HandOffActionRelease, ExecutionArn: a},
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
