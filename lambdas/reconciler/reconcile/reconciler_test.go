package reconcile_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/turnstile-sfn/turnstile/lambdas/reconciler/reconcile"
)

const (
	machineArn = "arn:aws:states:us-east-1:123456789012:stateMachine:Sem"
	exec       = "arn:aws:states:us-east-1:123456789012:execution:Sem:"
)

// fakeSFN answers DescribeExecution from a status table; a missing entry does not exist.
type fakeSFN map[string]sfntypes.ExecutionStatus

func (f fakeSFN) DescribeExecution(_ context.Context, in *sfn.DescribeExecutionInput, _ ...func(*sfn.Options)) (*sfn.DescribeExecutionOutput, error) {
	status, ok := f[aws.ToString(in.ExecutionArn)]
	if !ok {
		return nil, &sfntypes.ExecutionDoesNotExist{Message: aws.String("no such execution")}
	}
	return &sfn.DescribeExecutionOutput{Status: status}, nil
}

// SendTaskSuccess is never called: the fake lock items have no wait queue.
func (f fakeSFN) SendTaskSuccess(context.Context, *sfn.SendTaskSuccessInput, ...func(*sfn.Options)) (*sfn.SendTaskSuccessOutput, error) {
	return nil, errors.New("fakeSFN: no execution waits")
}

// fakeDDB serves one scan page and records releases; holders in gone fail the condition.
type fakeDDB struct {
	items    []map[string]types.AttributeValue
	gone     map[string]bool
	released []string
}

func (f *fakeDDB) Scan(context.Context, *dynamodb.ScanInput, ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	return &dynamodb.ScanOutput{Items: f.items}, nil
}

func (f *fakeDDB) UpdateItem(_ context.Context, in *dynamodb.UpdateItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	holder := in.ExpressionAttributeNames["#holder"]
	if f.gone[holder] {
		return nil, &types.ConditionalCheckFailedException{Message: aws.String("condition")}
	}
	f.released = append(f.released, holder)
	return &dynamodb.UpdateItemOutput{}, nil
}

// GetItem is never called: the fake lock items have no wait queue.
func (f *fakeDDB) GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return nil, errors.New("fakeDDB: no lock item is read")
}

func item(holders ...string) map[string]types.AttributeValue {
	it := map[string]types.AttributeValue{
		"LockName":         &types.AttributeValueMemberS{Value: "L"},
		"currentlockcount": &types.AttributeValueMemberN{Value: "0"},
	}
	for _, h := range holders {
		it[h] = &types.AttributeValueMemberS{Value: "2026-01-01T00:00:00Z"}
	}
	return it
}

// TestRunReleasesOnlyDeadHolders: live holders stay, dead and unknown ones are released,
// holders released by someone else count as such, other machines' holders are not touched,
// and MaxHolders bounds the work.
func TestRunReleasesOnlyDeadHolders(t *testing.T) {
	other := "arn:aws:states:us-east-1:123456789012:execution:Other:x"
	statuses := fakeSFN{exec + "live": sfntypes.ExecutionStatusRunning, exec + "aborted": sfntypes.ExecutionStatusAborted, exec + "raced": sfntypes.ExecutionStatusFailed}
	tests := []struct {
		name         string
		maxHolders   int
		wantReleased []string
		want         reconcile.Result
	}{
		{"all", 0, []string{exec + "aborted", exec + "missing"},
			reconcile.Result{Locks: 1, Checked: 4, Live: 1, Released: 2, AlreadyReleased: 1, ReleasedHolders: []string{"L " + exec + "aborted", "L " + exec + "missing"}}},
		{"bounded", 1, []string{exec + "aborted"},
			reconcile.Result{Locks: 1, Checked: 1, Released: 1, Truncated: true, ReleasedHolders: []string{"L " + exec + "aborted"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ddb := &fakeDDB{items: []map[string]types.AttributeValue{item(exec+"live", exec+"aborted", exec+"missing", exec+"raced", other)}, gone: map[string]bool{exec + "raced": true}}
			r, err := reconcile.New(reconcile.Config{TableName: "locks", StateMachineArn: machineArn, MaxHolders: tc.maxHolders}, statuses, ddb)
			if err != nil {
				t.Fatal(err)
			}
			got, err := r.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if !equalResult(got, tc.want) {
				t.Errorf("Run = %+v, want %+v", got, tc.want)
			}
			if !equalStrings(ddb.released, tc.wantReleased) {
				t.Errorf("released %v, want %v", ddb.released, tc.wantReleased)
			}
		})
	}
}

// TestConfigErrors checks that a missing table or machine is a named ErrConfig.
func TestConfigErrors(t *testing.T) {
	for _, cfg := range []reconcile.Config{{StateMachineArn: machineArn}, {TableName: "locks"}, {TableName: "locks", StateMachineArn: machineArn, MaxHolders: -1}} {
		if _, err := reconcile.New(cfg, fakeSFN{}, &fakeDDB{}); !errors.Is(err, reconcile.ErrConfig) {
			t.Errorf("New(%+v) err = %v, want ErrConfig", cfg, err)
		}
	}
}

func equalResult(a, b reconcile.Result) bool {
	return a.Locks == b.Locks && a.Checked == b.Checked && a.Live == b.Live && a.Released == b.Released &&
		a.AlreadyReleased == b.AlreadyReleased && a.Truncated == b.Truncated && equalStrings(a.ReleasedHolders, b.ReleasedHolders)
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
