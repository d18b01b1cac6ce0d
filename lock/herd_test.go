package lock_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/turnstile-sfn/turnstile/lock"
)

// cancelCounter counts the items of the cancelled transactions: DynamoDB bills a cancelled
// transaction one write unit per item (of at most 1 KB, as the lock's items are).
type cancelCounter struct {
	*dynamodb.Client
	items atomic.Int64
}

func (d *cancelCounter) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	out, err := d.Client.TransactWriteItems(ctx, in, opts...)
	if _, cancelled := errors.AsType[*types.TransactionCanceledException](err); cancelled {
		d.items.Add(int64(len(in.TransactItems)))
	}
	return out, err
}

// TestReleaseHerd releases a full lock's holders all at once, a waiter behind each (work of
// equal length ending at one moment): every waiter is handed a slot in ticket order, and the
// releases that lose the head of the line to each other back off long enough that the
// cancelled transactions stay bounded, one or two per release (without the herd's window, each
// release lost several times: about 1,500 cancelled write units here).
func TestReleaseHerd(t *testing.T) {
	const n = 100
	ddb := &cancelCounter{Client: server.Client}
	f := newFakeSFN()
	// The holders' work took an hour (the clock moves on an hour once they hold): a release
	// waits at most an eighth of that.
	var later atomic.Int64
	now := func() time.Time { return time.Now().Add(time.Duration(later.Load())) }
	c, err := lock.New(server.CreateLockTable(t), ddb, f, lock.WithNow(now))
	if err != nil {
		t.Fatal(err)
	}
	fillWithWaiters(t, c, n, n)
	queue := waiters(read(t, c, n))
	ddb.items.Store(0)
	later.Store(int64(time.Hour))

	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			if _, err := c.Release(t.Context(), lockName, execution(i), n); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	st := read(t, c, n)
	if st.Count != n || len(st.Waiters) != 0 {
		t.Fatalf("after the herd: count %d, %d waiters; want %d, 0", st.Count, len(st.Waiters), n)
	}
	if got := holders(st); !sameSet(got, queue) {
		t.Fatalf("holders %v, want the waiters %v", got, queue)
	}
	// Strict first in, first out: the grants' times (taken after the read that found the
	// waiter at the head) follow the tickets.
	f.mu.Lock()
	since := make([]string, 0, n)
	for i := n; i < 2*n; i++ {
		since = append(since, f.woken[token(execution(i), 0)].HeldSince)
	}
	f.mu.Unlock()
	if !slices.IsSorted(since) {
		t.Errorf("grants out of ticket order: %v", since)
	}
	// A cancelled hand-off is 3 write units; the bound is two losses per release.
	if got, bound := ddb.items.Load(), int64(2*3*n); got > bound {
		t.Errorf("the herd cancelled transactions of %d write units, want at most %d", got, bound)
	} else {
		t.Logf("the herd cancelled transactions of %d write units (bound %d)", got, bound)
	}
}

// sameSet reports whether a and b hold the same strings.
func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// staleOnce, once armed, answers one strongly consistent Query of a lock's head with a counter
// item a holder behind (another execution takes the last slot just after the read), and
// records the operations sent after it.
type staleOnce struct {
	*dynamodb.Client
	armed atomic.Bool
	mu    sync.Mutex
	after []string
}

func (d *staleOnce) record(op string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.after != nil {
		d.after = append(d.after, op)
	}
}

func (d *staleOnce) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	d.record("Query")
	out, err := d.Client.Query(ctx, in, opts...)
	if err != nil || !d.armed.CompareAndSwap(true, false) {
		return out, err
	}
	for _, item := range out.Items {
		if e, _ := item[lock.AttributeEntry].(*types.AttributeValueMemberS); e != nil && e.Value == lock.EntryLock {
			n, _ := strconv.Atoi(item[lock.AttributeCount].(*types.AttributeValueMemberN).Value)
			item[lock.AttributeCount] = &types.AttributeValueMemberN{Value: strconv.Itoa(n - 1)}
		}
	}
	d.mu.Lock()
	d.after = []string{}
	d.mu.Unlock()
	return out, err
}

func (d *staleOnce) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	d.record("GetItem")
	return d.Client.GetItem(ctx, in, opts...)
}

func (d *staleOnce) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	d.record("PutItem")
	return d.Client.PutItem(ctx, in, opts...)
}

func (d *staleOnce) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	out, err := d.Client.TransactWriteItems(ctx, in, opts...)
	if _, cancelled := errors.AsType[*types.TransactionCanceledException](err); cancelled {
		d.record("cancelled")
	} else {
		d.record("TransactWriteItems")
	}
	return out, err
}

// TestParkQueuesAtOnceWhenItLosesTheLastSlot: a park whose read found a free slot that another
// execution takes before its acquire lands queues straight after the refused acquire (a burst
// at the limit: each such park used to read the counter again first), and keeps the lock's
// invariant.
func TestParkQueuesAtOnceWhenItLosesTheLastSlot(t *testing.T) {
	const limit = 3
	ddb := &staleOnce{Client: server.Client}
	c, err := lock.New(server.CreateLockTable(t), ddb, newFakeSFN())
	if err != nil {
		t.Fatal(err)
	}
	for i := range limit {
		if res := park(t, c, limit, i, 0); !res.Admitted {
			t.Fatalf("park e%d: %+v, want admitted", i, res)
		}
	}
	ddb.armed.Store(true)
	if res := park(t, c, limit, limit, 0); !res.Queued {
		t.Fatalf("park e%d on a full lock: %+v, want queued", limit, res)
	}
	ddb.mu.Lock()
	after := ddb.after
	ddb.mu.Unlock()
	if want := []string{"cancelled", "PutItem"}; len(after) < 2 || !slices.Equal(after[:2], want) {
		t.Errorf("after the read that found a free slot, the park sent %v; want %v first (the refused acquire, then the waiter item)", after, want)
	}
	if st := read(t, c, limit); st.Count != limit || len(st.Waiters) != 1 {
		t.Errorf("after the park: count %d, %d waiters; want %d, 1", st.Count, len(st.Waiters), limit)
	}
}

// handOffFirst makes, once armed, another holder's release hand the head of the line on just
// before the next hand-off transaction goes out: that hand-off loses the waiter it read.
type handOffFirst struct {
	*dynamodb.Client
	armed  atomic.Bool
	before func()
}

func (d *handOffFirst) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	if len(in.TransactItems) == 3 && d.armed.CompareAndSwap(true, false) {
		d.before()
	}
	return d.Client.TransactWriteItems(ctx, in, opts...)
}

// herdUntil reads the lock's herd mark (0 without one).
func herdUntil(t *testing.T, table string) int64 {
	t.Helper()
	out, err := server.Client.GetItem(t.Context(), &dynamodb.GetItemInput{TableName: aws.String(table), Key: lock.Key(lockName, lock.EntryLock), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	n, ok := out.Item[lock.AttributeHerdUntil].(*types.AttributeValueMemberN)
	if !ok {
		return 0
	}
	v, _ := strconv.ParseInt(n.Value, 10, 64)
	return v
}

// fillWithWaiters gives holders executions a slot each of a lock of that limit and queues
// waiters more behind them.
func fillWithWaiters(t *testing.T, c *lock.Client, holders, waiters int) {
	t.Helper()
	for i := range holders {
		if ok, err := c.TryAcquire(t.Context(), lockName, execution(i), holders); err != nil || !ok {
			t.Fatalf("acquire e%d: %v, %v", i, ok, err)
		}
	}
	for i := holders; i < holders+waiters; i++ {
		if res := park(t, c, holders, i, 0); !res.Queued {
			t.Fatalf("park e%d: %+v, want queued", i, res)
		}
	}
}

// TestHerdMark: a release of a lock of HerdHolders holders or more that loses the head of the
// line to another marks the lock; a release whose first read finds the mark waits a share of
// the herd's window before it reaches for the head; below HerdHolders neither happens.
func TestHerdMark(t *testing.T) {
	for _, tc := range []struct {
		name string
		held time.Duration // how long the holders held when they release
		mark bool
	}{
		{"a lost hand-off marks a lock whose slots were held long", time.Hour, true},
		{"a herd whose window the hold cuts short is not marked", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = lock.HerdHolders
			// Every reading of the clock moves it on 10 ms, so that a round trip takes several
			// (a herd of n then needs a window wider than the usual backoff); the holders'
			// work takes tc.held.
			var ticks, later atomic.Int64
			base := time.Now()
			now := func() time.Time {
				return base.Add(time.Duration(ticks.Add(1))*10*time.Millisecond + time.Duration(later.Load()))
			}
			ddb := &handOffFirst{Client: server.Client}
			table := server.CreateLockTable(t)
			c, err := lock.New(table, ddb, newFakeSFN(), lock.WithNow(now))
			if err != nil {
				t.Fatal(err)
			}
			fillWithWaiters(t, c, n, 2)
			other, err := lock.New(table, server.Client, newFakeSFN())
			if err != nil {
				t.Fatal(err)
			}
			ddb.before = func() {
				if _, err := other.Release(t.Context(), lockName, execution(1), n); err != nil {
					t.Error(err)
				}
			}
			later.Store(int64(tc.held))
			ddb.armed.Store(true)
			res, err := c.Release(t.Context(), lockName, execution(0), n)
			if err != nil || !res.Released || len(res.HandedTo) != 1 || res.HandedTo[0] != execution(n+1) {
				t.Fatalf("release e0 after losing e%d to e1's release: %+v, %v; want handed to e%d", n, res, err, n+1)
			}
			if ddb.armed.Load() {
				t.Fatal("no hand-off transaction went out: the test tested nothing")
			}
			if marked := herdUntil(t, table) != 0; marked != tc.mark {
				t.Errorf("herd mark after a lost hand-off: %v, want %v", marked, tc.mark)
			}
			read(t, c, n)
		})
	}
	for _, tc := range []struct {
		holders int
		spread  bool
	}{{lock.HerdHolders, true}, {lock.HerdHolders - 1, false}} {
		t.Run(fmt.Sprintf("a marked lock of %d holders", tc.holders), func(t *testing.T) {
			var slept []time.Duration
			sleep := func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }
			table := server.CreateLockTable(t)
			c, err := lock.New(table, server.Client, newFakeSFN(), lock.WithSleep(sleep))
			if err != nil {
				t.Fatal(err)
			}
			fillWithWaiters(t, c, tc.holders, 1)
			// The mark of a herd that lost a minute ago and goes on for another.
			_, err = server.Client.UpdateItem(t.Context(), &dynamodb.UpdateItemInput{
				TableName: aws.String(table), Key: lock.Key(lockName, lock.EntryLock),
				UpdateExpression:          aws.String("SET #herd = :until"),
				ExpressionAttributeNames:  map[string]string{"#herd": lock.AttributeHerdUntil},
				ExpressionAttributeValues: map[string]types.AttributeValue{":until": &types.AttributeValueMemberN{Value: strconv.FormatInt(time.Now().Add(time.Minute).UnixMilli(), 10)}},
			})
			if err != nil {
				t.Fatal(err)
			}
			res, err := c.Release(t.Context(), lockName, execution(0), tc.holders)
			if err != nil || len(res.HandedTo) != 1 {
				t.Fatalf("release e0: %+v, %v; want handed on", res, err)
			}
			if spread := len(slept) > 0; spread != tc.spread {
				t.Errorf("the release waited %v before it handed on; want a wait: %v", slept, tc.spread)
			}
			read(t, c, tc.holders)
		})
	}
}
