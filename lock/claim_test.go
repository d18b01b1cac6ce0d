package lock_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/turnstile-sfn/turnstile/lock"
)

// lostWrites counts the write units a client pays for writes that change nothing: one per
// single-item write whose condition failed and one per item of a cancelled transaction
// (DynamoDB bills both so for items under 1 KB, as the lock's are). beforeClaim, when set, runs
// once before the client's first claim write; loseClaim and loseDrop lose the reply of the
// first applied claim write and claimed-item delete.
type lostWrites struct {
	*dynamodb.Client
	units                 atomic.Int64
	beforeClaim           func(ctx context.Context) error
	loseClaim, loseDrop   bool
	claimed, ran, dropped atomic.Bool
}

func isClaim(in *dynamodb.UpdateItemInput) bool {
	return strings.HasPrefix(aws.ToString(in.UpdateExpression), "SET #claim")
}

func (d *lostWrites) failed(err error) {
	if _, ok := errors.AsType[*types.ConditionalCheckFailedException](err); ok {
		d.units.Add(1)
	}
}

func (d *lostWrites) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	if isClaim(in) && d.beforeClaim != nil && d.ran.CompareAndSwap(false, true) {
		if err := d.beforeClaim(ctx); err != nil {
			return nil, err
		}
	}
	out, err := d.Client.UpdateItem(ctx, in, opts...)
	d.failed(err)
	if err == nil && isClaim(in) && d.loseClaim && d.claimed.CompareAndSwap(false, true) {
		return nil, errReplyLost
	}
	return out, err
}

func (d *lostWrites) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	out, err := d.Client.DeleteItem(ctx, in, opts...)
	d.failed(err)
	if err == nil && d.loseDrop && aws.ToString(in.ConditionExpression) == "#claim = :claim" && d.dropped.CompareAndSwap(false, true) {
		return nil, errReplyLost
	}
	return out, err
}

func (d *lostWrites) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	out, err := d.Client.PutItem(ctx, in, opts...)
	d.failed(err)
	return out, err
}

func (d *lostWrites) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	out, err := d.Client.TransactWriteItems(ctx, in, opts...)
	if _, cancelled := errors.AsType[*types.TransactionCanceledException](err); cancelled {
		d.units.Add(int64(len(in.TransactItems)))
	}
	return out, err
}

// claimFor writes a claim by claimer on the waiter item of ticket, as a release's claim does.
func claimFor(t *testing.T, c *lock.Client, ticket int64, claimer string) {
	t.Helper()
	_, err := server.Client.UpdateItem(t.Context(), &dynamodb.UpdateItemInput{
		TableName: aws.String(c.Table()), Key: lock.Key(lockName, lock.WaiterEntry(ticket)),
		UpdateExpression:          aws.String("SET #claim = :claimer"),
		ExpressionAttributeNames:  map[string]string{"#claim": lock.AttributeClaim},
		ExpressionAttributeValues: map[string]types.AttributeValue{":claimer": &types.AttributeValueMemberS{Value: claimer}},
	})
	if err != nil {
		t.Fatal(err)
	}
}

// waiterItems counts the lock's waiter items as stored, left-over ones included.
func waiterItems(t *testing.T, c *lock.Client) int {
	t.Helper()
	out, err := server.Client.Query(t.Context(), &dynamodb.QueryInput{
		TableName: aws.String(c.Table()), ConsistentRead: aws.Bool(true),
		KeyConditionExpression:    aws.String("#lock = :lock AND begins_with(#entry, :w)"),
		ExpressionAttributeNames:  map[string]string{"#lock": lock.AttributeLockName, "#entry": lock.AttributeEntry},
		ExpressionAttributeValues: map[string]types.AttributeValue{":lock": &types.AttributeValueMemberS{Value: lockName}, ":w": &types.AttributeValueMemberS{Value: lock.WaiterPrefix}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return len(out.Items)
}

// claimSetUp fills a lock of limit with holders e0.. and queues the waiters e<limit>.. behind
// them (waiting of them); it returns the client, its Step Functions and the waiters' tickets.
func claimSetUp(t *testing.T, ddb lock.DynamoDBAPI, limit, waiting int) (*lock.Client, *fakeSFN, []int64) {
	t.Helper()
	server.SkipIfMissing(t)
	f := newFakeSFN()
	c, err := lock.New(server.CreateLockTable(t), ddb, f, lock.WithClaimHolders(1))
	if err != nil {
		t.Fatal(err)
	}
	for i := range limit {
		if res := park(t, c, limit, i, 0); !res.Admitted {
			t.Fatalf("park e%d: %+v, want admitted", i, res)
		}
	}
	for i := limit; i < limit+waiting; i++ {
		if res := park(t, c, limit, i, 0); !res.Queued {
			t.Fatalf("park e%d: %+v, want queued", i, res)
		}
	}
	var tickets []int64
	for _, w := range read(t, c, limit).Waiters {
		tickets = append(tickets, w.Ticket)
	}
	return c, f, tickets
}

// TestClaimLostRaceCostsOneWriteUnit: two releases reach for the one waiter; the one whose
// claim loses pays one write unit (not a cancelled three-item transaction) and gives its slot
// back, and the winner hands its slot on.
func TestClaimLostRaceCostsOneWriteUnit(t *testing.T) {
	ddb := &lostWrites{Client: server.Client}
	c, f, tickets := claimSetUp(t, ddb, 2, 1)
	// e1's release claims e2 first, between e0's read and e0's claim.
	ddb.beforeClaim = func(context.Context) error { claimFor(t, c, tickets[0], execution(1)); return nil }
	ddb.units.Store(0)
	if res, err := c.Release(t.Context(), lockName, execution(0), 2); err != nil || !res.Released || len(res.HandedTo) != 0 {
		t.Fatalf("the losing release = %+v, %v; want released, handed to nobody", res, err)
	}
	if got := ddb.units.Load(); got != 1 {
		t.Errorf("the lost race cost %d write units for nothing, want 1", got)
	}
	if res, err := c.Release(t.Context(), lockName, execution(1), 2); err != nil || !slices.Equal(res.HandedTo, []string{execution(2)}) {
		t.Fatalf("the claimer's release = %+v, %v; want handed to e2", res, err)
	}
	st := read(t, c, 2)
	if !slices.Equal(holders(st), []string{execution(2)}) || waiterItems(t, c) != 0 {
		t.Errorf("after: holders %v, %d waiter items; want e2 alone, none", holders(st), waiterItems(t, c))
	}
	if w := f.woken[token(execution(2), 0)]; w.GrantedBy != execution(1) {
		t.Errorf("e2 woken by %+v, want granted by e1", w)
	}
}

// TestClaimDeadIsReclaimed: a claim whose claimer holds nothing (it gave its slot elsewhere, or
// its execution ended) and whose waiter holds nothing is a waiter again: the next release
// claims it over the dead claim and hands it its slot.
func TestClaimDeadIsReclaimed(t *testing.T) {
	c, f, tickets := claimSetUp(t, server.Client, 1, 1)
	claimFor(t, c, tickets[0], execution(9)) // e9 holds nothing
	if st := read(t, c, 1); len(st.Waiters) != 1 || st.Waiters[0].ClaimedBy != execution(9) {
		t.Fatalf("before: %+v, want e1 waiting under e9's claim", st)
	}
	if res, err := c.Release(t.Context(), lockName, execution(0), 1); err != nil || !slices.Equal(res.HandedTo, []string{execution(1)}) {
		t.Fatalf("Release = %+v, %v; want handed to e1", res, err)
	}
	st := read(t, c, 1)
	if !slices.Equal(holders(st), []string{execution(1)}) || waiterItems(t, c) != 0 {
		t.Errorf("after: holders %v, %d waiter items; want e1 alone, none", holders(st), waiterItems(t, c))
	}
	if w := f.woken[token(execution(1), 0)]; w.GrantedBy != execution(0) {
		t.Errorf("e1 woken by %+v, want granted by e0", w)
	}
}

// TestClaimRetriedReleaseFindsItsOwnClaim: a release whose claim, hand-off or delete of the
// claimed item loses its reply is retried (or reads back) and finishes: the waiter holds the
// slot once, is woken, and no waiter item is left over.
func TestClaimRetriedReleaseFindsItsOwnClaim(t *testing.T) {
	for _, lost := range []string{"claim", "hand-off", "delete"} {
		t.Run(lost, func(t *testing.T) {
			ddb := &lostWrites{Client: server.Client, loseClaim: lost == "claim", loseDrop: lost == "delete"}
			var d lock.DynamoDBAPI = ddb
			if lost == "hand-off" {
				d = &replyLostOnce{Client: server.Client, lose: puts}
			}
			c, f, _ := claimSetUp(t, d, 1, 2)
			res, err := c.Release(t.Context(), lockName, execution(0), 1)
			if err != nil {
				if !errors.Is(err, lock.ErrBusy) {
					t.Fatalf("Release: %v", err)
				}
				// No answer: the state machine retries the release.
				if res, err = c.Release(t.Context(), lockName, execution(0), 1); err != nil {
					t.Fatalf("the retried Release: %v", err)
				}
			}
			if !res.Released || !slices.Equal(res.HandedTo, []string{execution(1)}) {
				t.Errorf("Release = %+v, want released and handed to e1", res)
			}
			st := read(t, c, 1)
			if !slices.Equal(holders(st), []string{execution(1)}) || !slices.Equal(waiters(st), []string{execution(2)}) || waiterItems(t, c) != 1 {
				t.Errorf("after: %+v (%d waiter items); want e1 holding, e2 waiting, one item", st, waiterItems(t, c))
			}
			if st.Waiters[0].ClaimedBy != "" {
				t.Errorf("e2 is claimed by %s, want unclaimed", st.Waiters[0].ClaimedBy)
			}
			if _, ok := f.woken[token(execution(1), 0)]; !ok {
				t.Errorf("e1 was not woken")
			}
		})
	}
}

// TestClaimAdmitAndDrainPassALiveClaim: a waiter under a live claim (its claimer holds and is
// handing it its slot) is passed over by an admission, which takes the next waiter, and left
// alone by a drain, which drains the others; the claimer then hands its slot to it.
func TestClaimAdmitAndDrainPassALiveClaim(t *testing.T) {
	c, f, tickets := claimSetUp(t, server.Client, 2, 3) // e0, e1 hold; e2, e3, e4 wait
	claimFor(t, c, tickets[0], execution(1))
	writeLimit(t, c, 3)
	if res, err := c.Admit(t.Context(), lockName); err != nil || !slices.Equal(res.Admitted, []string{execution(3)}) {
		t.Fatalf("Admit = %+v, %v; want e3 admitted past the claimed e2", res, err)
	}
	if res, err := c.Drain(t.Context(), lockName, "test"); err != nil || !slices.Equal(res.Drained, []string{execution(4)}) {
		t.Fatalf("Drain = %+v, %v; want e4 drained, the claimed e2 left alone", res, err)
	}
	if res, err := c.Release(t.Context(), lockName, execution(1), 3); err != nil || !slices.Equal(res.HandedTo, []string{execution(2)}) {
		t.Fatalf("the claimer's release = %+v, %v; want handed to e2", res, err)
	}
	st := read(t, c, 3)
	if want := []string{execution(0), execution(2), execution(3)}; !sameSet(holders(st), want) || waiterItems(t, c) != 0 {
		t.Errorf("after: holders %v, %d waiter items; want %v, none", holders(st), waiterItems(t, c), want)
	}
	if got := f.failed[token(execution(4), 0)]; !strings.HasPrefix(got, lock.ErrorDrained) {
		t.Errorf("e4's task failed with %q, want %s", got, lock.ErrorDrained)
	}
}

// TestClaimLeaveWaitsForALiveClaim: a waiter that leaves while a release's claim hands it a
// slot waits for the hand-off, then gives the slot on: nothing is kept or left over.
func TestClaimLeaveWaitsForALiveClaim(t *testing.T) {
	c, _, tickets := claimSetUp(t, server.Client, 1, 1)
	claimFor(t, c, tickets[0], execution(0))
	done := make(chan error, 1)
	go func() {
		_, err := c.Leave(context.WithoutCancel(t.Context()), lockName, execution(1), tickets[0], 1)
		done <- err
	}()
	if res, err := c.Release(t.Context(), lockName, execution(0), 1); err != nil || !res.Released {
		t.Fatalf("the claimer's release = %+v, %v; want released", res, err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Leave: %v", err)
	}
	st := read(t, c, 1)
	if len(st.Holders) != 0 || st.Count != 0 || waiterItems(t, c) != 0 {
		t.Errorf("after: %+v, %d waiter items; want an empty lock", st, waiterItems(t, c))
	}
}
