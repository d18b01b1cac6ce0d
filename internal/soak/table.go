package soak

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/turnstile-sfn/turnstile/asl/machines"
)

// tablesCreated numbers the lock tables, so that soaks sharing a server never share a table.
var tablesCreated atomic.Int64

// tableWait bounds the wait for a new table to become active.
const tableWait = 30 * time.Second

// createLockTable creates an active lock table, keyed as the Semaphore construct keys it, and
// returns its name.
func createLockTable(ctx context.Context, client *dynamodb.Client, seed uint64) (string, error) {
	name := fmt.Sprintf("soak-%d-seed-%d", tablesCreated.Add(1), seed)
	_, err := client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String(machines.AttributeLockName), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String(machines.AttributeLockName), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		return "", fmt.Errorf("soak: create table %s: %w", name, err)
	}
	waiter := dynamodb.NewTableExistsWaiter(client, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay, o.MaxDelay = 5*time.Millisecond, 50*time.Millisecond
	})
	if err := waiter.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, tableWait); err != nil {
		return "", fmt.Errorf("soak: wait for table %s: %w", name, err)
	}
	return name, nil
}

// deleteTable deletes a lock table.
func deleteTable(ctx context.Context, client *dynamodb.Client, name string) error {
	if _, err := client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)}); err != nil {
		return fmt.Errorf("soak: delete table %s: %w", name, err)
	}
	return nil
}
