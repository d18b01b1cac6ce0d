package soak

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/turnstile-sfn/turnstile/internal/sidebyside"
)

// tablesCreated numbers the lock tables, so that soaks sharing a server never share a table.
var tablesCreated atomic.Int64

// createLockTable creates an active lock table, keyed as the Semaphore construct keys it, and
// returns its name.
func createLockTable(ctx context.Context, client *dynamodb.Client, seed uint64) (string, error) {
	name := fmt.Sprintf("soak-%d-seed-%d", tablesCreated.Add(1), seed)
	if err := sidebyside.CreateLockTable(ctx, client, name); err != nil {
		return "", fmt.Errorf("soak: %w", err)
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
