package lock_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/turnstile-sfn/turnstile/lock"
)

// These tests show what the queue soak found in package lock, fixed since: a transaction whose
// reply is lost after the SDK's retries (applied or not, nobody knows) must be read back, not
// taken for "not applied", and a waiter's enqueue must not be retried blindly.

// errReplyLost is what a client sees when the reply of an applied request is lost (the SDK's
// retries exhausted): no API error code, so package lock classifies it as transient.
var errReplyLost = errors.New("read tcp: connection reset by peer")

// replyLostOnce applies the first TransactWriteItems that lose(in) selects and loses its reply;
// with evenRefused, whatever its answer was (applied or cancelled): the client learns nothing
// of it.
type replyLostOnce struct {
	*dynamodb.Client
	lose        func(in *dynamodb.TransactWriteItemsInput) bool
	evenRefused bool
	done        atomic.Bool
}

func (d *replyLostOnce) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	out, err := d.Client.TransactWriteItems(ctx, in, opts...)
	if (err == nil || d.evenRefused) && d.lose(in) && d.done.CompareAndSwap(false, true) {
		return nil, errReplyLost
	}
	return out, err
}

// wakes records the woken executions' tokens; every execution is RUNNING.
type wakes struct {
	mu     sync.Mutex
	tokens []string
}

func (w *wakes) SendTaskSuccess(_ context.Context, in *sfn.SendTaskSuccessInput, _ ...func(*sfn.Options)) (*sfn.SendTaskSuccessOutput, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.tokens = append(w.tokens, aws.ToString(in.TaskToken))
	return &sfn.SendTaskSuccessOutput{}, nil
}

// count returns how many times token was completed.
func (w *wakes) count(token string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, t := range w.tokens {
		if t == token {
			n++
		}
	}
	return n
}

func (w *wakes) DescribeExecution(_ context.Context, in *sfn.DescribeExecutionInput, _ ...func(*sfn.Options)) (*sfn.DescribeExecutionOutput, error) {
	return &sfn.DescribeExecutionOutput{ExecutionArn: in.ExecutionArn, Status: sfntypes.ExecutionStatusRunning}, nil
}

// puts reports whether a transaction creates a holder item (an acquire, an admission or a
// hand-off).
func puts(in *dynamodb.TransactWriteItemsInput) bool {
	return slices.ContainsFunc(in.TransactItems, func(i types.TransactWriteItem) bool { return i.Put != nil })
}

const (
	bugLock = "L"
	execX   = "arn:aws:states:us-east-1:123456789012:execution:Sem:x"
	execW   = "arn:aws:states:us-east-1:123456789012:execution:Sem:w"
)

func TestLockParkWhoseAcquireReplyIsLostNeitherHoldsAndWaitsNorQueues(t *testing.T) {
	server.SkipIfMissing(t)
	table := server.CreateLockTable(t)
	ddb := &replyLostOnce{Client: server.Client, lose: puts}
	locks, err := lock.New(table, ddb, &wakes{})
	if err != nil {
		t.Fatal(err)
	}
	ticket, err := locks.DrawTicket(t.Context(), bugLock)
	if err != nil {
		t.Fatal(err)
	}
	res, err := locks.Park(t.Context(), lock.ParkRequest{Lock: bugLock, Limit: 1, Execution: execX, Ticket: ticket, Token: "token-x"})
	if err != nil {
		t.Fatalf("Park: %v", err)
	}
	st, err := locks.Read(t.Context(), bugLock)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Check(1); err != nil || !res.Admitted || len(st.Waiters) != 0 {
		t.Errorf("Park on a free lock whose acquire's reply was lost = %+v, state %+v (%v); want admitted, holding, not waiting", res, st, err)
	}
}

func TestLockReleaseWhoseHandOffReplyIsLostReportsAndWakes(t *testing.T) {
	server.SkipIfMissing(t)
	table := server.CreateLockTable(t)
	woken := &wakes{}
	direct, err := lock.New(table, server.Client, woken)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []string{execX, execW} {
		ticket, err := direct.DrawTicket(t.Context(), bugLock)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := direct.Park(t.Context(), lock.ParkRequest{Lock: bugLock, Limit: 1, Execution: e, Ticket: ticket, Token: "token-" + e}); err != nil {
			t.Fatal(err)
		}
	}
	ddb := &replyLostOnce{Client: server.Client, lose: puts}
	locks, err := lock.New(table, ddb, woken)
	if err != nil {
		t.Fatal(err)
	}
	res, err := locks.Release(t.Context(), bugLock, execX, 1)
	if err != nil {
		t.Fatalf("Release: %v", err)
	}
	if !res.Released || !slices.Equal(res.HandedTo, []string{execW}) {
		t.Errorf("Release whose hand-off's reply was lost = %+v, want released and handed to %s", res, execW)
	}
	if !slices.Contains(woken.tokens, "token-"+execW) {
		t.Errorf("woken tokens = %v: the waiter handed the slot was never woken", woken.tokens)
	}
}

// retriedPut re-sends the first PutItem of a waiter item after running between() in between:
// the SDK's retry of a put whose reply was lost, landing after another client's operation.
type retriedPut struct {
	*dynamodb.Client
	between func(ctx context.Context) error
	done    atomic.Bool
}

func (d *retriedPut) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	out, err := d.Client.PutItem(ctx, in, opts...)
	if err != nil || !d.done.CompareAndSwap(false, true) {
		return out, err
	}
	if err := d.between(ctx); err != nil {
		return nil, err
	}
	var o dynamodb.Options
	for _, opt := range opts {
		opt(&o)
	}
	if o.RetryMaxAttempts == 1 {
		return nil, errReplyLost // the caller asked for no retries: it sees the lost reply
	}
	return d.Client.PutItem(ctx, in, opts...)
}

// The queue soak's finding: a waiter's enqueue PutItem whose reply is lost is retried by the SDK
// with the same request; when a release handed the waiter the slot in between (deleting its
// waiter item), the retry's condition (attribute_not_exists(Entry) OR execution = :execution)
// passes and puts the waiter item back: the execution holds and waits at once, and its own
// release then hands its slot to itself (a ValidationException: two operations on one item).
func TestLockRetriedEnqueueDoesNotResurrectAnAdmittedWaiter(t *testing.T) {
	server.SkipIfMissing(t)
	table := server.CreateLockTable(t)
	woken := &wakes{}
	other, err := lock.New(table, server.Client, woken)
	if err != nil {
		t.Fatal(err)
	}
	ticketX, err := other.DrawTicket(t.Context(), bugLock)
	if err != nil {
		t.Fatal(err)
	}
	ticketW, err := other.DrawTicket(t.Context(), bugLock)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Park(t.Context(), lock.ParkRequest{Lock: bugLock, Limit: 1, Execution: execX, Ticket: ticketX, Token: "token-x"}); err != nil {
		t.Fatal(err)
	}
	ddb := &retriedPut{Client: server.Client, between: func(ctx context.Context) error {
		_, err := other.Release(ctx, bugLock, execX, 1) // hands the slot to w, the head
		return err
	}}
	locks, err := lock.New(table, ddb, woken)
	if err != nil {
		t.Fatal(err)
	}
	res, err := locks.Park(t.Context(), lock.ParkRequest{Lock: bugLock, Limit: 1, Execution: execW, Ticket: ticketW, Token: "token-w"})
	if err != nil {
		t.Fatalf("Park: %v", err)
	}
	st, err := locks.Read(t.Context(), bugLock)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Check(1); err != nil {
		t.Errorf("after a retried enqueue: %v; state %+v", err, st)
	}
	// The queue soak's second finding: w queued and the release admitted it; a Park that
	// reported Admitted (and woke w itself) claimed a free slot nobody had.
	if !res.Queued || res.Admitted {
		t.Errorf("Park whose put landed before a release handed it the slot = %+v, want queued", res)
	}
	if got := woken.count("token-w"); got != 1 {
		t.Errorf("w's token was completed %d times, want once (by the release)", got)
	}
}

// queryHook runs between the Queries of a Read: before the n-th Query (counting from 0), when
// a hook is set for it.
type queryHook struct {
	*dynamodb.Client
	n     int
	hooks map[int]func(ctx context.Context) error
}

func (d *queryHook) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	hook := d.hooks[d.n]
	d.n++
	if hook != nil {
		if err := hook(ctx); err != nil {
			return nil, err
		}
	}
	return d.Client.Query(ctx, in, opts...)
}

// The Poll soak's finding: an execution that takes a slot after Read's first reading of the
// holders and gives it back before the second leaves the holders equal, while the counter read
// in between counted it: a snapshot no moment of the lock had (counter 2, one holder).
func TestLockReadIsNotTornByAHolderInAndOut(t *testing.T) {
	server.SkipIfMissing(t)
	table := server.CreateLockTable(t)
	other, err := lock.New(table, server.Client, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := other.TryAcquire(t.Context(), bugLock, execW, 2); err != nil || !ok {
		t.Fatalf("acquire w: %v, %v", ok, err)
	}
	ddb := &queryHook{Client: server.Client, hooks: map[int]func(context.Context) error{
		1: func(ctx context.Context) error { // after the first reading of the holders
			_, err := other.TryAcquire(ctx, bugLock, execX, 2)
			return err
		},
		2: func(ctx context.Context) error { // after the counter's reading
			_, err := other.Release(ctx, bugLock, execX, 2)
			return err
		},
	}}
	reader, err := lock.New(table, ddb, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := reader.Read(t.Context(), bugLock)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Check(2); err != nil || st.Count != 1 {
		t.Errorf("Read across a holder in and out = %+v (%v), want count 1 and holder w", st, err)
	}
}

// handOffLostThen applies the first hand-off (a transaction that deletes a holder item and puts
// another), runs then, and loses the hand-off's reply.
type handOffLostThen struct {
	*dynamodb.Client
	then func(ctx context.Context) error
	done atomic.Bool
}

func (d *handOffLostThen) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	out, err := d.Client.TransactWriteItems(ctx, in, opts...)
	if err == nil && puts(in) && len(in.TransactItems) == 3 && in.TransactItems[0].Delete != nil && d.done.CompareAndSwap(false, true) {
		if err := d.then(ctx); err != nil {
			return nil, err
		}
		return nil, errReplyLost
	}
	return out, err
}

// The queue soak's finding at 20 % of replies lost: a hand-off whose reply is lost, whose waiter
// then leaves (its acquire timed out) and gives the slot on before the releaser reads back. The
// waiter holds no slot from the releaser and the releaser none: the read-back cannot tell whether
// the hand-off was applied. The release must not report that it held nothing (a slot would have
// moved with no operation giving it); it ends without an answer, and its retry finds nothing.
func TestLockHandOffWhoseWaiterLeftBeforeTheReadBackEndsWithoutAnAnswer(t *testing.T) {
	server.SkipIfMissing(t)
	table := server.CreateLockTable(t)
	woken := &wakes{}
	other, err := lock.New(table, server.Client, woken)
	if err != nil {
		t.Fatal(err)
	}
	ticketX, err := other.DrawTicket(t.Context(), bugLock)
	if err != nil {
		t.Fatal(err)
	}
	ticketW, err := other.DrawTicket(t.Context(), bugLock)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := other.Park(t.Context(), lock.ParkRequest{Lock: bugLock, Limit: 1, Execution: execX, Ticket: ticketX, Token: "token-x"}); err != nil || !res.Admitted {
		t.Fatalf("park x: %+v, %v", res, err)
	}
	if res, err := other.Park(t.Context(), lock.ParkRequest{Lock: bugLock, Limit: 1, Execution: execW, Ticket: ticketW, Token: "token-w"}); err != nil || !res.Queued {
		t.Fatalf("park w: %+v, %v", res, err)
	}
	ddb := &handOffLostThen{Client: server.Client, then: func(ctx context.Context) error {
		_, err := other.Leave(ctx, bugLock, execW, ticketW, 1) // w's wait ended: it leaves, holding the slot, and gives it back
		return err
	}}
	locks, err := lock.New(table, ddb, woken)
	if err != nil {
		t.Fatal(err)
	}
	res, err := locks.Release(t.Context(), bugLock, execX, 1)
	if !errors.Is(err, lock.ErrBusy) {
		t.Fatalf("Release whose hand-off went to a waiter that left before the read-back = %+v, %v; want ErrBusy (no answer)", res, err)
	}
	if res, err := locks.Release(t.Context(), bugLock, execX, 1); err != nil || res.Released {
		t.Errorf("the release's retry = %+v, %v; want nothing held", res, err)
	}
	st, err := locks.Read(t.Context(), bugLock)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Check(1); err != nil || st.Count != 0 || len(st.Holders)+len(st.Waiters) != 0 {
		t.Errorf("after: %+v (%v), want an empty lock", st, err)
	}
}

// givesBack reports whether a transaction gives a slot back to the lock: it deletes a holder
// item and puts none.
func givesBack(in *dynamodb.TransactWriteItemsInput) bool {
	return !puts(in) && slices.ContainsFunc(in.TransactItems, func(i types.TransactWriteItem) bool { return i.Delete != nil })
}

// The queue soak's finding at 30 % of replies lost: a release whose earlier try handed the slot
// on without an answer (it ended with ErrBusy) is tried again; the retry finds nobody waiting and
// sends the give-back, which DynamoDB refuses (the holder item is gone), and that answer is lost
// too. The holder item being gone no more says that this try released: the retry must report
// nothing held, as the model of the lock (and the reconciler's figures) expect; a give-back that
// was applied and whose answer was lost still reports the release.
func TestLockReleaseWhoseGiveBackAnswerIsLostSaysWhetherItReleased(t *testing.T) {
	server.SkipIfMissing(t)
	for _, tt := range []struct {
		name         string
		releasedBy   bool // an earlier try released the slot already
		wantReleased bool
	}{
		{name: "applied by this try", wantReleased: true},
		{name: "released by an earlier try", releasedBy: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			direct, f := newClient(t)
			if res := park(t, direct, 1, 1, 1); !res.Admitted {
				t.Fatalf("park e1: %+v", res)
			}
			if tt.releasedBy {
				if res, err := direct.Release(t.Context(), lockName, execution(1), 1); err != nil || !res.Released {
					t.Fatalf("the earlier try: %+v, %v", res, err)
				}
			}
			locks, err := lock.New(direct.Table(), &replyLostOnce{Client: server.Client, lose: givesBack, evenRefused: true}, f)
			if err != nil {
				t.Fatal(err)
			}
			res, err := locks.Release(t.Context(), lockName, execution(1), 1)
			if err != nil || res.Released != tt.wantReleased || len(res.HandedTo) != 0 {
				t.Errorf("Release whose give-back's answer was lost = %+v, %v; want released %v, handed to nobody", res, err, tt.wantReleased)
			}
			if st := read(t, direct, 1); st.Count != 0 || len(st.Holders) != 0 {
				t.Errorf("after: %+v, want an empty lock", st)
			}
		})
	}
}
