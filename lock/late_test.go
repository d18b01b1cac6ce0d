package lock_test

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/turnstile-sfn/turnstile/lock"
)

// These tests show what the queue soak found at 20 % of replies lost, fixed since: a grant
// (a hand-off or an admission) reads the head of the queue, and its transaction, delayed (the
// SDK retrying a request lost on its way), lands after an older waiter joined the queue late
// (its own requests were delayed) and said it waits. The grant must not pass that waiter over.

// beforeFirstGrant runs hook before it sends the first transaction that grants a waiter its
// slot (it deletes a waiter item), as a delayed request lands after whatever happened meanwhile.
type beforeFirstGrant struct {
	*dynamodb.Client
	hook func()
	done atomic.Bool
}

func (d *beforeFirstGrant) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	if grants(in) && d.done.CompareAndSwap(false, true) {
		d.hook()
	}
	return d.Client.TransactWriteItems(ctx, in, opts...)
}

// grants reports whether a transaction takes a waiter item out of the queue.
func grants(in *dynamodb.TransactWriteItemsInput) bool {
	return slices.ContainsFunc(in.TransactItems, func(i types.TransactWriteItem) bool {
		if i.Delete == nil {
			return false
		}
		entry, _ := i.Delete.Key[lock.AttributeEntry].(*types.AttributeValueMemberS)
		return entry != nil && strings.HasPrefix(entry.Value, lock.WaiterPrefix)
	})
}

// lateWaiter sets up a lock of limit 1 held by e1, with e3 waiting and e2, whose ticket is
// older than e3's, not queued yet; it returns a direct client, the fake Step Functions, and
// a function that parks e2 (it must say it waits).
func lateWaiter(t *testing.T) (*lock.Client, *fakeSFN, func()) {
	t.Helper()
	direct, f := newClient(t)
	if res := park(t, direct, 1, 1, 1); !res.Admitted {
		t.Fatalf("e1 on a free lock: %+v; want admitted", res)
	}
	older, err := direct.DrawTicket(t.Context(), lockName)
	if err != nil {
		t.Fatal(err)
	}
	if res := park(t, direct, 1, 3, 1); !res.Queued {
		t.Fatalf("e3 on a full lock: %+v; want queued", res)
	}
	parkOlder := func() {
		res, err := direct.Park(t.Context(), lock.ParkRequest{Lock: lockName, Limit: 1, Execution: execution(2), Ticket: older, Token: token(execution(2), 1)})
		if err != nil || !res.Queued {
			t.Errorf("e2 joining late: %+v, %v; want queued", res, err)
		}
	}
	return direct, f, parkOlder
}

func TestLockHandOffReadBeforeAnOlderWaiterJoinedDoesNotPassItOver(t *testing.T) {
	server.SkipIfMissing(t)
	direct, f, parkOlder := lateWaiter(t)
	delayed, err := lock.New(direct.Table(), &beforeFirstGrant{Client: server.Client, hook: parkOlder}, f)
	if err != nil {
		t.Fatal(err)
	}
	res, err := delayed.Release(t.Context(), lockName, execution(1), 1)
	if err != nil {
		t.Fatalf("Release: %v", err)
	}
	st := read(t, direct, 1)
	if want := []string{execution(2)}; !slices.Equal(res.HandedTo, want) || !slices.Equal(holders(st), want) || !slices.Equal(waiters(st), []string{execution(3)}) {
		t.Errorf("hand-off read before e2 joined: handed to %v, holders %v, waiters %v; want e2 holding, e3 waiting", res.HandedTo, holders(st), waiters(st))
	}
}

func TestLockAdmissionReadBeforeAnOlderWaiterJoinedDoesNotPassItOver(t *testing.T) {
	server.SkipIfMissing(t)
	direct, f, parkOlder := lateWaiter(t)
	writeLimit(t, direct, 2)
	// The admission reads a free slot and e3 at the head; before its transaction lands, the
	// slot is gone (the limit back at 1), e2 joins and waits, and the slot is back.
	delayed, err := lock.New(direct.Table(), &beforeFirstGrant{Client: server.Client, hook: func() {
		writeLimit(t, direct, 1)
		parkOlder()
		writeLimit(t, direct, 2)
	}}, f)
	if err != nil {
		t.Fatal(err)
	}
	res, err := delayed.Admit(t.Context(), lockName)
	if err != nil {
		t.Fatalf("Admit: %v", err)
	}
	st := read(t, direct, 2)
	if want := []string{execution(2)}; !slices.Equal(res.Admitted, want) || !slices.Equal(waiters(st), []string{execution(3)}) {
		t.Errorf("admission read before e2 joined: admitted %v, holders %v, waiters %v; want e2 admitted, e3 waiting", res.Admitted, holders(st), waiters(st))
	}
}
