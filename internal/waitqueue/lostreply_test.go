package waitqueue_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/turnstile-sfn/turnstile/internal/waitqueue"
)

// replayingDynamoDB sends every hand-off write twice and answers with the second reply: the
// first attempt applied, its reply lost, and the client's retry failing the condition.
type replayingDynamoDB struct{ *dynamodb.Client }

func (d replayingDynamoDB) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	if strings.Contains(*in.UpdateExpression, "REMOVE #holder") {
		if _, err := d.Client.UpdateItem(ctx, in, opts...); err != nil {
			return nil, err
		}
	}
	return d.Client.UpdateItem(ctx, in, opts...)
}

// TestHandOffWithLostReplyStillWakes: the hand-off write lands but its reply is lost; the
// release sees the waiter holding and wakes it at once instead of leaving it asleep.
func TestHandOffWithLostReplyStillWakes(t *testing.T) {
	table := server.CreateLockTable(t)
	f := newFakeSFN()
	q, err := waitqueue.New(table, replayingDynamoDB{server.Client}, f)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	acquire(t, table, execution(0), 1)
	if _, err := q.Park(ctx, lockName, 1, execution(1), token(execution(1), 0)); err != nil {
		t.Fatal(err)
	}
	res, err := q.Release(ctx, lockName, execution(0), 1)
	if err != nil || !res.Released || !slices.Equal(res.HandedTo, []string{execution(1)}) {
		t.Fatalf("release = %+v, %v", res, err)
	}
	if got := f.wokenOrder(); !slices.Equal(got, []string{token(execution(1), 0)}) {
		t.Fatalf("woken %v, want e1's token", got)
	}
	l := readLock(t, table)
	checkInvariant(t, l, 1)
	if !slices.Equal(l.holders, []string{execution(1)}) || len(l.queue) != 0 {
		t.Fatalf("lock = %+v", l)
	}
}
