package sidebyside

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/turnstile-sfn/turnstile/lock"
)

// CreateLockTable creates an on-demand lock table named name, keyed as the Semaphore construct
// keys it (lock.AttributeLockName and lock.AttributeEntry), and waits until it is ACTIVE.
func CreateLockTable(ctx context.Context, client *dynamodb.Client, name string) error {
	_, err := client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String(lock.AttributeLockName), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String(lock.AttributeEntry), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String(lock.AttributeLockName), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(lock.AttributeEntry), KeyType: types.KeyTypeRange},
		},
		BillingMode: types.BillingModePayPerRequest,
	})
	if err != nil {
		return fmt.Errorf("sidebyside: create table %s: %w", name, err)
	}
	waiter := dynamodb.NewTableExistsWaiter(client, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay, o.MaxDelay = 5*time.Millisecond, 50*time.Millisecond
	})
	if err := waiter.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, 10*time.Second); err != nil {
		return fmt.Errorf("sidebyside: wait for table %s: %w", name, err)
	}
	return nil
}
