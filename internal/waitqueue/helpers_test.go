package waitqueue_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/internal/waitqueue"
)

const lockName = "L"

// execution names the i-th test execution.
func execution(i int) string {
	return "arn:aws:states:us-east-1:123456789012:execution:Sem:e" + strconv.Itoa(i)
}

// fakeSFN stands in for Step Functions: it records completed tokens, fails tokens in dead, and
// answers DescribeExecution from status (RUNNING when absent).
type fakeSFN struct {
	mu     sync.Mutex
	woken  map[string]waitqueue.Wake
	order  []string
	dead   map[string]bool
	status map[string]sfntypes.ExecutionStatus
	notify func(token string)
}

func newFakeSFN() *fakeSFN {
	return &fakeSFN{woken: map[string]waitqueue.Wake{}, dead: map[string]bool{}, status: map[string]sfntypes.ExecutionStatus{}}
}

func (f *fakeSFN) SendTaskSuccess(_ context.Context, in *sfn.SendTaskSuccessInput, _ ...func(*sfn.Options)) (*sfn.SendTaskSuccessOutput, error) {
	token := aws.ToString(in.TaskToken)
	f.mu.Lock()
	if f.dead[token] {
		f.mu.Unlock()
		return nil, &sfntypes.TaskTimedOut{Message: aws.String("Provided task does not exist anymore")}
	}
	if _, twice := f.woken[token]; twice {
		f.mu.Unlock()
		return nil, &sfntypes.TaskTimedOut{Message: aws.String("Provided task does not exist anymore")}
	}
	var w waitqueue.Wake
	if err := json.Unmarshal([]byte(aws.ToString(in.Output)), &w); err != nil {
		f.mu.Unlock()
		return nil, err
	}
	f.woken[token] = w
	f.order = append(f.order, token)
	notify := f.notify
	f.mu.Unlock()
	if notify != nil {
		notify(token)
	}
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

// wokenOrder returns the completed tokens in order.
func (f *fakeSFN) wokenOrder() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.order...)
}

// lockItem is a lock item as read back independently of the package under test.
type lockItem struct {
	count   int
	holders []string
	queue   []string
	tokens  int
}

// readLock reads the lock item with the shared server's own client.
func readLock(t *testing.T, table string) lockItem {
	t.Helper()
	out, err := server.Client.GetItem(t.Context(), &dynamodb.GetItemInput{
		TableName: aws.String(table), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{machines.AttributeLockName: &types.AttributeValueMemberS{Value: lockName}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var l lockItem
	for name, v := range out.Item {
		switch {
		case name == machines.AttributeHolderCount:
			l.count, _ = strconv.Atoi(v.(*types.AttributeValueMemberN).Value)
		case name == machines.AttributeQueue:
			for _, e := range v.(*types.AttributeValueMemberL).Value {
				l.queue = append(l.queue, e.(*types.AttributeValueMemberS).Value)
			}
		case machines.IsHolderAttribute(name):
			l.holders = append(l.holders, name)
		case strings.HasPrefix(name, machines.AttributeWaiterTokenPrefix):
			l.tokens++
		}
	}
	slices.Sort(l.holders)
	return l
}

// checkInvariant fails the test unless counter == holders <= limit and every waiter has
// exactly one token.
func checkInvariant(t *testing.T, l lockItem, limit int) {
	t.Helper()
	if l.count != len(l.holders) || l.count > limit || l.count < 0 || l.tokens != len(l.queue) {
		t.Fatalf("invariant broken (limit %d): %+v", limit, l)
	}
}

// acquire sends the semaphore machine's own acquire for e; it reports whether e got a slot.
func acquire(t *testing.T, table, e string, limit int) bool {
	t.Helper()
	_, err := server.Client.UpdateItem(t.Context(), &dynamodb.UpdateItemInput{
		TableName:                aws.String(table),
		Key:                      map[string]types.AttributeValue{machines.AttributeLockName: &types.AttributeValueMemberS{Value: lockName}},
		UpdateExpression:         aws.String(machines.AcquireUpdateExpression),
		ConditionExpression:      aws.String(machines.AcquireConditionExpression),
		ExpressionAttributeNames: machines.AcquireExpressionNames(e),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":zero": &types.AttributeValueMemberN{Value: "0"}, ":one": &types.AttributeValueMemberN{Value: "1"},
			":limit": &types.AttributeValueMemberN{Value: strconv.Itoa(limit)}, ":now": &types.AttributeValueMemberS{Value: "2026-01-01T00:00:00.000Z"},
		},
	})
	var failed *types.ConditionalCheckFailedException
	if err != nil && !errors.As(err, &failed) {
		t.Fatalf("acquire %s: %v", e, err)
	}
	return err == nil
}

// newQueue returns a Queue on a fresh lock table, with its fake Step Functions.
func newQueue(t *testing.T) (*waitqueue.Queue, *fakeSFN, string) {
	t.Helper()
	table := server.CreateLockTable(t)
	f := newFakeSFN()
	q, err := waitqueue.New(table, server.Client, f)
	if err != nil {
		t.Fatal(err)
	}
	return q, f, table
}

// token names e's task token; n tells apart the tokens of successive parks.
func token(e string, n int) string { return "token-" + e + "-" + strconv.Itoa(n) }
