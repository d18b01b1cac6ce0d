package lock_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/turnstile-sfn/turnstile/lock"
)

const (
	machine     = "arn:aws:states:us-east-1:123456789012:stateMachine:Sem"
	goneMachine = "arn:aws:states:us-east-1:123456789012:stateMachine:Gone"
)

// startingSFN is fakeSFN with StartExecution, as Step Functions answers it: a name starts one
// execution; the same name and input while it runs is the same execution; any other reuse is
// ExecutionAlreadyExists. goneMachine does not exist. fault, when set, is asked before each
// start: applied says whether the start happens, err what the caller gets.
type startingSFN struct {
	*fakeSFN
	mu      sync.Mutex
	started map[string]string // execution ARN: input
	calls   int
	fault   func(call int) (applied bool, err error)
}

func (s *startingSFN) StartExecution(_ context.Context, in *sfn.StartExecutionInput, _ ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	sm := aws.ToString(in.StateMachineArn)
	if sm == goneMachine {
		return nil, &sfntypes.StateMachineDoesNotExist{Message: aws.String("State Machine Does Not Exist: '" + sm + "'")}
	}
	applied, ferr := true, error(nil)
	if s.fault != nil {
		applied, ferr = s.fault(s.calls)
	}
	arn := strings.Replace(sm, ":stateMachine:", ":execution:", 1) + ":" + aws.ToString(in.Name)
	if applied {
		input, ok := s.started[arn]
		switch {
		case !ok:
			s.started[arn] = aws.ToString(in.Input)
		case input != aws.ToString(in.Input) || s.status[arn] != "":
			return nil, &sfntypes.ExecutionAlreadyExists{Message: aws.String("Execution Already Exists: '" + arn + "'")}
		}
	}
	if ferr != nil {
		return nil, ferr
	}
	return &sfn.StartExecutionOutput{ExecutionArn: aws.String(arn)}, nil
}

func (s *startingSFN) DescribeExecution(ctx context.Context, in *sfn.DescribeExecutionInput, opts ...func(*sfn.Options)) (*sfn.DescribeExecutionOutput, error) {
	arn := aws.ToString(in.ExecutionArn)
	if !lock.IsSubmitted(arn) {
		return s.fakeSFN.DescribeExecution(ctx, in, opts...)
	}
	s.mu.Lock()
	input, ok := s.started[arn]
	s.mu.Unlock()
	if !ok {
		return nil, &sfntypes.ExecutionDoesNotExist{Message: aws.String("Execution Does Not Exist: '" + arn + "'")}
	}
	out, err := s.fakeSFN.DescribeExecution(ctx, in, opts...)
	if out != nil {
		out.Input = aws.String(input)
	}
	return out, err
}

// executions lists the started executions.
func (s *startingSFN) executions() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var es []string
	for e := range s.started {
		es = append(es, e)
	}
	slices.Sort(es)
	return es
}

// newSubmitClient returns a Client on a fresh lock table whose Step Functions starts
// executions, with the clock now.
func newSubmitClient(t *testing.T, now func() time.Time) (*lock.Client, *startingSFN) {
	t.Helper()
	f := &startingSFN{fakeSFN: newFakeSFN(), started: map[string]string{}}
	c, err := lock.New(server.CreateLockTable(t), server.Client, f, lock.WithNow(now))
	if err != nil {
		t.Fatal(err)
	}
	return c, f
}

func submit(t *testing.T, c *lock.Client, limit int, sm, input string, ttl time.Duration) lock.Submission {
	t.Helper()
	s, err := c.Submit(t.Context(), lock.SubmitRequest{Lock: lockName, Limit: limit, StateMachine: sm, Input: input, TTL: ttl})
	if err != nil {
		t.Fatalf("submit %s: %v", input, err)
	}
	return s
}

func status(t *testing.T, c *lock.Client, id string) lock.SubmissionStatus {
	t.Helper()
	st, err := c.Status(t.Context(), lockName, id)
	if err != nil {
		t.Fatalf("status of %s: %v", id, err)
	}
	return st
}

// parkExecution draws a ticket for the execution e and parks it with token tok.
func parkExecution(t *testing.T, c *lock.Client, limit int, e, tok string) lock.ParkResult {
	t.Helper()
	ticket, err := c.DrawTicket(t.Context(), lockName)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Park(t.Context(), lock.ParkRequest{Lock: lockName, Limit: limit, Execution: e, Ticket: ticket, Token: tok})
	if err != nil {
		t.Fatalf("park %s: %v", e, err)
	}
	return res
}

// TestSubmissionsShareTheQueueWithParkedExecutions: limit 1; e0 holds; s1, e2, s3 line up in
// that order. Each release hands the slot to the next in line: a submission is started holding
// it, its execution's park finds the slot and goes straight on (the count stays 1), and its
// release hands on in turn.
func TestSubmissionsShareTheQueueWithParkedExecutions(t *testing.T) {
	c, f := newSubmitClient(t, time.Now)
	ctx := t.Context()
	if res := park(t, c, 1, 0, 0); !res.Admitted {
		t.Fatalf("e0 = %+v, want admitted", res)
	}
	s1 := submit(t, c, 1, machine, `{"job":1}`, 0)
	if res := park(t, c, 1, 2, 0); !res.Queued {
		t.Fatalf("e2 = %+v, want queued", res)
	}
	s3 := submit(t, c, 1, machine, `{"job":3}`, 0)
	if st := status(t, c, s1.ID); st.Outcome != lock.OutcomeQueued || st.Ahead != 0 {
		t.Fatalf("s1 = %+v, want queued first", st)
	}
	if st := status(t, c, s3.ID); st.Outcome != lock.OutcomeQueued || st.Ahead != 2 {
		t.Fatalf("s3 = %+v, want queued with 2 ahead", st)
	}
	if st := read(t, c, 1); !slices.Equal(waiters(st), []string{s1.Execution, execution(2), s3.Execution}) || st.Waiters[0].Submission != s1.ID || st.Waiters[1].Submission != "" {
		t.Fatalf("waiters = %+v", st.Waiters)
	}
	if len(f.executions()) != 0 {
		t.Fatalf("started before a slot was free: %v", f.executions())
	}

	res, err := c.Release(ctx, lockName, execution(0), 1)
	if err != nil || !slices.Equal(res.HandedTo, []string{s1.Execution}) {
		t.Fatalf("release e0 = %+v, %v; want handed to s1", res, err)
	}
	if got := f.executions(); !slices.Equal(got, []string{s1.Execution}) || f.started[s1.Execution] != `{"job":1}` {
		t.Fatalf("started %v, want s1's execution with its input", got)
	}
	if st := status(t, c, s1.ID); st.Outcome != lock.OutcomeStarted || st.Execution != s1.Execution {
		t.Fatalf("s1 = %+v, want started", st)
	}
	// The started execution parks as the machine makes it: it holds already.
	if res := parkExecution(t, c, 1, s1.Execution, "tok-s1"); !res.Admitted {
		t.Fatalf("s1's park = %+v, want admitted at once", res)
	}
	if st := read(t, c, 1); st.Count != 1 || !slices.Equal(holders(st), []string{s1.Execution}) || !slices.Equal(waiters(st), []string{execution(2), s3.Execution}) {
		t.Fatalf("after s1 started: %+v", st)
	}
	if res, err := c.Release(ctx, lockName, s1.Execution, 1); err != nil || !slices.Equal(res.HandedTo, []string{execution(2)}) {
		t.Fatalf("release s1 = %+v, %v; want handed to e2", res, err)
	}
	if res, err := c.Release(ctx, lockName, execution(2), 1); err != nil || !slices.Equal(res.HandedTo, []string{s3.Execution}) {
		t.Fatalf("release e2 = %+v, %v; want handed to s3", res, err)
	}
	if got := f.executions(); len(got) != 2 || f.calls != 2 {
		t.Fatalf("started %v in %d calls, want s1 and s3 once each", got, f.calls)
	}
	if res, err := c.Release(ctx, lockName, s3.Execution, 1); err != nil || !res.Released {
		t.Fatalf("release s3 = %+v, %v", res, err)
	}
	if st := read(t, c, 1); st.Count != 0 || len(st.Waiters) != 0 {
		t.Fatalf("the lock at the end: %+v", st)
	}
}

// TestSubmitWithAFreeSlotStartsAtOnce: below the limit with nobody waiting, Submit starts the
// execution before it returns.
func TestSubmitWithAFreeSlotStartsAtOnce(t *testing.T) {
	now := time.Now().Truncate(time.Second)
	c, f := newSubmitClient(t, func() time.Time { return now })
	s := submit(t, c, 2, machine, "", 0)
	if st := status(t, c, s.ID); st.Outcome != lock.OutcomeStarted {
		t.Fatalf("status = %+v, want started", st)
	}
	// Its status item expires StatusRetention after the outcome (the table's time to live).
	out, err := server.Client.GetItem(t.Context(), &dynamodb.GetItemInput{TableName: aws.String(c.Table()), Key: lock.Key(lock.SubmissionPartition(lockName), s.ID)})
	if err != nil {
		t.Fatal(err)
	}
	ttl, _ := out.Item[lock.AttributeTimeToLive].(*types.AttributeValueMemberN)
	if want := strconv.FormatInt(now.Add(lock.StatusRetention).Unix(), 10); ttl == nil || ttl.Value != want {
		t.Errorf("status item %s = %v, want %s", lock.AttributeTimeToLive, out.Item[lock.AttributeTimeToLive], want)
	}
	if f.started[s.Execution] != "{}" {
		t.Fatalf("started %v, want %s with {}", f.executions(), s.Execution)
	}
	if st := read(t, c, 2); !slices.Equal(holders(st), []string{s.Execution}) {
		t.Fatalf("holders = %v", holders(st))
	}
}

// TestSubmissionWhoseMachineIsGoneFailsAndHandsItsSlotOn: the start fails for good
// (StateMachineDoesNotExist): the outcome is failed with that reason, and the slot goes on
// to the next in line at once.
func TestSubmissionWhoseMachineIsGoneFailsAndHandsItsSlotOn(t *testing.T) {
	c, f := newSubmitClient(t, time.Now)
	park(t, c, 1, 0, 0)
	s1 := submit(t, c, 1, goneMachine, `{}`, 0)
	park(t, c, 1, 2, 0)
	res, err := c.Release(t.Context(), lockName, execution(0), 1)
	if err != nil || !slices.Equal(res.HandedTo, []string{s1.Execution, execution(2)}) {
		t.Fatalf("release = %+v, %v; want handed to s1, then on to e2", res, err)
	}
	if st := status(t, c, s1.ID); st.Outcome != lock.OutcomeFailed || !strings.Contains(st.Reason, "StateMachineDoesNotExist") {
		t.Fatalf("s1 = %+v, want failed: StateMachineDoesNotExist", st)
	}
	if st := read(t, c, 1); !slices.Equal(holders(st), []string{execution(2)}) || len(st.Waiters) != 0 {
		t.Fatalf("after the failed start: %+v", st)
	}
	if _, ok := f.woken[token(execution(2), 0)]; !ok {
		t.Fatal("e2 was not woken")
	}
}

// TestLostStartReplyMakesNoSecondExecution: StartExecution starts the execution but its
// reply is lost. The release reports a busy lock (the grant is left as it is), the repair finds
// the execution and starts nothing, and a repeated start of the same submission is the same
// execution.
func TestLostStartReplyMakesNoSecondExecution(t *testing.T) {
	c, f := newSubmitClient(t, time.Now)
	f.fault = func(call int) (bool, error) {
		if call == 1 {
			return true, errors.New("read tcp: connection reset by peer")
		}
		return true, nil
	}
	park(t, c, 1, 0, 0)
	s1 := submit(t, c, 1, machine, `{"job":1}`, 0)
	if _, err := c.Release(t.Context(), lockName, execution(0), 1); !errors.Is(err, lock.ErrBusy) {
		t.Fatalf("release = %v, want ErrBusy (the start's reply was lost)", err)
	}
	rep, err := c.RepairGrant(t.Context(), lockName, s1.Execution, 1)
	if err != nil || rep.Started || rep.Released || rep.Submission != s1.ID {
		t.Fatalf("repair = %+v, %v; want nothing to do", rep, err)
	}
	if got := f.executions(); !slices.Equal(got, []string{s1.Execution}) {
		t.Fatalf("executions %v, want exactly s1's", got)
	}
	if res := parkExecution(t, c, 1, s1.Execution, "tok"); !res.Admitted {
		t.Fatalf("s1's park = %+v, want admitted", res)
	}
	if st := read(t, c, 1); st.Count != 1 || !slices.Equal(holders(st), []string{s1.Execution}) {
		t.Fatalf("the lock: %+v", st)
	}
}

// TestRepairStartsAGrantWhoseStartNeverHappened: the start fails with a transient error after
// the grant (a crash between the two has the same effect): the slot stays granted, and the
// repair starts the execution, once however often it runs.
func TestRepairStartsAGrantWhoseStartNeverHappened(t *testing.T) {
	c, f := newSubmitClient(t, time.Now)
	f.fault = func(call int) (bool, error) {
		if call == 1 {
			return false, &sfntypes.ExecutionLimitExceeded{Message: aws.String("too many running")}
		}
		return true, nil
	}
	park(t, c, 1, 0, 0)
	s1 := submit(t, c, 1, machine, `{"job":1}`, 0)
	if _, err := c.Release(t.Context(), lockName, execution(0), 1); !errors.Is(err, lock.ErrBusy) {
		t.Fatalf("release = %v, want ErrBusy", err)
	}
	if st := read(t, c, 1); !slices.Equal(holders(st), []string{s1.Execution}) || len(f.executions()) != 0 {
		t.Fatalf("after the failed start: %+v, executions %v", st, f.executions())
	}
	for i := range 2 {
		rep, err := c.RepairGrant(t.Context(), lockName, s1.Execution, 1)
		if err != nil || rep.Started != (i == 0) {
			t.Fatalf("repair %d = %+v, %v", i, rep, err)
		}
	}
	if got := f.executions(); !slices.Equal(got, []string{s1.Execution}) || f.calls != 2 {
		t.Fatalf("executions %v after %d calls, want s1's once", got, f.calls)
	}
	if st := status(t, c, s1.ID); st.Outcome != lock.OutcomeStarted {
		t.Fatalf("s1 = %+v, want started", st)
	}
}

// TestCancelAndExpiry: a cancelled submission leaves the queue; an expired one is skipped by
// the release that reaches it, which hands its slot to the next in line.
func TestCancelAndExpiry(t *testing.T) {
	now := time.Now()
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	c, f := newSubmitClient(t, clock)
	ctx := t.Context()
	park(t, c, 1, 0, 0)
	s1 := submit(t, c, 1, machine, `{"job":1}`, 0)
	s2 := submit(t, c, 1, machine, `{"job":2}`, time.Minute)
	park(t, c, 1, 3, 0)
	st, err := c.Cancel(ctx, lockName, s1.ID, "")
	if err != nil || st.Outcome != lock.OutcomeCancelled {
		t.Fatalf("cancel = %+v, %v", st, err)
	}
	if st, err := c.Cancel(ctx, lockName, s1.ID, ""); err != nil || st.Outcome != lock.OutcomeCancelled {
		t.Fatalf("a second cancel = %+v, %v; want cancelled, no error", st, err)
	}
	mu.Lock()
	now = now.Add(2 * time.Minute)
	mu.Unlock()
	if st := status(t, c, s2.ID); st.Outcome != lock.OutcomeQueued {
		t.Fatalf("s2 before the queue reaches it = %+v", st)
	}
	res, err := c.Release(ctx, lockName, execution(0), 1)
	if err != nil || !slices.Equal(res.HandedTo, []string{execution(3)}) {
		t.Fatalf("release = %+v, %v; want handed to e3 past the cancelled and the expired", res, err)
	}
	if st := status(t, c, s2.ID); st.Outcome != lock.OutcomeExpired {
		t.Fatalf("s2 = %+v, want expired", st)
	}
	if _, err := c.Cancel(ctx, lockName, s2.ID, ""); !errors.Is(err, lock.ErrNotQueued) {
		t.Fatalf("cancel of an expired submission = %v, want ErrNotQueued", err)
	}
	if _, err := c.Status(ctx, lockName, "7-0123456789abcdef"); !errors.Is(err, lock.ErrNoSubmission) {
		t.Fatalf("status of an unknown id = %v, want ErrNoSubmission", err)
	}
	if len(f.executions()) != 0 {
		t.Fatalf("started %v", f.executions())
	}
	read(t, c, 1)
}

// TestSubmitRejectsWhatCannotStart: an input over 256 KiB, or not JSON, is refused at once.
func TestSubmitRejectsWhatCannotStart(t *testing.T) {
	c, _ := newSubmitClient(t, time.Now)
	big := `"` + strings.Repeat("x", lock.MaxInputBytes) + `"`
	if _, err := c.Submit(t.Context(), lock.SubmitRequest{Lock: lockName, Limit: 1, StateMachine: machine, Input: big}); !errors.Is(err, lock.ErrInputTooLarge) {
		t.Fatalf("a large input: %v, want ErrInputTooLarge", err)
	}
	if _, err := c.Submit(t.Context(), lock.SubmitRequest{Lock: lockName, Limit: 1, StateMachine: machine, Input: "{"}); !errors.Is(err, lock.ErrInvalidRequest) {
		t.Fatalf("a broken input: %v, want ErrInvalidRequest", err)
	}
}

// TestGrantWhoseReplyIsLostStartsOnce: the hand-off transaction granting a submission its slot
// is applied but its reply is lost; the release reads back that it granted it and starts the
// execution, once.
func TestGrantWhoseReplyIsLostStartsOnce(t *testing.T) {
	direct, f := newSubmitClient(t, time.Now)
	park(t, direct, 1, 0, 0)
	s1 := submit(t, direct, 1, machine, `{"job":1}`, 0)
	locks, err := lock.New(direct.Table(), &replyLostOnce{Client: server.Client, lose: puts}, f)
	if err != nil {
		t.Fatal(err)
	}
	res, err := locks.Release(t.Context(), lockName, execution(0), 1)
	if err != nil || !slices.Equal(res.HandedTo, []string{s1.Execution}) {
		t.Fatalf("release = %+v, %v; want handed to s1", res, err)
	}
	if got := f.executions(); !slices.Equal(got, []string{s1.Execution}) || f.calls != 1 {
		t.Fatalf("executions %v after %d calls, want s1's once", got, f.calls)
	}
	read(t, direct, 1)
}

// TestConcurrentReleasesGrantASubmissionOnce: releases that reach the same submission at once
// (a duplicated wake-up) grant it one slot and start it once; the other slot goes to the next.
func TestConcurrentReleasesGrantASubmissionOnce(t *testing.T) {
	c, f := newSubmitClient(t, time.Now)
	park(t, c, 2, 0, 0)
	park(t, c, 2, 1, 0)
	s2 := submit(t, c, 2, machine, `{"job":2}`, 0)
	s3 := submit(t, c, 2, machine, `{"job":3}`, 0)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range 2 {
		wg.Go(func() { _, errs[i] = c.Release(t.Context(), lockName, execution(i), 2) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if got := f.executions(); !slices.Equal(got, []string{s2.Execution, s3.Execution}) || f.calls != 2 {
		t.Fatalf("executions %v after %d calls, want s2 and s3 once each", got, f.calls)
	}
	if st := read(t, c, 2); st.Count != 2 || len(st.Waiters) != 0 {
		t.Fatalf("the lock: %+v", st)
	}
}

// TestDrainCancelsSubmissions: draining a lock takes its queued submissions out too, as
// cancelled with the drain's cause; nothing starts them.
func TestDrainCancelsSubmissions(t *testing.T) {
	c, f := newSubmitClient(t, time.Now)
	park(t, c, 1, 0, 0)
	s1 := submit(t, c, 1, machine, `{"job":1}`, 0)
	res, err := c.Drain(t.Context(), lockName, "maintenance")
	if err != nil || !slices.Equal(res.Drained, []string{s1.Execution}) {
		t.Fatalf("drain = %+v, %v", res, err)
	}
	if st := status(t, c, s1.ID); st.Outcome != lock.OutcomeCancelled || !strings.Contains(st.Reason, "maintenance") {
		t.Fatalf("s1 = %+v, want cancelled: drained", st)
	}
	if _, err := c.Release(t.Context(), lockName, execution(0), 1); err != nil || len(f.executions()) != 0 {
		t.Fatalf("release: %v; started %v", err, f.executions())
	}
}
