package sidebyside

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/emulator"
	"github.com/turnstile-sfn/turnstile/emulator/dynamo"
)

// updateItem is the resource of the semaphore's acquire and release.
const updateItem = "arn:aws:states:::dynamodb:updateItem"

// RunDynamoDBAlone measures the ceiling of the semaphore workload: the acquire and the release
// of an uncontended execution (the two updateItem requests it sends, with the same parameters)
// sent straight to the lock table at endpoint through the emulator's DynamoDB integration, load
// "executions" C at a time, no interpreter at all. No interpreter running the semaphore
// workload against this DynamoDB Local can be faster.
func RunDynamoDBAlone(ctx context.Context, endpoint, table string, limit int, load Load) (Result, error) {
	if err := load.check(); err != nil {
		return Result{}, err
	}
	in, err := dynamo.New(endpoint)
	if err != nil {
		return Result{}, fmt.Errorf("sidebyside: %w", err)
	}
	key := map[string]any{machines.AttributeLockName: map[string]any{"S": SemaphoreLock}}
	pair := func(i int) error {
		holder := fmt.Sprintf("arn:aws:states:%s:%s:execution:%s:run-%d", emulator.DefaultRegion, emulator.DefaultAccount, SemaphoreName, i)
		acquire := map[string]any{
			"TableName":           table,
			"Key":                 key,
			"UpdateExpression":    machines.AcquireUpdateExpression,
			"ConditionExpression": machines.AcquireConditionExpression,
			"ExpressionAttributeNames": map[string]any{
				"#count": machines.AttributeHolderCount, "#holder": holder, "#queue": machines.AttributeQueue,
			},
			"ExpressionAttributeValues": map[string]any{
				":limit": map[string]any{"N": strconv.Itoa(limit)}, ":now": map[string]any{"S": "2026-01-01T00:00:00.000Z"},
				":one": map[string]any{"N": "1"}, ":zero": map[string]any{"N": "0"},
			},
		}
		release := map[string]any{
			"TableName":                 table,
			"Key":                       key,
			"UpdateExpression":          machines.ReleaseUpdateExpression,
			"ConditionExpression":       machines.ReleaseConditionExpression,
			"ExpressionAttributeNames":  map[string]any{"#count": machines.AttributeHolderCount, "#holder": holder},
			"ExpressionAttributeValues": map[string]any{":one": map[string]any{"N": "1"}},
		}
		for _, params := range []map[string]any{acquire, release} {
			if _, err := in.Invoke(ctx, updateItem, params); err != nil {
				return fmt.Errorf("sidebyside: DynamoDB alone, execution %d: %w", i, err)
			}
		}
		return nil
	}
	r, err := runConcurrently(load, pair)
	r.DynamoDBRequests = 2 * int64(load.Executions)
	return r, err
}

// runConcurrently calls run(0) to run(load.Executions-1), load.Concurrency at a time, and returns
// their timing as a Result (executions, wall-clock and CPU seconds, executions per second), or the
// first error (the calls not yet begun are then skipped).
func runConcurrently(load Load, run func(i int) error) (Result, error) {
	var err error
	var (
		next    atomic.Int64
		errOnce sync.Once
		wg      sync.WaitGroup
	)
	cpu, start := processCPU(), time.Now()
	for range min(load.Concurrency, load.Executions) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < load.Executions; i = int(next.Add(1) - 1) {
				if e := run(i); e != nil {
					errOnce.Do(func() { err = e })
					next.Store(int64(load.Executions))
					return
				}
			}
		})
	}
	wg.Wait()
	if err != nil {
		return Result{}, err
	}
	seconds := time.Since(start).Seconds()
	return Result{
		Executions:          load.Executions,
		Seconds:             seconds,
		ExecutionsPerSecond: float64(load.Executions) / seconds,
		CPUSeconds:          (processCPU() - cpu).Seconds(),
	}, nil
}
