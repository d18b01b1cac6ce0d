// Package ddblocaltest gives a test binary one shared DynamoDB Local:
//
//	var server ddblocaltest.Server
//
//	func TestMain(m *testing.M) { os.Exit(ddblocaltest.Main(m, &server)) }
//
//	func TestSomething(t *testing.T) {
//		server.SkipIfMissing(t)
//		// use server.Endpoint, or server.Client to see what really landed
//	}
//
// The server keeps a database per access key (ddblocal.Options.DatabasePerAccessKey): Endpoint
// and Client see the one of ddblocal.NewClient's default key, and each stack given Local
// (stack.Options.DynamoDB) one of its own.
package ddblocaltest

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

	"github.com/turnstile-sfn/turnstile/emulator/ddblocal"
	"github.com/turnstile-sfn/turnstile/lock"
)

// Server is the DynamoDB Local a test binary shares.
type Server struct {
	// Endpoint is its loopback URL; empty when Missing is set.
	Endpoint string
	// Client talks to it directly: an observer independent of the code under test.
	Client *dynamodb.Client
	// Local is the running server, for stacks to share (stack.Options.DynamoDB); nil when
	// Missing is set.
	Local *ddblocal.Server
	// Missing is set (wrapping ddblocal.ErrNotInstalled or ddblocal.ErrJavaMissing) when
	// DynamoDB Local or Java is not installed.
	Missing error
}

// Runner runs a package's tests and returns their exit code: a *testing.M, or a TestMain's
// wrapper of one that also stops what the tests left running (stacks on Local) before Main stops
// the server.
type Runner interface {
	Run() (code int)
}

// Main starts DynamoDB Local, runs the package's tests (m.Run) with s filled in, stops it, and
// returns the exit code for os.Exit. Without the tooling the tests still run, with s.Missing set.
func Main(m Runner, s *Server) (code int) {
	ctx := context.Background()
	srv, err := ddblocal.Start(ctx, ddblocal.Options{DatabasePerAccessKey: true})
	if errors.Is(err, ddblocal.ErrNotInstalled) || errors.Is(err, ddblocal.ErrJavaMissing) {
		s.Missing = err
		return m.Run()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "start DynamoDB Local:", err)
		return 1
	}
	defer func() {
		if err := srv.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "close DynamoDB Local:", err)
			code = 1
		}
	}()
	s.Local, s.Endpoint = srv, srv.Endpoint()
	if s.Client, err = ddblocal.NewClient(ctx, s.Endpoint); err != nil {
		fmt.Fprintln(os.Stderr, "DynamoDB Local client:", err)
		return 1
	}
	return m.Run()
}

// SkipIfMissing skips the test when DynamoDB Local or Java is not installed.
func (s *Server) SkipIfMissing(t testing.TB) {
	t.Helper()
	if s.Missing != nil {
		t.Skip(s.Missing)
	}
}

// tablesCreated numbers the tables, so that a test or benchmark run again gets a fresh one.
var tablesCreated atomic.Int64

var notTableNameChars = regexp.MustCompile(`[^a-zA-Z0-9_.-]+`)

// CreateTable creates an on-demand table named after the test, keyed by the string attribute
// "pk" and, withSortKey, the string attribute "sk"; waits until it is ACTIVE (DynamoDB may answer
// CreateTable while the table is still CREATING); deletes it when the test ends; and returns its
// name. It skips the test when DynamoDB Local is missing.
func (s *Server) CreateTable(tb testing.TB, withSortKey bool) string {
	tb.Helper()
	sortKey := ""
	if withSortKey {
		sortKey = "sk"
	}
	return s.createTable(tb, "pk", sortKey)
}

// CreateLockTable is CreateTable for a lock table, keyed as the Semaphore construct keys it
// (lock.AttributeLockName and the sort key lock.AttributeEntry).
func (s *Server) CreateLockTable(tb testing.TB) string {
	tb.Helper()
	return s.createTable(tb, lock.AttributeLockName, lock.AttributeEntry)
}

// createTable creates the table of CreateTable with the partition key partitionKey and, unless
// it is "", the sort key sortKey.
func (s *Server) createTable(tb testing.TB, partitionKey, sortKey string) string {
	tb.Helper()
	s.SkipIfMissing(tb)
	name := fmt.Sprintf("%s-%d", notTableNameChars.ReplaceAllString(tb.Name(), "_"), tablesCreated.Add(1))
	if len(name) > 255 {
		name = name[len(name)-255:]
	}
	in := &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String(partitionKey), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String(partitionKey), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	}
	if sortKey != "" {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String(sortKey), AttributeType: types.ScalarAttributeTypeS})
		in.KeySchema = append(in.KeySchema, types.KeySchemaElement{AttributeName: aws.String(sortKey), KeyType: types.KeyTypeRange})
	}
	if _, err := s.Client.CreateTable(tb.Context(), in); err != nil {
		tb.Fatalf("CreateTable %s: %v", name, err)
	}
	waiter := dynamodb.NewTableExistsWaiter(s.Client, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay, o.MaxDelay = 5*time.Millisecond, 50*time.Millisecond
	})
	if err := waiter.Wait(tb.Context(), &dynamodb.DescribeTableInput{TableName: aws.String(name)}, 10*time.Second); err != nil {
		tb.Fatalf("wait for table %s: %v", name, err)
	}
	tb.Cleanup(func() {
		if _, err := s.Client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)}); err != nil {
			tb.Errorf("DeleteTable %s: %v", name, err)
		}
	})
	return name
}
