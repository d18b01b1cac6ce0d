package runner

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/turnstile-sfn/turnstile/lock"
)

// LockItem is one lock as the table holds it.
type LockItem struct {
	// Name is the lock name (its partition key).
	Name string `json:"name"`
	// Count is the holder counter.
	Count int `json:"count"`
	// Holders are the holding executions, sorted.
	Holders []string `json:"holders"`
	// Waiting are the executions still in the lock's wait queue (Callback strategy).
	Waiting []string `json:"waiting,omitempty"`
}

// Leaked is the number of slots the lock still holds: the larger of its counter and its
// number of holder items (they differ only when the invariant is broken).
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

// scanLocks finds the locks of the table (LockNames) and reads each whole (lock.Client.Read).
func (r *Runner) scanLocks(ctx context.Context, cfg Config) ([]LockItem, error) {
	reader, err := lock.New(cfg.LockTable, r.DynamoDB, nil)
	if err != nil {
		return nil, err
	}
	names, err := LockNames(ctx, r.DynamoDB, cfg.LockTable)
	if err != nil {
		return nil, err
	}
	var locks []LockItem
	for _, name := range names {
		st, err := reader.Read(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("testrunner: %w", err)
		}
		locks = append(locks, lockItemOf(name, st))
	}
	return locks, nil
}

// LockNames lists the locks of a lock table, sorted: the names of its counter items, found with
// a strongly consistent scan (it reads the whole table: for inspection, not for the operations).
func LockNames(ctx context.Context, ddb dynamodb.ScanAPIClient, table string) ([]string, error) {
	var names []string
	p := dynamodb.NewScanPaginator(ddb, &dynamodb.ScanInput{
		TableName:                 aws.String(table),
		ConsistentRead:            aws.Bool(true),
		FilterExpression:          aws.String("#entry = :lock"),
		ExpressionAttributeNames:  map[string]string{"#entry": lock.AttributeEntry},
		ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":lock": &ddbtypes.AttributeValueMemberS{Value: lock.EntryLock}},
	})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("testrunner: scan lock table %s: %w", table, err)
		}
		for _, item := range page.Items {
			if name, ok := item[lock.AttributeLockName].(*ddbtypes.AttributeValueMemberS); ok {
				names = append(names, name.Value)
			}
		}
	}
	sort.Strings(names)
	return names, nil
}

// lockItemOf summarises a lock as read.
func lockItemOf(name string, st lock.State) LockItem {
	l := LockItem{Name: name, Count: st.Count}
	for _, h := range st.Holders {
		l.Holders = append(l.Holders, h.Execution)
	}
	for _, w := range st.Waiters {
		l.Waiting = append(l.Waiting, w.Execution)
	}
	return l
}
