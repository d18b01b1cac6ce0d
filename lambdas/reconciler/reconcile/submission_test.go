package reconcile_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/turnstile-sfn/turnstile/lambdas/reconciler/reconcile"
	"github.com/turnstile-sfn/turnstile/lock"
)

// startingSFN is fakeSFN with StartExecution: a start makes the execution RUNNING, unless
// down, when it fails with a throttling error as if the caller had crashed before it.
type startingSFN struct {
	*fakeSFN
	down   bool
	starts int
}

func (f *startingSFN) StartExecution(_ context.Context, in *sfn.StartExecutionInput, _ ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error) {
	if f.down {
		return nil, &sfntypes.ExecutionLimitExceeded{Message: aws.String("down")}
	}
	arn := exec + aws.ToString(in.Name)
	if _, ok := f.status[arn]; ok {
		return nil, &sfntypes.ExecutionAlreadyExists{Message: aws.String("exists")}
	}
	f.starts++
	f.status[arn] = sfntypes.ExecutionStatusRunning
	return &sfn.StartExecutionOutput{ExecutionArn: aws.String(arn)}, nil
}

// TestRunStartsAGrantWhoseStartNeverHappened: a submission granted a slot whose
// StartExecution never happened is started by the run, once; a queued submission is no
// execution and stays in the queue.
func TestRunStartsAGrantWhoseStartNeverHappened(t *testing.T) {
	ctx := t.Context()
	table := server.CreateLockTable(t)
	f := &startingSFN{fakeSFN: &fakeSFN{status: map[string]sfntypes.ExecutionStatus{}}, down: true}
	locks, err := lock.New(table, server.Client, f)
	if err != nil {
		t.Fatal(err)
	}
	granted, err := locks.Submit(ctx, lock.SubmitRequest{Lock: "L", Limit: 1, StateMachine: machineArn, Input: `{"n":1}`})
	if !errors.Is(err, lock.ErrBusy) {
		t.Fatalf("submit = %v, want ErrBusy (the start failed after the grant)", err)
	}
	queued, err := locks.Submit(ctx, lock.SubmitRequest{Lock: "L", Limit: 1, StateMachine: machineArn, Input: `{"n":2}`})
	if err != nil {
		t.Fatal(err)
	}
	f.down = false
	r, err := reconcile.New(reconcile.Config{TableName: table, StateMachineArn: machineArn, Limit: 1}, f, server.Client)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		got, err := r.Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want := 1 - i; got.StartedGrants != want || got.DequeuedWaiters != 0 || got.Released != 0 {
			t.Fatalf("run %d = %+v, want %d started grant(s), nothing else", i, got, want)
		}
	}
	if f.starts != 1 || f.status[granted.Execution] != sfntypes.ExecutionStatusRunning {
		t.Fatalf("%d starts, %s is %q; want it started once", f.starts, granted.Execution, f.status[granted.Execution])
	}
	st, err := locks.Status(ctx, "L", queued.ID)
	if err != nil || st.Outcome != lock.OutcomeQueued {
		t.Fatalf("the queued submission = %+v, %v; want still queued", st, err)
	}
}
