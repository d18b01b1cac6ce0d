package faultproxy_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/turnstile-sfn/turnstile/emulator/dynalite"
)

// One dynalite serves every test of the package; each test works in a table of its own.
var (
	serverEndpoint string
	serverClient   *dynamodb.Client // talks to dynalite directly: sees what really landed
	serverMissing  error
)

func TestMain(m *testing.M) { os.Exit(runTests(m)) }

func runTests(m *testing.M) (code int) {
	ctx := context.Background()
	srv, err := dynalite.Start(ctx, dynalite.Options{})
	if errors.Is(err, dynalite.ErrNotInstalled) {
		serverMissing = err
		return m.Run()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "start dynalite:", err)
		return 1
	}
	defer func() {
		if err := srv.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "close dynalite:", err)
			code = 1
		}
	}()
	serverEndpoint = srv.Endpoint()
	if serverClient, err = dynalite.NewClient(ctx, serverEndpoint); err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		return 1
	}
	return m.Run()
}

var tablesCreated atomic.Int64

// createTable creates an active table keyed by the string attribute "pk", deleted after the test.
func createTable(tb testing.TB) string {
	tb.Helper()
	if serverMissing != nil {
		tb.Skip(serverMissing)
	}
	name := fmt.Sprintf("faultproxy-%d", tablesCreated.Add(1))
	_, err := serverClient.CreateTable(tb.Context(), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		tb.Fatalf("CreateTable: %v", err)
	}
	waiter := dynamodb.NewTableExistsWaiter(serverClient, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay, o.MaxDelay = 5*time.Millisecond, 50*time.Millisecond
	})
	if err := waiter.Wait(tb.Context(), &dynamodb.DescribeTableInput{TableName: aws.String(name)}, 10*time.Second); err != nil {
		tb.Fatalf("wait for table: %v", err)
	}
	tb.Cleanup(func() {
		if _, err := serverClient.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)}); err != nil {
			tb.Errorf("DeleteTable: %v", err)
		}
	})
	return name
}
