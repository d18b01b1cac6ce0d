package lock_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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
	for i := range n {
		if ok, err := c.TryAcquire(t.Context(), lockName, execution(i), n); err != nil || !ok {
			t.Fatalf("acquire e%d: %v, %v", i, ok, err)
		}
	}
	for i := n; i < 2*n; i++ {
		if res := park(t, c, n, i, 0); !res.Queued {
			t.Fatalf("park e%d: %+v, want queued", i, res)
		}
	}
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
