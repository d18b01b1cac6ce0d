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
	"github.com/turnstile-sfn/turnstile/lock"
)

// RunDynamoDBAlone measures the ceiling of the semaphore workload: the acquire and the release
// transactions of an uncontended Poll execution (the two TransactWriteItems requests it sends,
// with the same expressions) sent straight to the lock table at endpoint through the emulator's
// DynamoDB integration, load "executions" C at a time, no interpreter at all. No interpreter
// running the semaphore workload against this DynamoDB Local can be faster.
func RunDynamoDBAlone(ctx context.Context, endpoint, table string, limit int, load Load) (Result, error) {
	if err := load.check(); err != nil {
		return Result{}, err
	}
	in, err := dynamo.New(endpoint)
	if err != nil {
		return Result{}, fmt.Errorf("sidebyside: %w", err)
	}
	str := func(s string) map[string]any { return map[string]any{"S": s} }
	num := func(n int) map[string]any { return map[string]any{"N": strconv.Itoa(n)} }
	counter := map[string]any{lock.AttributeLockName: str(SemaphoreLock), lock.AttributeEntry: str(lock.EntryLock)}
	pair := func(i int) error {
		holderEntry := lock.HolderEntry(fmt.Sprintf("arn:aws:states:%s:%s:execution:%s:run-%d", emulator.DefaultRegion, emulator.DefaultAccount, SemaphoreName, i))
		holder := map[string]any{lock.AttributeLockName: str(lock.HolderPartition(SemaphoreLock)), lock.AttributeEntry: str(holderEntry)}
		entryNames := map[string]any{"#entry": lock.AttributeEntry}
		acquire := map[string]any{"TransactItems": []any{
			map[string]any{"Update": map[string]any{
				"TableName": table, "Key": counter,
				"UpdateExpression": lock.AcquireCountUpdate, "ConditionExpression": lock.AcquireCountCondition,
				"ExpressionAttributeNames":  anyMap(lock.AcquireCountNames()),
				"ExpressionAttributeValues": map[string]any{":limit": num(limit), ":one": num(1), ":zero": num(0)},
			}},
			map[string]any{"Put": map[string]any{
				"TableName": table, "Item": map[string]any{lock.AttributeLockName: str(lock.HolderPartition(SemaphoreLock)), lock.AttributeEntry: str(holderEntry), lock.AttributeSince: str("2026-01-01T00:00:00.000Z")},
				"ConditionExpression": lock.ItemAbsent, "ExpressionAttributeNames": entryNames,
			}},
		}}
		release := map[string]any{"TransactItems": []any{
			map[string]any{"Update": map[string]any{
				"TableName": table, "Key": counter,
				"UpdateExpression": lock.ReleaseCountUpdate, "ConditionExpression": lock.ReleaseCountCondition,
				"ExpressionAttributeNames":  anyMap(lock.ReleaseCountNames()),
				"ExpressionAttributeValues": map[string]any{":one": num(1), ":zero": num(0)},
			}},
			map[string]any{"Delete": map[string]any{
				"TableName": table, "Key": holder, "ConditionExpression": lock.ItemPresent, "ExpressionAttributeNames": entryNames,
			}},
		}}
		for _, params := range []map[string]any{acquire, release} {
			if _, err := in.Invoke(ctx, machines.ResourceTransactWriteItems, params); err != nil {
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

// anyMap is names as the JSON object of a task's parameters.
func anyMap(names map[string]string) map[string]any {
	out := make(map[string]any, len(names))
	for k, v := range names {
		out[k] = v
	}
	return out
}
