package runner

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/turnstile-sfn/turnstile/asl/machines"
)

// LockItem is one lock as the table holds it.
type LockItem struct {
	// Name is the lock name (the item's partition key).
	Name string `json:"name"`
	// Count is the holder counter.
	Count int `json:"count"`
	// Holders are the holder attributes (execution ARNs), sorted.
	Holders []string `json:"holders"`
	// Waiting are the executions still in the lock's wait queue (Callback strategy).
	Waiting []string `json:"waiting,omitempty"`
}

// Leaked is the number of slots the item still holds: the larger of its counter and its
// number of holders (they differ only when the invariant is broken).
func (l LockItem) Leaked() int { return max(l.Count, len(l.Holders)) }

// settledLocks reads the lock table until no slot is held or cfg.SettleTimeout passes, and
// returns the last reading. Cleanup of failed executions runs asynchronously, so the first
// reading after the last execution ended may still show their slots.
func (r *Runner) settledLocks(ctx context.Context, cfg Config) ([]LockItem, error) {
	deadline := time.Now().Add(time.Duration(cfg.SettleTimeout))
	for {
		locks, err := r.scanLocks(ctx, cfg)
		if err != nil {
			return nil, err
		}
		held := 0
		for _, l := range locks {
			held += l.Leaked() + len(l.Waiting)
		}
		if held == 0 || time.Now().After(deadline) {
			return locks, nil
		}
		select {
		case <-ctx.Done():
			return locks, nil
		case <-time.After(time.Duration(cfg.PollInterval)):
		}
	}
}

// scanLocks reads every item of the lock table with a strongly consistent scan.
func (r *Runner) scanLocks(ctx context.Context, cfg Config) ([]LockItem, error) {
	var locks []LockItem
	p := dynamodb.NewScanPaginator(r.DynamoDB, &dynamodb.ScanInput{
		TableName:      aws.String(cfg.LockTable),
		ConsistentRead: aws.Bool(true),
	})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("testrunner: scan lock table %s: %w", cfg.LockTable, err)
		}
		for _, item := range page.Items {
			l, err := lockItemOf(item, cfg.CountAttribute)
			if err != nil {
				return nil, err
			}
			locks = append(locks, l)
		}
	}
	sort.Slice(locks, func(i, j int) bool { return locks[i].Name < locks[j].Name })
	return locks, nil
}

// lockItemOf reads a lock item: the key, the counter, the holders (machines.IsHolderAttribute)
// and the wait queue.
func lockItemOf(item map[string]ddbtypes.AttributeValue, countAttr string) (LockItem, error) {
	var l LockItem
	if s, ok := item[LockNameKey].(*ddbtypes.AttributeValueMemberS); ok {
		l.Name = s.Value
	}
	if n, ok := item[countAttr].(*ddbtypes.AttributeValueMemberN); ok {
		c, err := strconv.Atoi(n.Value)
		if err != nil {
			return l, fmt.Errorf("testrunner: lock %q: counter %q is not an integer", l.Name, n.Value)
		}
		l.Count = c
	}
	for k, v := range item {
		switch {
		case machines.IsHolderAttribute(k):
			l.Holders = append(l.Holders, k)
		case k == machines.AttributeQueue:
			if list, ok := v.(*ddbtypes.AttributeValueMemberL); ok {
				for _, e := range list.Value {
					if s, ok := e.(*ddbtypes.AttributeValueMemberS); ok {
						l.Waiting = append(l.Waiting, s.Value)
					}
				}
			}
		}
	}
	sort.Strings(l.Holders)
	return l, nil
}
