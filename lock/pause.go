package lock

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Pause stops admissions to lock: the acquire condition (AcquireCountCondition) fails while
// the counter item holds AttributePaused, parks join the queue in ticket order, and a release
// gives its slot back to the lock instead of handing it on. Holders keep their slots. Under
// the Poll strategy, acquires fail their condition and keep polling until the acquire timeout.
// One write of the counter item; pausing a paused lock changes nothing.
//
// A hand-off that read the lock before the pause may still complete after it (the hand-off
// transaction does not check the counter item, to keep a release's cost): at most one per
// release in flight at the moment of the pause.
func (c *Client) Pause(ctx context.Context, lock string) error {
	if lock == "" {
		return fmt.Errorf("%w: pausing needs a lock name", ErrInvalidRequest)
	}
	_, err := c.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(c.table), Key: Key(lock, EntryLock),
		UpdateExpression:          aws.String("SET #paused = :true"),
		ExpressionAttributeNames:  map[string]string{"#paused": AttributePaused},
		ExpressionAttributeValues: map[string]types.AttributeValue{":true": &types.AttributeValueMemberBOOL{Value: true}},
	})
	if err != nil {
		return classify("pause "+lock, err)
	}
	return nil
}

// Resume restarts admissions to lock and admits the oldest waiters into its free slots
// (Admit), in ticket order. Resuming a lock that is not paused only admits.
func (c *Client) Resume(ctx context.Context, lock string) (AdmitResult, error) {
	if lock == "" {
		return AdmitResult{}, fmt.Errorf("%w: resuming needs a lock name", ErrInvalidRequest)
	}
	_, err := c.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(c.table), Key: Key(lock, EntryLock),
		UpdateExpression:         aws.String("REMOVE #paused"),
		ExpressionAttributeNames: map[string]string{"#paused": AttributePaused},
	})
	if err != nil {
		return AdmitResult{}, classify("resume "+lock, err)
	}
	return c.Admit(ctx, lock)
}
