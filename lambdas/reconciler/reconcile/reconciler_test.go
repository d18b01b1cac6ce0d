package reconcile_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/turnstile-sfn/turnstile/emulator/ddblocal/ddblocaltest"
	"github.com/turnstile-sfn/turnstile/lambdas/reconciler/reconcile"
	"github.com/turnstile-sfn/turnstile/lock"
)

// The tests run the reconciler against a real lock table in DynamoDB Local.
var server ddblocaltest.Server

func TestMain(m *testing.M) { os.Exit(ddblocaltest.Main(m, &server)) }

const (
	machineArn = "arn:aws:states:us-east-1:123456789012:stateMachine:Sem"
	exec       = "arn:aws:states:us-east-1:123456789012:execution:Sem:"
)

// fakeSFN answers DescribeExecution from a status table (a missing entry does not exist) and
// records the tokens completed.
type fakeSFN struct {
	status map[string]sfntypes.ExecutionStatus
	woken  []string
}

func (f *fakeSFN) DescribeExecution(_ context.Context, in *sfn.DescribeExecutionInput, _ ...func(*sfn.Options)) (*sfn.DescribeExecutionOutput, error) {
	status, ok := f.status[aws.ToString(in.ExecutionArn)]
	if !ok {
		return nil, &sfntypes.ExecutionDoesNotExist{Message: aws.String("no such execution")}
	}
	return &sfn.DescribeExecutionOutput{Status: status}, nil
}

// SendTaskSuccess completes the tokens of running executions (a token is "token-" and the
// execution's ARN); a dead execution's task no longer exists.
func (f *fakeSFN) SendTaskSuccess(_ context.Context, in *sfn.SendTaskSuccessInput, _ ...func(*sfn.Options)) (*sfn.SendTaskSuccessOutput, error) {
	token := aws.ToString(in.TaskToken)
	if f.status[strings.TrimPrefix(token, "token-")] != sfntypes.ExecutionStatusRunning {
		return nil, &sfntypes.TaskTimedOut{Message: aws.String("Provided task does not exist anymore")}
	}
	f.woken = append(f.woken, token)
	return &sfn.SendTaskSuccessOutput{}, nil
}

// TestRunReleasesOnlyDeadHolders: live holders stay; dead and unknown ones are released, each
// handing its slot to the oldest live waiter (the first one skips a dead waiter); a dead waiter
// that nothing reached leaves the queue; other machines' holders are not touched; MaxHolders
// bounds the work.
func TestRunReleasesOnlyDeadHolders(t *testing.T) {
	other := "arn:aws:states:us-east-1:123456789012:execution:Other:x"
	for _, tc := range []struct {
		name       string
		maxHolders int
		want       reconcile.Result
	}{
		// The scan reads a snapshot: the waiters handed a slot during the run are still checked.
		{"all", 0, reconcile.Result{Locks: 1, Checked: 7, Live: 3, Released: 2, DequeuedWaiters: 2,
			ReleasedHolders: []string{"L " + exec + "aborted", "L " + exec + "missing"}}},
		// The scan's order is DynamoDB's: one item is checked, whichever comes first.
		{"bounded", 1, reconcile.Result{Checked: 1, Truncated: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			table := server.CreateLockTable(t)
			f := &fakeSFN{status: map[string]sfntypes.ExecutionStatus{
				exec + "live": sfntypes.ExecutionStatusRunning, exec + "aborted": sfntypes.ExecutionStatusAborted,
				exec + "waiting": sfntypes.ExecutionStatusRunning, exec + "waiting2": sfntypes.ExecutionStatusRunning,
				exec + "deadwaiter": sfntypes.ExecutionStatusTimedOut, exec + "deadwaiter2": sfntypes.ExecutionStatusAborted,
			}}
			locks, err := lock.New(table, server.Client, f)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range []string{exec + "aborted", exec + "live", exec + "missing", other} {
				if ok, err := locks.TryAcquire(ctx, "L", h, 4); err != nil || !ok {
					t.Fatalf("acquire %s: %v, %v", h, ok, err)
				}
			}
			for i, w := range []string{exec + "deadwaiter", exec + "waiting", exec + "waiting2", exec + "deadwaiter2"} {
				if _, err := locks.Park(ctx, lock.ParkRequest{Lock: "L", Limit: 4, Execution: w, Ticket: int64(i + 1), Token: "token-" + w}); err != nil {
					t.Fatal(err)
				}
			}
			r, err := reconcile.New(reconcile.Config{TableName: table, StateMachineArn: machineArn, MaxHolders: tc.maxHolders, Limit: 4}, f, server.Client)
			if err != nil {
				t.Fatal(err)
			}
			got, err := r.Run(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if tc.maxHolders == 1 {
				if got.Checked != 1 || !got.Truncated || got.Live+got.Released+got.DequeuedWaiters != 1 {
					t.Errorf("Run = %+v, want one item checked and the run truncated", got)
				}
			} else if got.Locks != tc.want.Locks || got.Checked != tc.want.Checked || got.Live != tc.want.Live || got.Released != tc.want.Released ||
				got.DequeuedWaiters != tc.want.DequeuedWaiters || got.Truncated != tc.want.Truncated || !slices.Equal(got.ReleasedHolders, tc.want.ReleasedHolders) {
				t.Errorf("Run = %+v, want %+v", got, tc.want)
			}
			st, err := locks.Read(ctx, "L")
			if err != nil {
				t.Fatal(err)
			}
			if err := st.Check(4); err != nil {
				t.Fatal(err)
			}
			if tc.maxHolders == 0 {
				var holders []string
				for _, h := range st.Holders {
					holders = append(holders, h.Execution)
				}
				if want := []string{other, exec + "live", exec + "waiting", exec + "waiting2"}; !slices.Equal(holders, want) || len(st.Waiters) != 0 {
					t.Errorf("holders %v, waiters %+v; want %v and none waiting", holders, st.Waiters, want)
				}
			}
		})
	}
}

// TestConfigErrors checks that a missing table, machine or limit is a named ErrConfig.
func TestConfigErrors(t *testing.T) {
	for _, cfg := range []reconcile.Config{
		{StateMachineArn: machineArn, Limit: 1}, {TableName: "locks", Limit: 1},
		{TableName: "locks", StateMachineArn: machineArn, MaxHolders: -1, Limit: 1}, {TableName: "locks", StateMachineArn: machineArn},
	} {
		if _, err := reconcile.New(cfg, &fakeSFN{}, server.Client); !errors.Is(err, reconcile.ErrConfig) {
			t.Errorf("New(%+v) err = %v, want ErrConfig", cfg, err)
		}
	}
}

// TestRunChecksTheLongestHeldFirst: a slot leaked long ago is freed by a run whose budget is
// smaller than the holders and the queue: holders are checked before waiters, the longest-held
// first (the dead holder sorts last by ARN, and the queue has more live waiters than the budget,
// so a run that checked items in the scan's order would miss it, whichever partition came first).
func TestRunChecksTheLongestHeldFirst(t *testing.T) {
	ctx := t.Context()
	table := server.CreateLockTable(t)
	dead := exec + "zz-dead"
	f := &fakeSFN{status: map[string]sfntypes.ExecutionStatus{dead: sfntypes.ExecutionStatusAborted}}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	locks, err := lock.New(table, server.Client, f, lock.WithNow(func() time.Time { now = now.Add(time.Second); return now }))
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{dead, exec + "aa", exec + "bb", exec + "cc"} {
		f.status[h] = cmp.Or(f.status[h], sfntypes.ExecutionStatusRunning)
		if ok, err := locks.TryAcquire(ctx, "L", h, 4); err != nil || !ok {
			t.Fatalf("acquire %s: %v, %v", h, ok, err)
		}
	}
	var waiters []string
	for i := range 10 {
		w := fmt.Sprintf("%swaiter-%02d", exec, i)
		f.status[w] = sfntypes.ExecutionStatusRunning
		waiters = append(waiters, w)
		if _, err := locks.Park(ctx, lock.ParkRequest{Lock: "L", Limit: 4, Execution: w, Ticket: int64(i + 1), Token: "token-" + w}); err != nil {
			t.Fatal(err)
		}
	}
	r, err := reconcile.New(reconcile.Config{TableName: table, StateMachineArn: machineArn, MaxHolders: 2, Limit: 4}, f, server.Client)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got.Checked != 2 || !got.Truncated || !slices.Equal(got.ReleasedHolders, []string{"L " + dead}) {
		t.Errorf("Run = %+v, want 2 checked, truncated, %s released", got, dead)
	}
	st, err := locks.Read(ctx, "L")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Check(4); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(st.Holders, func(h lock.Holder) bool { return h.Execution == waiters[0] }) || len(st.Waiters) != 9 {
		t.Errorf("holders %+v, %d waiting; want the oldest waiter handed the dead holder's slot, 9 waiting", st.Holders, len(st.Waiters))
	}
}
