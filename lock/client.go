package lock

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
)

// DefaultAttempts bounds the read-then-write rounds of one operation before it gives up with
// ErrBusy (the state machine retries it).
const DefaultAttempts = 25

// DynamoDBAPI is the part of the DynamoDB client the lock uses; *dynamodb.Client satisfies it.
type DynamoDBAPI interface {
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
	Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
	TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
}

// StepFunctionsAPI is the part of the Step Functions client the lock uses to wake waiters and
// to tell dead ones; *sfn.Client satisfies it.
type StepFunctionsAPI interface {
	SendTaskSuccess(ctx context.Context, in *sfn.SendTaskSuccessInput, opts ...func(*sfn.Options)) (*sfn.SendTaskSuccessOutput, error)
	DescribeExecution(ctx context.Context, in *sfn.DescribeExecutionInput, opts ...func(*sfn.Options)) (*sfn.DescribeExecutionOutput, error)
}

// Client runs the lock operations on the locks of one table.
type Client struct {
	table     string
	ddb       DynamoDBAPI
	sfn       StepFunctionsAPI
	now       func() time.Time
	sleep     func(ctx context.Context, d time.Duration) error
	attempts  int
	lookAhead int32
	// onAdmitted is WithAdmitted's callback, or nil.
	onAdmitted func(Admission)
}

// Option configures a Client.
type Option func(*Client)

// WithNow sets the clock of the times written into holder and waiter items. Default: time.Now.
func WithNow(now func() time.Time) Option { return func(c *Client) { c.now = now } }

// WithSleep sets how the client waits between two tries of a contended hand-off (the
// emulator passes its clock's). Default: a timer of real time.
func WithSleep(sleep func(ctx context.Context, d time.Duration) error) Option {
	return func(c *Client) { c.sleep = sleep }
}

// WithAttempts bounds the rounds of one operation. Default: DefaultAttempts.
func WithAttempts(n int) Option { return func(c *Client) { c.attempts = n } }

// DefaultLookAhead is how many of the oldest waiters a release or an admission reads at once:
// an admission fills several free slots from one read, and a release passes over a waiter that
// holds already (its re-park raced) to the next without reading again.
const DefaultLookAhead = 4

// New returns the Client of table's locks. sfnClient may be nil for a client that never
// wakes waiters (Poll locks, inspection).
func New(table string, ddb DynamoDBAPI, sfnClient StepFunctionsAPI, opts ...Option) (*Client, error) {
	if table == "" {
		return nil, fmt.Errorf("%w: the lock table's name is required", ErrInvalidRequest)
	}
	if ddb == nil {
		return nil, fmt.Errorf("%w: a DynamoDB client is required", ErrInvalidRequest)
	}
	c := &Client{table: table, ddb: ddb, sfn: sfnClient, now: time.Now, sleep: sleepReal, attempts: DefaultAttempts, lookAhead: DefaultLookAhead}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// Table is the name of the lock table the client works on.
func (c *Client) Table() string { return c.table }

// Wake is the output a woken waiter's task receives.
type Wake struct {
	// GrantedBy is the execution whose slot the waiter took over, or the waiter itself when
	// it took a free slot.
	GrantedBy string `json:"grantedBy"`
	// Ticket is the waiter's ticket (0 for an execution that took a free slot on its first
	// park, never having waited).
	Ticket int64 `json:"ticket,omitempty"`
	// HeldSince is when the waiter was given its slot (its holder item's AttributeSince): the
	// order of the lock's grants, which the wake-ups' order may not keep when a reply was lost
	// and the waker's retries delayed its wake-up.
	HeldSince string `json:"heldSince,omitempty"`
}

// waiter is a waiter item as read.
type waiter struct {
	ticket    int64
	execution string
	token     string
	lock      string // the item's partition key
	since     string // AttributeSince
	weight    int    // AttributeWeight, 1 when absent
	passed    int64  // AttributePassed, 0 when absent
	// A submission's (submit.go): its id, state machine, input and expiry (Unix seconds).
	submission, stateMachine, input string
	expires                         int64
}

// counter is the counter item as read.
type counter struct {
	exists  bool
	count   int
	tickets int64
	changes int64
	// limit is the live limit, 0 when the item has none.
	limit     int
	override  bool
	paused    bool
	semaphore string
	// weighted: the lock has had a holder or waiter heavier than 1 (AttributeWeighted).
	weighted bool
	// herdUntil is the herd mark (AttributeHerdUntil), Unix milliseconds; 0 without one.
	herdUntil int64
}

// limitFor is the lock's limit: its live limit, or configured when it has none.
func (ctr counter) limitFor(configured int) int {
	if ctr.limit > 0 {
		return ctr.limit
	}
	return configured
}

func str(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }
func num(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

func stringOf(item map[string]types.AttributeValue, name string) string {
	s, _ := item[name].(*types.AttributeValueMemberS)
	if s == nil {
		return ""
	}
	return s.Value
}

func numberOf(item map[string]types.AttributeValue, name string) int64 {
	n, _ := item[name].(*types.AttributeValueMemberN)
	if n == nil {
		return 0
	}
	v, _ := strconv.ParseInt(n.Value, 10, 64)
	return v
}

func parseCounter(item map[string]types.AttributeValue) counter {
	_, paused := item[AttributePaused]
	_, override := item[AttributeLimitOverride]
	_, weighted := item[AttributeWeighted]
	return counter{weighted: weighted,
		exists: item != nil, count: int(numberOf(item, AttributeCount)), tickets: numberOf(item, AttributeTickets), changes: numberOf(item, AttributeChanges),
		limit: int(numberOf(item, AttributeLimit)), override: override, paused: paused, semaphore: stringOf(item, AttributeSemaphore),
		herdUntil: numberOf(item, AttributeHerdUntil),
	}
}

func parseWaiter(item map[string]types.AttributeValue) (waiter, bool) {
	t, ok := TicketOf(stringOf(item, AttributeEntry))
	if !ok {
		return waiter{}, false
	}
	return waiter{ticket: t, execution: stringOf(item, AttributeExecution), token: stringOf(item, AttributeToken),
		lock: stringOf(item, AttributeLockName), since: stringOf(item, AttributeSince), weight: weightOf(item), passed: numberOf(item, AttributePassed),
		submission: stringOf(item, AttributeSubmission), stateMachine: stringOf(item, AttributeStateMachine),
		input: stringOf(item, AttributeInput), expires: numberOf(item, AttributeExpires)}, true
}

// head reads the counter item and the oldest n waiters in one strongly consistent Query:
// the counter's sort key sorts just before the waiters'.
func (c *Client) head(ctx context.Context, lock string, n int32) (counter, []waiter, error) {
	out, err := c.ddb.Query(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(c.table),
		ConsistentRead:            aws.Bool(true),
		KeyConditionExpression:    aws.String("#lock = :lock AND #entry >= :from"),
		ExpressionAttributeNames:  map[string]string{"#lock": AttributeLockName, "#entry": AttributeEntry},
		ExpressionAttributeValues: map[string]types.AttributeValue{":lock": str(lock), ":from": str(EntryLock)},
		Limit:                     aws.Int32(n + 1),
	})
	if err != nil {
		return counter{}, nil, classify("read the lock "+strconv.Quote(lock), err)
	}
	var ctr counter
	var ws []waiter
	for _, item := range out.Items {
		if stringOf(item, AttributeEntry) == EntryLock {
			ctr = parseCounter(item)
			continue
		}
		if w, ok := parseWaiter(item); ok {
			ws = append(ws, w)
		}
	}
	if len(ws) > int(n) {
		ws = ws[:n]
	}
	return ctr, ws, nil
}

// readCounter reads the counter item, strongly consistent.
func (c *Client) readCounter(ctx context.Context, lock string) (counter, error) {
	out, err := c.ddb.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(c.table), Key: Key(lock, EntryLock), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return counter{}, classify("read the lock "+strconv.Quote(lock), err)
	}
	return parseCounter(out.Item), nil
}

// outcome is what became of a transaction.
type outcome int

const (
	// applied: the transaction was applied (on this request, or on an SDK retry of it with the
	// same ClientRequestToken).
	applied outcome = iota
	// refused: a condition failed; the transaction's failed tells which.
	refused
	// notApplied: DynamoDB cancelled it for a conflict with another transaction, or throttled
	// it: read and try again.
	notApplied
	// unknown: no answer came (a lost reply after the SDK's retries, a 5xx): it may or may not
	// have been applied; the caller reads back what it would have done.
	unknown
)

// transaction is the result of transact.
type transaction struct {
	outcome outcome
	// failed tells, for a refused transaction, which items' conditions failed, by position
	// (DynamoDB gives a reason per item).
	failed []bool
	// present tells, for a refused transaction, which of its failed items exist: those whose
	// item asks for it (takeWaiter).
	present []bool
	// sent is the request, under its ClientRequestToken: settle sends it again.
	sent *dynamodb.TransactWriteItemsInput
}

// transact sends one transaction under a ClientRequestToken of its own (which settle reuses).
// One cancelled for a reason no retry fixes (an item over 400 KB, a malformed request) or
// refused by DynamoDB for good (a missing table) is an ErrLockTable error.
func (c *Client) transact(ctx context.Context, what string, items ...types.TransactWriteItem) (transaction, error) {
	return c.send(ctx, what, &dynamodb.TransactWriteItemsInput{TransactItems: items, ClientRequestToken: aws.String(rand.Text())})
}

// settle learns the outcome of a transaction whose outcome is unknown by sending it again
// under its ClientRequestToken, while no answer comes (up to the client's attempts).
// DynamoDB applies a token's transaction at most once within 10 minutes: when the first send
// was applied, the same request succeeds without changing anything; when it was not, the
// request is decided anew, as the same try arriving late (DynamoDB Local does so; a
// cancellation kept with its token would be answered again). Either way the answer is this
// try's, where a read of the items could not tell it from an earlier try's (a holder item gone
// was deleted by this release, or by its earlier try whose answer was lost).
func (c *Client) settle(ctx context.Context, what string, tx transaction) (transaction, error) {
	for range c.attempts {
		again, err := c.send(ctx, what, tx.sent)
		if err != nil || again.outcome != unknown {
			return again, err
		}
	}
	return tx, nil
}

// send sends the transaction in and says what became of it.
func (c *Client) send(ctx context.Context, what string, in *dynamodb.TransactWriteItemsInput) (transaction, error) {
	_, err := c.ddb.TransactWriteItems(ctx, in)
	if err == nil {
		return transaction{outcome: applied, sent: in}, nil
	}
	var tc *types.TransactionCanceledException
	if !errors.As(err, &tc) {
		err = classify(what, err)
		if errors.Is(err, ErrBusy) {
			return transaction{outcome: unknown, sent: in}, nil
		}
		return transaction{}, err
	}
	failed := make([]bool, len(tc.CancellationReasons))
	present := make([]bool, len(tc.CancellationReasons))
	conflict := false
	for i, r := range tc.CancellationReasons {
		switch code := aws.ToString(r.Code); code {
		case "", "None":
		case "ConditionalCheckFailed":
			failed[i], present[i] = true, r.Item != nil
		case "TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded", "RequestLimitExceeded":
			conflict = true
		default: // ValidationError, ItemCollectionSizeLimitExceeded, ...
			return transaction{}, fmt.Errorf("%w: %s: item %d: %s: %s", ErrLockTable, what, i, code, aws.ToString(r.Message))
		}
	}
	if conflict || len(failed) == 0 {
		return transaction{outcome: notApplied, sent: in}, nil
	}
	return transaction{outcome: refused, failed: failed, present: present, sent: in}, nil
}

// The transaction items, one function each, so that every operation builds them alike.

func (c *Client) countUp(lock string, limit int) types.TransactWriteItem {
	return types.TransactWriteItem{Update: &types.Update{
		TableName: aws.String(c.table), Key: Key(lock, EntryLock),
		UpdateExpression: aws.String(AcquireCountUpdate), ConditionExpression: aws.String(AcquireCountCondition),
		ExpressionAttributeNames:  AcquireCountNames(),
		ExpressionAttributeValues: map[string]types.AttributeValue{":zero": num(0), ":one": num(1), ":limit": num(int64(limit))},
	}}
}

func (c *Client) countDown(lock string) types.TransactWriteItem {
	return types.TransactWriteItem{Update: &types.Update{
		TableName: aws.String(c.table), Key: Key(lock, EntryLock),
		UpdateExpression: aws.String(ReleaseCountUpdate), ConditionExpression: aws.String(ReleaseCountCondition),
		ExpressionAttributeNames:  ReleaseCountNames(),
		ExpressionAttributeValues: map[string]types.AttributeValue{":zero": num(0), ":one": num(1)},
	}}
}

func (c *Client) putHolder(lock, execution, grantedBy, since string) types.TransactWriteItem {
	item := HolderKey(lock, execution)
	item[AttributeSince] = str(since)
	item[AttributeGrantedBy] = str(grantedBy)
	return types.TransactWriteItem{Put: &types.Put{
		TableName: aws.String(c.table), Item: item,
		ConditionExpression: aws.String(ItemAbsent), ExpressionAttributeNames: map[string]string{"#entry": AttributeEntry},
	}}
}

func (c *Client) deleteItem(key map[string]types.AttributeValue) types.TransactWriteItem {
	return types.TransactWriteItem{Delete: &types.Delete{
		TableName: aws.String(c.table), Key: key,
		ConditionExpression: aws.String(ItemPresent), ExpressionAttributeNames: map[string]string{"#entry": AttributeEntry},
	}}
}

// takeWaiter is the transaction item of a grant that deletes waiter w's item: only while its
// AttributePassed is what w's read showed (an older waiter that joined since has marked it),
// and with the item in the cancellation reason when that fails (transaction.present tells a
// waiter passed since the read from one taken).
func (c *Client) takeWaiter(lock string, w waiter) types.TransactWriteItem {
	del := &types.Delete{
		TableName: aws.String(c.table), Key: Key(lock, WaiterEntry(w.ticket)),
		ConditionExpression:                 aws.String(ItemPresent + " AND attribute_not_exists(#passed)"),
		ExpressionAttributeNames:            map[string]string{"#entry": AttributeEntry, "#passed": AttributePassed},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
	if w.passed > 0 {
		del.ConditionExpression = aws.String(ItemPresent + " AND #passed = :passed")
		del.ExpressionAttributeValues = map[string]types.AttributeValue{":passed": num(w.passed)}
	}
	return types.TransactWriteItem{Delete: del}
}

// passedSinceRead reports whether a refused grant's waiter item (at position i of the
// transaction, takeWaiter) failed because an older waiter marked it since the grant's read:
// it is still there.
func (tx transaction) passedSinceRead(i int) bool {
	return tx.outcome == refused && i < len(tx.present) && tx.failed[i] && tx.present[i]
}

// wake completes a waiter's task token.
func (c *Client) wake(ctx context.Context, token string, w Wake) error {
	if c.sfn == nil {
		return fmt.Errorf("%w: no Step Functions client to wake a waiter with", ErrInvalidRequest)
	}
	output, err := json.Marshal(w)
	if err != nil {
		return err
	}
	_, err = c.sfn.SendTaskSuccess(ctx, &sfn.SendTaskSuccessInput{TaskToken: aws.String(token), Output: aws.String(string(output))})
	return err
}

// taskOver reports whether a SendTaskSuccess failed because its task is over: completed
// already (AWS answers TaskTimedOut to a second completion), timed out, or never issued.
func taskOver(err error) bool {
	var timedOut *sfntypes.TaskTimedOut
	var invalid *sfntypes.InvalidToken
	var missing *sfntypes.TaskDoesNotExist
	return errors.As(err, &timedOut) || errors.As(err, &invalid) || errors.As(err, &missing)
}

// running reports whether the execution is RUNNING; one that does not exist is not.
func (c *Client) running(ctx context.Context, execution string) (bool, error) {
	out, err := c.sfn.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: aws.String(execution)})
	var missing *sfntypes.ExecutionDoesNotExist
	switch {
	case errors.As(err, &missing):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("%w: describe %s: %w", ErrBusy, execution, err)
	}
	return out.Status == sfntypes.ExecutionStatusRunning, nil
}

// sleepReal waits d of real time, or until ctx ends.
func sleepReal(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Contention backoff: an operation that lost a race (a concurrent release took the waiter a
// release reached for, a lock changed between two readings) waits before it reads again, a wait
// drawn uniformly from a window (full jitter): contentionBase << tries, at most contentionCap,
// or wider for a herd (herdWindow).
const (
	contentionBase = 50 * time.Millisecond
	contentionCap  = 2 * time.Second
)

// backoffWindow is the usual window of the tries-th backoff.
func backoffWindow(tries int) time.Duration {
	return min(contentionBase<<min(tries, 16), contentionCap)
}

// backoff waits before the tries-th retry of an operation of key that lost a race, over
// herd when that is wider than the usual window. The wait is drawn from the key and the try,
// not from a shared random source, so that a run replays.
func (c *Client) backoff(ctx context.Context, key string, tries int, herd time.Duration) error {
	window := max(backoffWindow(tries), herd)
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%d", key, tries)
	return c.sleep(ctx, time.Duration(h.Sum64()%uint64(window)))
}

// timestamp renders the current time like $$.State.EnteredTime.
func (c *Client) timestamp() string { return c.now().UTC().Format(SinceLayout) }
