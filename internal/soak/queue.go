package soak

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/turnstile-sfn/turnstile/emulator/ddblocal"
	"github.com/turnstile-sfn/turnstile/internal/semcheck"
	"github.com/turnstile-sfn/turnstile/lock"
)

// The SDK's retries of the queue soak's clients: as many as the SDK's default (as the hand-off
// function's client makes), so that at 20 % of the replies lost some operations still fail
// with lock.ErrBusy and the lock's handling of an unknown outcome is soaked too; short pauses
// and no retry quota, so that a lost reply costs milliseconds.
const (
	sdkAttempts   = retry.DefaultMaxAttempts
	sdkMaxBackoff = 20 * time.Millisecond
)

// maxTries bounds the tries of one lock operation that keeps failing after the SDK's retries
// (lock.ErrBusy), as the state machine's Retry does; then the soak fails.
const maxTries = 20

// tokenLength is the length of the soak's task tokens: as long as the ones AWS issues, so that
// waiter items have honest sizes.
const tokenLength = 684

// taskToken is the task token of execution's parked task.
func taskToken(execution string) string {
	t := "token|" + execution + "|"
	return t + strings.Repeat("x", max(0, tokenLength-len(t)))
}

// executionOfToken reads the execution back from a taskToken (no ARN holds a "|").
func executionOfToken(token string) string {
	rest, _ := strings.CutPrefix(token, "token|")
	execution, _, _ := strings.Cut(rest, "|")
	return execution
}

// wakeBoard is the soak's Step Functions for the waiters: it delivers a completed task token to
// the execution parked on it, once, as AWS completes a task once and answers TaskTimedOut to
// a second completion. It is safe for concurrent use.
type wakeBoard struct {
	mu    sync.Mutex
	woken map[string]chan struct{}
}

// register returns the channel execution is woken on.
func (b *wakeBoard) register(execution string) <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	ch := make(chan struct{}, 1)
	b.woken[execution] = ch
	return ch
}

// forget drops execution's channel: it ended.
func (b *wakeBoard) forget(execution string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.woken, execution)
}

// wake wakes execution if it still waits for it; first is false when its task was completed
// already.
func (b *wakeBoard) wake(execution string) (first bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ch, waiting := b.woken[execution]
	if !waiting {
		return false
	}
	delete(b.woken, execution)
	ch <- struct{}{}
	return true
}

// clientSFN is one client's Step Functions: it completes tokens on the wakeBoard (every
// execution is RUNNING, every token valid) and notes the waiters admitted to a free slot during
// the client's current operation (a wake-up whose granter is the waiter itself), which the
// history records as semcheck.Admit. A hand-off's wake-up names the releaser as granter and is
// in the release's result already.
type clientSFN struct {
	board *wakeBoard

	mu       sync.Mutex
	admitted []string
}

// SendTaskSuccess completes the token: it wakes its execution.
func (c *clientSFN) SendTaskSuccess(_ context.Context, in *sfn.SendTaskSuccessInput, _ ...func(*sfn.Options)) (*sfn.SendTaskSuccessOutput, error) {
	execution := executionOfToken(aws.ToString(in.TaskToken))
	var w lock.Wake
	if err := json.Unmarshal([]byte(aws.ToString(in.Output)), &w); err != nil {
		return nil, fmt.Errorf("soak: the output of a wake-up: %w", err)
	}
	if !c.board.wake(execution) {
		// As AWS answers a second completion of a token.
		return nil, &sfntypes.TaskTimedOut{Message: aws.String("Task Timed Out: 'Provided task does not exist anymore'")}
	}
	if w.GrantedBy == execution {
		c.mu.Lock()
		c.admitted = append(c.admitted, execution)
		c.mu.Unlock()
	}
	return &sfn.SendTaskSuccessOutput{}, nil
}

// DescribeExecution answers RUNNING: no execution of the queue soak dies.
func (c *clientSFN) DescribeExecution(_ context.Context, in *sfn.DescribeExecutionInput, _ ...func(*sfn.Options)) (*sfn.DescribeExecutionOutput, error) {
	return &sfn.DescribeExecutionOutput{ExecutionArn: in.ExecutionArn, Status: sfntypes.ExecutionStatusRunning}, nil
}

// takeAdmitted returns and forgets the waiters admitted since the last call.
func (c *clientSFN) takeAdmitted() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	admitted := c.admitted
	c.admitted = nil
	return admitted
}

// queueClient is one goroutine of the queue soak: a lock.Client through the fault proxy with
// its own Step Functions.
type queueClient struct {
	id     int
	locks  *lock.Client
	sfn    *clientSFN
	random *rand.Rand
}

// queueRun is one seed of the queue soak: executions park on the lock (drawing a ticket first),
// wait for their wake-up or leave, hold the slot and release it, through lock.Client and the
// fault proxy; every operation is recorded and each segment's history is checked against
// semcheck.QueueModel.
type queueRun struct {
	cfg      Config
	seed     uint64
	observer *observer
	board    *wakeBoard
	recorder atomic.Pointer[semcheck.Recorder] // the current segment's history

	leaves, stranded atomic.Int64
	weights          sync.Map // execution: its weight (Config.QueueWeights)
}

// queueOptions are the queue model's options: the weights, with Config.QueueWeights.
func (q *queueRun) queueOptions() []semcheck.QueueOption {
	if q.weighting() == nil {
		return nil
	}
	return []semcheck.QueueOption{semcheck.WithWeights(q.weighting())}
}

// weighting is the executions' weights with Config.QueueWeights (1 for an execution that has
// none), nil without.
func (q *queueRun) weighting() func(execution string) int {
	if q.cfg.QueueWeights == 0 {
		return nil
	}
	return func(e string) int {
		if w, ok := q.weights.Load(e); ok {
			return w.(int)
		}
		return 1
	}
}

// newQueueClients returns the seed's goroutines' clients of table through the proxy at
// proxyURL.
func (q *queueRun) newQueueClients(ctx context.Context, table, proxyURL string) ([]*queueClient, error) {
	viaProxy, err := ddblocal.NewClient(ctx, proxyURL, func(o *dynamodb.Options) {
		o.Retryer = retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = sdkAttempts
			o.MaxBackoff = sdkMaxBackoff
			o.Backoff = retry.NewExponentialJitterBackoff(sdkMaxBackoff)
			o.RateLimiter = ratelimit.None
		})
	})
	if err != nil {
		return nil, fmt.Errorf("soak: client: %w", err)
	}
	var ddb lock.DynamoDBAPI = viaProxy
	if q.cfg.QueueNewestFirst {
		ddb = newestFirst{viaProxy}
	}
	clients := make([]*queueClient, q.cfg.Goroutines)
	for i := range clients {
		s := &clientSFN{board: q.board}
		locks, err := lock.New(table, ddb, s)
		if err != nil {
			return nil, err
		}
		clients[i] = &queueClient{id: i, locks: locks, sfn: s, random: rand.New(rand.NewPCG(q.seed, uint64(i)))}
	}
	return clients, nil
}

// do runs one lock operation as the state machine's Retry does: a try that fails with
// lock.ErrBusy is recorded with its outcome unknown (abandoned) and tried again, again true.
// The waiters the try admitted to a free slot are recorded as semcheck.Admit since the try
// began; a park's own admission is its result. It returns the output, and the record of the
// operation's first try in this segment (an admission it led to may have begun then).
func (q *queueRun) do(c *queueClient, in semcheck.QueueInput, try func(again bool) (semcheck.QueueOutput, error)) (semcheck.QueueOutput, *semcheck.Call, error) {
	var err error
	// The first attempt in this segment's recorder: a wake seen later may come from any
	// attempt.
	var first *semcheck.Call
	var firstIn *semcheck.Recorder
	for attempt := range maxTries {
		recorder := q.recorder.Load()
		call := recorder.Begin(c.id, in)
		if firstIn != recorder {
			first, firstIn = call, recorder
		}
		var out semcheck.QueueOutput
		out, err = try(attempt > 0)
		if err == nil {
			call.End(out)
		} else {
			call.Abandon()
		}
		for _, e := range c.sfn.takeAdmitted() {
			if in.Kind == semcheck.QueuePark && e == in.Execution && err == nil && out.Outcome == semcheck.Admitted {
				continue
			}
			// An attempt whose reply was lost may have admitted e before this one began.
			recorder.BeginSince(c.id, semcheck.Admit(e), first).End(semcheck.QueueOutput{Outcome: semcheck.Done})
		}
		if err == nil {
			return out, first, nil
		}
		if !errors.Is(err, lock.ErrBusy) {
			return out, first, err
		}
	}
	return semcheck.QueueOutput{}, first, fmt.Errorf("soak: %v failed %d times: %w", in, maxTries, err)
}

// gaveUp is the output of a release or a leave.
func gaveUp(r lock.ReleaseResult) semcheck.QueueOutput {
	if !r.Released {
		return semcheck.QueueOutput{Outcome: semcheck.NothingHeld}
	}
	return semcheck.QueueOutput{Outcome: semcheck.GaveUp, HandedTo: r.HandedTo}
}

// drawTicket draws the execution's ticket, as the machine's Take Ticket does: a ticket whose
// reply was lost is simply never used.
func (q *queueRun) drawTicket(ctx context.Context, c *queueClient) (int64, error) {
	var err error
	for range maxTries {
		var ticket int64
		if ticket, err = c.locks.DrawTicket(ctx, lockName); err == nil {
			return ticket, nil
		}
		if !errors.Is(err, lock.ErrBusy) {
			return 0, err
		}
	}
	return 0, fmt.Errorf("soak: draw a ticket failed %d times: %w", maxTries, err)
}

// order is what decides, beside its ticket, when execution e is admitted: its place in the
// queue (its ticket, or with Config.QueuePriorityAgeing lock.Place of it with a random
// priority, so that the FIFO model checks the order priorities promise) and its weight (0, one
// slot, or with Config.QueueWeights a random weight from 1 to QueueWeights, at most Limit,
// which weighting then gives the queue model).
func (q *queueRun) order(c *queueClient, e string, ticket int64) (place int64, weight int) {
	place = ticket
	if q.cfg.QueuePriorityAgeing > 0 {
		place = lock.Place(ticket, c.random.IntN(lock.MaxPriority+1), q.cfg.QueuePriorityAgeing)
	}
	if q.cfg.QueueWeights > 0 {
		weight = 1 + c.random.IntN(min(q.cfg.QueueWeights, q.cfg.Limit))
		q.weights.Store(e, weight)
	}
	return place, weight
}

// execution runs one execution of the Callback machine: draw a ticket, park, wait for the
// wake-up (or give up waiting and leave), hold the slot a moment and release it.
func (q *queueRun) execution(ctx context.Context, c *queueClient, e string) error {
	ticket, err := q.drawTicket(ctx, c)
	if err != nil {
		return err
	}
	place, weight := q.order(c, e, ticket)
	// The history records the place and the weight; the lock gets them too, unless the soak
	// breaks the protocol on purpose (Config.QueueParkUnordered).
	parkPlace, parkWeight := place, weight
	if q.cfg.QueueParkUnordered {
		parkPlace, parkWeight = ticket, 0
	}
	woken := q.board.register(e)
	defer q.board.forget(e)
	parked, parkCall, err := q.do(c, semcheck.ParkWeighted(e, place, weight), func(again bool) (semcheck.QueueOutput, error) {
		r, err := c.locks.Park(ctx, lock.ParkRequest{Lock: lockName, Limit: q.cfg.Limit, Execution: e, Ticket: parkPlace, Token: taskToken(e), Again: again, Weight: parkWeight})
		switch {
		case err != nil:
			return semcheck.QueueOutput{}, err
		case r.Admitted:
			return semcheck.QueueOutput{Outcome: semcheck.Admitted}, nil
		}
		return semcheck.QueueOutput{Outcome: semcheck.Queued}, nil
	})
	if err != nil {
		return err
	}
	if parked.Outcome == semcheck.Queued {
		wait := q.cfg.WaitTimeout
		if c.random.Float64() < q.cfg.LeaveRate {
			wait = time.Duration(c.random.IntN(2000)) * time.Microsecond
		}
		timer := time.NewTimer(wait)
		select {
		case <-woken:
			timer.Stop()
		case <-timer.C:
			if wait == q.cfg.WaitTimeout {
				q.stranded.Add(1)
			}
			q.leaves.Add(1)
			left, _, err := q.do(c, semcheck.Leave(e), func(bool) (semcheck.QueueOutput, error) {
				r, err := c.locks.Leave(ctx, lockName, e, parkPlace, q.cfg.Limit)
				return gaveUp(r), err
			})
			if err == nil && left.Outcome == semcheck.GaveUp {
				// It held a slot when it left: admitted at some moment while it waited, by an
				// operation whose record may not say so (one that ended without an answer).
				q.recorder.Load().BeginSince(c.id, semcheck.Admit(e), parkCall).End(semcheck.QueueOutput{Outcome: semcheck.Done})
			}
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if _, err := q.observer.read(ctx); err != nil {
		return err
	}
	time.Sleep(time.Duration(c.random.IntN(500)) * time.Microsecond)
	_, _, err = q.do(c, semcheck.ReleaseSlot(e), func(bool) (semcheck.QueueOutput, error) {
		r, err := c.locks.Release(ctx, lockName, e, q.cfg.Limit)
		return gaveUp(r), err
	})
	return err
}

// segment runs executions [from, to) on the clients and waits until every one has ended.
func (q *queueRun) segment(ctx context.Context, clients []*queueClient, from, to int) error {
	var next atomic.Int64
	next.Store(int64(from))
	errs := make([]error, len(clients))
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Go(func() {
			for p := int(next.Add(1) - 1); p < to; p = int(next.Add(1) - 1) {
				e := fmt.Sprintf("%sseed-%d-execution-%d", executionPrefix, q.seed, p)
				if err := q.execution(ctx, c, e); err != nil {
					errs[i] = err
					return
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// waitersOf lists a state's waiters for the queue model.
func waitersOf(st lock.State) []semcheck.QueueWaiter {
	ws := make([]semcheck.QueueWaiter, len(st.Waiters))
	for i, w := range st.Waiters {
		ws[i] = semcheck.QueueWaiter{Ticket: w.Ticket, Execution: w.Execution}
	}
	return ws
}

// run runs the seed's executions segment by segment and returns its report.
func (q *queueRun) run(ctx context.Context, clients []*queueClient) (Report, error) {
	report := Report{Seeds: 1, Pairs: q.cfg.Pairs}
	var initial lock.State // the state at the start of the segment
	failing := false
	for from := 0; from < q.cfg.Pairs; from += q.cfg.SegmentPairs {
		to := min(from+q.cfg.SegmentPairs, q.cfg.Pairs)
		recorder := semcheck.NewRecorder()
		q.recorder.Store(recorder)
		if err := q.segment(ctx, clients, from, to); err != nil {
			if ctx.Err() != nil {
				return report, err
			}
			// The lock failed an operation no retry fixes (or kept failing it): the seed ends
			// here, a failure, and the soak goes on with the next.
			report.LockErrors++
			report.FirstFailure = fmt.Sprintf("seed %d, executions %d-%d: %v", q.seed, from, to-1, err)
			q.observer.addTo(&report)
			return report, nil
		}
		final, err := q.observer.read(ctx)
		if err != nil {
			return report, err
		}
		recorder.Begin(probeClient, semcheck.Settled(holderNames(final), waitersOf(final))).End(semcheck.QueueOutput{Outcome: semcheck.Done})
		history := recorder.Operations()
		report.Operations += len(history)
		for _, op := range history {
			if op.Output == semcheck.Unknown {
				report.UnknownOutcomes++
			}
		}
		report.OutOfOrder += semcheck.OutOfOrder(history)
		report.Segments++
		err = semcheck.CheckQueue(q.cfg.Limit, holderNames(initial), waitersOf(initial), history, q.cfg.CheckTimeout, q.queueOptions()...)
		switch {
		case errors.Is(err, semcheck.ErrInconclusive):
			report.InconclusiveChecks++
		case err != nil:
			failing = true
		}
		if err != nil {
			err = q.keep(initial, history, from, to, err)
		}
		if err != nil && report.FirstFailure == "" {
			report.FirstFailure = fmt.Sprintf("seed %d, executions %d-%d: %v", q.seed, from, to-1, err)
		}
		initial = final
	}
	if failing {
		report.FailingHistories = 1
	}
	report.LeakedSlots = len(initial.Holders)
	report.StrandedWaiters = int64(len(initial.Waiters)) + q.stranded.Load()
	report.Leaves = q.leaves.Load()
	q.observer.addTo(&report)
	return report, nil
}

// keep writes down the history of executions [from, to) that failed its check with err, from
// the state initial, in Config.KeepFailing, and returns err naming the files (or the error of
// writing them).
func (q *queueRun) keep(initial lock.State, history []porcupine.Operation, from, to int, err error) error {
	if q.cfg.KeepFailing == "" {
		return err
	}
	h := semcheck.NewQueueHistory(q.cfg.Limit, holderNames(initial), waitersOf(initial), history, q.weighting())
	base := filepath.Join(q.cfg.KeepFailing, fmt.Sprintf("seed-%d-executions-%d-%d", q.seed, from, to-1))
	write := func(path string, content func(io.Writer) error) error {
		if err := os.MkdirAll(q.cfg.KeepFailing, 0o755); err != nil {
			return err
		}
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		return errors.Join(content(f), f.Close())
	}
	if werr := errors.Join(
		write(base+".json", h.WriteJSON),
		write(base+".html", func(w io.Writer) error { return h.Visualize(w, q.cfg.CheckTimeout) }),
	); werr != nil {
		return fmt.Errorf("%w (keeping the history: %w)", err, werr)
	}
	return fmt.Errorf("%w (history kept in %s.json and .html)", err, base)
}

// newestFirst breaks the queue protocol on purpose (Config.QueueNewestFirst): it reads a lock's
// queue from its newest end, so releases hand their slot to the newest waiter.
type newestFirst struct{ *dynamodb.Client }

// Query reads the queue's head from the newest end: a read of a range of the lock's partition
// (the counter item and the oldest waiters) gets the counter item and the newest waiters, so
// that a release sees a consistent lock, only in the wrong order, and hands its slot on.
func (d newestFirst) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	if !strings.Contains(aws.ToString(in.KeyConditionExpression), ">=") {
		return d.Client.Query(ctx, in, opts...)
	}
	first := *in
	first.Limit = aws.Int32(1) // the counter item, which sorts first
	head, err := d.Client.Query(ctx, &first, opts...)
	if err != nil {
		return nil, err
	}
	reversed := *in
	reversed.ScanIndexForward = aws.Bool(false)
	out, err := d.Client.Query(ctx, &reversed, opts...)
	if err != nil {
		return nil, err
	}
	items := head.Items
	for _, item := range out.Items {
		if len(head.Items) == 0 || !reflect.DeepEqual(item, head.Items[0]) {
			items = append(items, item)
		}
	}
	out.Items = items
	return out, nil
}
