package lock_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/turnstile-sfn/turnstile/lock"
)

const lockName = "L"

// execution names the i-th test execution.
func execution(i int) string {
	return "arn:aws:states:us-east-1:123456789012:execution:Sem:e" + strconv.Itoa(i)
}

// token names e's task token; n tells apart the tokens of successive parks. It is as long as
// AWS's (684 characters), so that item sizes are honest.
func token(e string, n int) string {
	t := "token-" + e + "-" + strconv.Itoa(n) + "-"
	return t + strings.Repeat("x", 684-len(t))
}

// fakeSFN stands in for Step Functions: it records completed tokens, fails tokens in dead, and
// answers DescribeExecution from status (RUNNING when absent).
type fakeSFN struct {
	mu     sync.Mutex
	woken  map[string]lock.Wake
	order  []string
	failed map[string]string // token: error and cause
	dead   map[string]bool
	status map[string]sfntypes.ExecutionStatus
}

func newFakeSFN() *fakeSFN {
	return &fakeSFN{woken: map[string]lock.Wake{}, failed: map[string]string{}, dead: map[string]bool{}, status: map[string]sfntypes.ExecutionStatus{}}
}

func (f *fakeSFN) SendTaskSuccess(_ context.Context, in *sfn.SendTaskSuccessInput, _ ...func(*sfn.Options)) (*sfn.SendTaskSuccessOutput, error) {
	tok := aws.ToString(in.TaskToken)
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, twice := f.woken[tok]; twice || f.dead[tok] {
		return nil, &sfntypes.TaskTimedOut{Message: aws.String("Provided task does not exist anymore")}
	}
	var w lock.Wake
	if err := json.Unmarshal([]byte(aws.ToString(in.Output)), &w); err != nil {
		return nil, err
	}
	f.woken[tok] = w
	f.order = append(f.order, tok)
	return &sfn.SendTaskSuccessOutput{}, nil
}

func (f *fakeSFN) DescribeExecution(_ context.Context, in *sfn.DescribeExecutionInput, _ ...func(*sfn.Options)) (*sfn.DescribeExecutionOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	status, ok := f.status[aws.ToString(in.ExecutionArn)]
	if !ok {
		status = sfntypes.ExecutionStatusRunning
	}
	return &sfn.DescribeExecutionOutput{Status: status}, nil
}

func (f *fakeSFN) SendTaskFailure(_ context.Context, in *sfn.SendTaskFailureInput, _ ...func(*sfn.Options)) (*sfn.SendTaskFailureOutput, error) {
	tok := aws.ToString(in.TaskToken)
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, done := f.woken[tok]; done || f.dead[tok] || f.failed[tok] != "" {
		return nil, &sfntypes.TaskTimedOut{Message: aws.String("Provided task does not exist anymore")}
	}
	f.failed[tok] = aws.ToString(in.Error) + ": " + aws.ToString(in.Cause)
	return &sfn.SendTaskFailureOutput{}, nil
}

// wokenOrder returns the completed tokens in order.
func (f *fakeSFN) wokenOrder() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.order...)
}

// newClient returns a Client on a fresh lock table, with its fake Step Functions.
func newClient(t *testing.T) (*lock.Client, *fakeSFN) {
	t.Helper()
	table := server.CreateLockTable(t)
	f := newFakeSFN()
	c, err := lock.New(table, server.Client, f)
	if err != nil {
		t.Fatal(err)
	}
	return c, f
}

// park draws e's ticket and parks it with its n-th token.
func park(t *testing.T, c *lock.Client, limit, e, n int) lock.ParkResult {
	t.Helper()
	ticket, err := c.DrawTicket(t.Context(), lockName)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Park(t.Context(), lock.ParkRequest{Lock: lockName, Limit: limit, Execution: execution(e), Ticket: ticket, Token: token(execution(e), n)})
	if err != nil {
		t.Fatalf("park e%d: %v", e, err)
	}
	return res
}

// read reads the lock and fails the test unless its invariant holds for limit.
func read(t *testing.T, c *lock.Client, limit int) lock.State {
	t.Helper()
	st, err := c.Read(t.Context(), lockName)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Check(limit); err != nil {
		t.Fatalf("%v: %+v", err, st)
	}
	return st
}

// holders lists the holding executions.
func holders(st lock.State) []string {
	var hs []string
	for _, h := range st.Holders {
		hs = append(hs, h.Execution)
	}
	return hs
}

// waiters lists the waiting executions, oldest first.
func waiters(st lock.State) []string {
	var ws []string
	for _, w := range st.Waiters {
		ws = append(ws, w.Execution)
	}
	return ws
}

// writeLimit writes the lock's live limit straight into its counter item, as a limit change
// does before it admits anyone.
func writeLimit(t *testing.T, c *lock.Client, limit int) {
	t.Helper()
	_, err := server.Client.UpdateItem(t.Context(), &dynamodb.UpdateItemInput{
		TableName: aws.String(c.Table()), Key: lock.Key(lockName, lock.EntryLock),
		UpdateExpression:          aws.String("SET #limit = :limit"),
		ExpressionAttributeNames:  map[string]string{"#limit": lock.AttributeLimit},
		ExpressionAttributeValues: map[string]types.AttributeValue{":limit": &types.AttributeValueMemberN{Value: fmt.Sprint(limit)}},
	})
	if err != nil {
		t.Fatal(err)
	}
}
