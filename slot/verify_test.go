package slot_test

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/aws/aws-lambda-go/lambda/messages"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/emulator/ddblocal/ddblocaltest"
	"github.com/turnstile-sfn/turnstile/lock"
	"github.com/turnstile-sfn/turnstile/slot"
)

var server ddblocaltest.Server

func TestMain(m *testing.M) { os.Exit(ddblocaltest.Main(m, &server)) }

const holder = "arn:aws:states:us-east-1:123456789012:execution:Sem:holder"

// invocation returns a Lambda context carrying the semaphore's client context.
func invocation(execution, table, lock string) context.Context {
	return invocationWithLimit(execution, table, lock, "1")
}

// invocationWithLimit is invocation for a lock of the given limit.
func invocationWithLimit(execution, table, lock, limit string) context.Context {
	return lambdacontext.NewContext(context.Background(), &lambdacontext.LambdaContext{
		ClientContext: lambdacontext.ClientContext{Custom: map[string]string{
			machines.ClientContextKeyExecution:    execution,
			machines.ClientContextKeyTable:        table,
			machines.ClientContextKeyLock:         lock,
			machines.ClientContextKeyLimit:        limit,
			machines.ClientContextKeyRedriveCount: "1",
		}},
	})
}

// errorName is the Lambda error name of err, or "".
func errorName(err error) string {
	var named messages.InvokeResponse_Error
	if errors.As(err, &named) {
		return named.Type
	}
	return ""
}

// TestVerify: a holder passes; another execution takes a free slot, and is Turnstile.NotHolder
// when every slot is taken; an invocation without the client context is
// Turnstile.NoSlotContext; a DynamoDB failure is returned as it is.
func TestVerify(t *testing.T) {
	table := server.CreateLockTable(t)
	locks, err := lock.New(table, server.Client, nil)
	if err != nil {
		t.Fatal(err)
	}
	if held, err := locks.TryAcquire(t.Context(), `Lock "1"`, holder, 1); err != nil || !held {
		t.Fatalf("the holder's acquire: %v, %v", held, err)
	}
	lockName := `Lock "1"`
	if err := slot.Verify(invocation(holder, table, lockName), server.Client); err != nil {
		t.Errorf("the holder: %v", err)
	}
	if err := slot.Verify(invocation(holder+"-other", table, lockName), server.Client); errorName(err) != slot.ErrorNotHolder {
		t.Errorf("another execution: %v, want %s", err, slot.ErrorNotHolder)
	}
	if err := slot.Verify(invocationWithLimit(holder+"-redriven", table, lockName, "2"), server.Client); err != nil {
		t.Errorf("another execution with a slot free: %v, want it to take the slot", err)
	}
	if err := slot.Verify(invocationWithLimit(holder+"-third", table, lockName, "2"), server.Client); errorName(err) != slot.ErrorNotHolder {
		t.Errorf("a third execution at the limit: %v, want %s", err, slot.ErrorNotHolder)
	}
	for name, ctx := range map[string]context.Context{
		"no Lambda context": context.Background(),
		"no client context": lambdacontext.NewContext(context.Background(), &lambdacontext.LambdaContext{}),
		"no lock name":      invocation(holder, table, ""),
		"no limit":          invocationWithLimit(holder, table, lockName, ""),
	} {
		if err := slot.Verify(ctx, server.Client); errorName(err) != slot.ErrorNoSlotContext {
			t.Errorf("%s: %v, want %s", name, err, slot.ErrorNoSlotContext)
		}
	}
	err = slot.Verify(invocation(holder, table+"-missing", lockName), server.Client)
	var missing *types.ResourceNotFoundException
	if !errors.As(err, &missing) {
		t.Errorf("a missing table: %v, want ResourceNotFoundException", err)
	}
}

// unreachable fails every call (the methods it does not define panic on its nil interface): a
// never-redriven execution must not need DynamoDB.
type unreachable struct{ lock.DynamoDBAPI }

func (unreachable) GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return nil, errors.New("unreachable: GetItem")
}

func (unreachable) UpdateItem(context.Context, *dynamodb.UpdateItemInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return nil, errors.New("unreachable: UpdateItem")
}

// TestVerifyNeverRedrivenReadsNothing: an execution with redrive count 0 reached its work
// through the acquire and holds its slot; Verify passes without a request.
func TestVerifyNeverRedrivenReadsNothing(t *testing.T) {
	ctx := lambdacontext.NewContext(context.Background(), &lambdacontext.LambdaContext{
		ClientContext: lambdacontext.ClientContext{Custom: map[string]string{
			machines.ClientContextKeyExecution: holder, machines.ClientContextKeyTable: "locks",
			machines.ClientContextKeyLock: "L", machines.ClientContextKeyLimit: "1", machines.ClientContextKeyRedriveCount: "0",
		}},
	})
	if err := slot.Verify(ctx, unreachable{}); err != nil {
		t.Errorf("Verify = %v, want nil without a request", err)
	}
}

// TestVerifySeveralLocks: the context of a semaphore with several locks names their number
// instead of a lock and a limit; a never-redriven execution passes without a request, a
// redriven one is Turnstile.NotHolder (its locks cannot be taken back in order), and a number
// that is not positive is Turnstile.NoSlotContext.
func TestVerifySeveralLocks(t *testing.T) {
	several := func(locks, redriveCount string) context.Context {
		return lambdacontext.NewContext(context.Background(), &lambdacontext.LambdaContext{
			ClientContext: lambdacontext.ClientContext{Custom: map[string]string{
				machines.ClientContextKeyExecution: holder, machines.ClientContextKeyTable: "locks",
				machines.ClientContextKeyLocks: locks, machines.ClientContextKeyRedriveCount: redriveCount,
			}},
		})
	}
	if err := slot.Verify(several("3", "0"), unreachable{}); err != nil {
		t.Errorf("never redriven: %v, want nil without a request", err)
	}
	if err := slot.Verify(several("3", "1"), unreachable{}); errorName(err) != slot.ErrorNotHolder {
		t.Errorf("redriven: %v, want %s", err, slot.ErrorNotHolder)
	}
	for _, locks := range []string{"0", "x", ""} {
		if err := slot.Verify(several(locks, "0"), unreachable{}); errorName(err) != slot.ErrorNoSlotContext {
			t.Errorf("%q locks: %v, want %s", locks, err, slot.ErrorNoSlotContext)
		}
	}
}
