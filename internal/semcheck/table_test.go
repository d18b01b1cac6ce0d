package semcheck_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/turnstile-sfn/turnstile/asl/machines"
)

var tablesCreated atomic.Int64

// createLockTable creates an active lock table (keyed as the Semaphore construct keys it),
// deleted after the test.
func createLockTable(t *testing.T) string {
	t.Helper()
	client := server.Client
	name := fmt.Sprintf("locks-%d", tablesCreated.Add(1))
	_, err := client.CreateTable(t.Context(), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String(machines.AttributeLockName), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String(machines.AttributeLockName), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	waiter := dynamodb.NewTableExistsWaiter(client, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay, o.MaxDelay = 5*time.Millisecond, 50*time.Millisecond
	})
	if err := waiter.Wait(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String(name)}, 10*time.Second); err != nil {
		t.Fatalf("wait for table: %v", err)
	}
	t.Cleanup(func() {
		if _, err := client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)}); err != nil {
			t.Errorf("DeleteTable: %v", err)
		}
	})
	return name
}
