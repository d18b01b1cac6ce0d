package dynamo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/emulator/dynalite"
)

// One dynalite serves every test of the package; each test works in tables of its own.
var (
	serverEndpoint string
	serverClient   *dynamodb.Client // an independent observer of what the integration wrote
	serverMissing  error            // set when the tooling is not installed
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

// newIntegration returns an Integration for the test server, skipping the test without one.
func newIntegration(tb testing.TB) *Integration {
	tb.Helper()
	if serverMissing != nil {
		tb.Skip(serverMissing)
	}
	in, err := New(serverEndpoint)
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	return in
}

var notTableNameChars = regexp.MustCompile(`[^a-zA-Z0-9_.-]+`)

// tablesCreated numbers the tables, so that a benchmark run again gets a fresh one.
var tablesCreated atomic.Int64

// createTable creates a table named after the test, keyed by the string attribute "pk" and, when
// withSortKey, the string attribute "sk". It is deleted when the test ends.
func createTable(tb testing.TB, withSortKey bool) string {
	tb.Helper()
	name := fmt.Sprintf("%s-%d", notTableNameChars.ReplaceAllString(tb.Name(), "_"), tablesCreated.Add(1))
	in := &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	}
	if withSortKey {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS})
		in.KeySchema = append(in.KeySchema, types.KeySchemaElement{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange})
	}
	if _, err := serverClient.CreateTable(tb.Context(), in); err != nil {
		tb.Fatalf("CreateTable %s: %v", name, err)
	}
	// As in DynamoDB, a new table is CREATING until a moment later (here, a turn of Node's event
	// loop), and item requests fail with ResourceNotFoundException until it is ACTIVE.
	waiter := dynamodb.NewTableExistsWaiter(serverClient, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay, o.MaxDelay = 5*time.Millisecond, 50*time.Millisecond
	})
	if err := waiter.Wait(tb.Context(), &dynamodb.DescribeTableInput{TableName: aws.String(name)}, 10*time.Second); err != nil {
		tb.Fatalf("wait for table %s: %v", name, err)
	}
	tb.Cleanup(func() {
		if _, err := serverClient.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)}); err != nil {
			tb.Errorf("DeleteTable %s: %v", name, err)
		}
	})
	return name
}

// itemCount counts the items of a table with a consistent scan.
func itemCount(tb testing.TB, table string) int32 {
	tb.Helper()
	out, err := serverClient.Scan(tb.Context(), &dynamodb.ScanInput{
		TableName: aws.String(table), Select: types.SelectCount, ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		tb.Fatalf("Scan %s: %v", table, err)
	}
	return out.Count
}

// invoke runs a task that must succeed and returns its result as a JSON object.
func invoke(tb testing.TB, in *Integration, resource string, params map[string]any) map[string]any {
	tb.Helper()
	got, err := in.Invoke(tb.Context(), resource, params)
	if err != nil {
		tb.Fatalf("Invoke(%s): %v", resource, err)
	}
	result, ok := got.(map[string]any)
	if !ok {
		tb.Fatalf("Invoke(%s) = %T, want map[string]any", resource, got)
	}
	return result
}

// taskFailure returns the *asl.Error that err is or wraps, failing the test if there is none.
func taskFailure(tb testing.TB, err error) *asl.Error {
	tb.Helper()
	var failure *asl.Error
	if !errors.As(err, &failure) {
		tb.Fatalf("error = %v (%T), want an *asl.Error", err, err)
	}
	return failure
}

// s and n build string and number attribute values in the DynamoDB JSON shape.
func s(v string) map[string]any { return map[string]any{"S": v} }
func n(v string) map[string]any { return map[string]any{"N": v} }
