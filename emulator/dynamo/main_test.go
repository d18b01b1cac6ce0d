package dynamo

import (
	"errors"
	"os"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/emulator/ddblocal/ddblocaltest"
)

// One DynamoDB Local serves every test of the package; each test works in tables of its own.
var server ddblocaltest.Server

func TestMain(m *testing.M) { os.Exit(ddblocaltest.Main(m, &server)) }

// newIntegration returns an Integration for the test server, skipping the test without one.
func newIntegration(tb testing.TB) *Integration {
	tb.Helper()
	server.SkipIfMissing(tb)
	in, err := New(server.Endpoint)
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	return in
}

// createTable creates a table named after the test, keyed by the string attribute "pk" and, when
// withSortKey, the string attribute "sk". It is deleted when the test ends.
func createTable(tb testing.TB, withSortKey bool) string { return server.CreateTable(tb, withSortKey) }

// itemCount counts the items of a table with a consistent scan.
func itemCount(tb testing.TB, table string) int32 {
	tb.Helper()
	out, err := server.Client.Scan(tb.Context(), &dynamodb.ScanInput{
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
