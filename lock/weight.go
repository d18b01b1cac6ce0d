package lock

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Weighted permits. An execution of weight w takes w slots: its holder item carries
// AttributeWeight, and the counter counts held weight. A lock whose holders and waiters all
// weigh 1 uses the expressions above, unchanged; the first item of a heavier execution marks the
// counter item AttributeWeighted, and from then on a release reads its holder's weight first.
// Condition expressions have no arithmetic, so a weighted change of the counter compares the
// count with the room read beforehand (limit less the change) and the live limit with the one
// read: a limit changed in between fails the condition, and the operation reads again.
//
// The head of the line is served strictly first in first out: a waiter that does not fit
// blocks the lighter ones behind it until enough weight is released (no heavy waiter starves).
const (
	// AttributeWeight is a holder or waiter item's weight, present only above 1.
	AttributeWeight = "weight"
	// AttributeWeighted marks a counter item that has had a holder or waiter heavier than 1.
	AttributeWeighted = "weighted"
	// WeightedCountUpdate changes the counter by :delta (a weighted acquire, release or
	// hand-off) and marks it weighted.
	WeightedCountUpdate = "SET #count = if_not_exists(#count, :zero) + :delta, #weighted = :true ADD #changes :one"
	// WeightedGrowCondition admits a change by :delta > 0 while the lock is not paused and the
	// count is at most the room: without a live limit, the caller's limit less :delta
	// (:room); with one, only while it is the one read (:live), that less :delta (:liveRoom).
	WeightedGrowCondition = "attribute_not_exists(#paused) AND ((attribute_not_exists(#limit) AND (attribute_not_exists(#count) OR #count <= :room)) OR (#limit = :live AND (attribute_not_exists(#count) OR #count <= :liveRoom)))"
	// WeightedShrinkCondition keeps a change by :delta < 0 from taking the count below 0.
	WeightedShrinkCondition = "#count >= :drop"
)

// ErrWeightAboveLimit: an execution's weight is above the lock's limit, so it could never be
// admitted. Reported as ErrorWeightAboveLimit.
var ErrWeightAboveLimit = errors.New("lock: the weight is above the lock's limit")

// ErrorWeightAboveLimit is the state machine error name of ErrWeightAboveLimit.
const ErrorWeightAboveLimit = "Turnstile.WeightAboveLimit"

// weightOf is an item's AttributeWeight, 1 when absent.
func weightOf(item map[string]types.AttributeValue) int {
	if w := numberOf(item, AttributeWeight); w > 1 {
		return int(w)
	}
	return 1
}

// fits reports whether the lock admits weight w more (AcquireCountCondition, or with a weight
// WeightedGrowCondition, read).
func (ctr counter) fits(configured, w int) bool {
	return !ctr.paused && ctr.count+w <= ctr.limitFor(configured)
}

// countBy is the transaction item that changes the counter by delta (not 0) of weight, as read
// in ctr: a growth only within the room the limit leaves, a shrink only down to 0. A change by
// +1 from an unweighted lock is countUp, unchanged.
func (c *Client) countBy(lock string, ctr counter, configured, delta int) types.TransactWriteItem {
	names := map[string]string{"#count": AttributeCount, "#changes": AttributeChanges, "#weighted": AttributeWeighted}
	values := map[string]types.AttributeValue{":zero": num(0), ":one": num(1), ":delta": num(int64(delta)), ":true": &types.AttributeValueMemberBOOL{Value: true}}
	condition := WeightedShrinkCondition
	if delta > 0 {
		condition = WeightedGrowCondition
		names["#limit"], names["#paused"] = AttributeLimit, AttributePaused
		values[":room"] = num(int64(configured - delta))
		values[":live"] = num(int64(ctr.limit))
		values[":liveRoom"] = num(int64(ctr.limit - delta))
	} else {
		values[":drop"] = num(int64(-delta))
	}
	return types.TransactWriteItem{Update: &types.Update{
		TableName: aws.String(c.table), Key: Key(lock, EntryLock),
		UpdateExpression: aws.String(WeightedCountUpdate), ConditionExpression: aws.String(condition),
		ExpressionAttributeNames: names, ExpressionAttributeValues: values,
	}}
}

// acquireBy is the counter's half of an acquire or admission of weight w.
func (c *Client) acquireBy(lock string, ctr counter, configured, w int) types.TransactWriteItem {
	if w == 1 && !ctr.weighted {
		return c.countUp(lock, configured)
	}
	return c.countBy(lock, ctr, configured, w)
}

// releaseBy is the counter's half of a release of weight w.
func (c *Client) releaseBy(lock string, ctr counter, w int) types.TransactWriteItem {
	if w == 1 && !ctr.weighted {
		return c.countDown(lock)
	}
	return c.countBy(lock, ctr, 0, -w)
}

// withWeight puts weight w on a holder or waiter item being put, when above 1.
func withWeight(item types.TransactWriteItem, w int) types.TransactWriteItem {
	if w > 1 && item.Put != nil {
		item.Put.Item[AttributeWeight] = num(int64(w))
	}
	return item
}

// holderWeight reads the weight of execution's holder item, 1 when it has none (or is gone).
func (c *Client) holderWeight(ctx context.Context, lock, execution string) (int, error) {
	out, err := c.ddb.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(c.table), Key: HolderKey(lock, execution), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return 0, classify("read the weight of "+execution, err)
	}
	return weightOf(out.Item), nil
}

// markWeighted marks the counter item weighted before a heavier waiter joins the queue, so
// that the release that hands it a slot reads weights.
func (c *Client) markWeighted(ctx context.Context, lock string) error {
	_, err := c.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(c.table), Key: Key(lock, EntryLock),
		UpdateExpression:          aws.String("SET #weighted = :true"),
		ExpressionAttributeNames:  map[string]string{"#weighted": AttributeWeighted},
		ExpressionAttributeValues: map[string]types.AttributeValue{":true": &types.AttributeValueMemberBOOL{Value: true}},
	})
	if err != nil {
		return classify("mark "+lock+" weighted", err)
	}
	return nil
}

// checkWeight returns an error unless w (0 meaning 1) fits a lock of limit.
func checkWeight(w, limit int) error {
	switch {
	case w < 0:
		return fmt.Errorf("%w: a weight must be at least 1, got %d", ErrInvalidRequest, w)
	case max(w, 1) > limit:
		return fmt.Errorf("%w: weight %d, limit %d: raise the limit or lower the weight", ErrWeightAboveLimit, w, limit)
	}
	return nil
}
