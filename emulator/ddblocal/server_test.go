package ddblocal

import (
	"context"
	"errors"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// startServer starts DynamoDB Local with opts for one test, skipping the test when the tooling is
// not installed, and closes it when the test ends.
func startServer(t *testing.T, opts Options) *Server {
	t.Helper()
	srv, err := Start(t.Context(), opts)
	if errors.Is(err, ErrNotInstalled) || errors.Is(err, ErrJavaMissing) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return srv
}

// createLocksTable creates the table "Locks", keyed by the string LockName, and waits until it is
// active.
func createLocksTable(t *testing.T, client *dynamodb.Client) {
	t.Helper()
	ctx := t.Context()
	_, err := client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("Locks"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("LockName"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("LockName"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	waiter := dynamodb.NewTableExistsWaiter(client, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay, o.MaxDelay = 5*time.Millisecond, 50*time.Millisecond
	})
	if err := waiter.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Locks")}, 10*time.Second); err != nil {
		t.Fatalf("wait for the table: %v", err)
	}
}

// tables lists the tables a client signing with the access key id and region sees on srv.
func tables(t *testing.T, srv *Server, id, region string) []string {
	t.Helper()
	client, err := NewClient(t.Context(), srv.Endpoint(), WithAccessKey(id, region))
	if err != nil {
		t.Fatal(err)
	}
	out, err := client.ListTables(t.Context(), &dynamodb.ListTablesInput{})
	if err != nil {
		t.Fatalf("ListTables as %s in %s: %v", id, region, err)
	}
	return out.TableNames
}

func TestStartServesDynamoDBAPI(t *testing.T) {
	srv := startServer(t, Options{})
	if got, want := srv.Endpoint(), `^http://127\.0\.0\.1:\d+$`; !regexp.MustCompile(want).MatchString(got) {
		t.Fatalf("Endpoint() = %q, want a match of %s", got, want)
	}
	ctx := t.Context()
	client, err := NewClient(ctx, srv.Endpoint())
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	createLocksTable(t, client)
	// One database for every access key and region (-sharedDb).
	if got := tables(t, srv, "other", "eu-west-1"); !slices.Equal(got, []string{"Locks"}) {
		t.Errorf("another access key and region see tables %v, want [Locks]", got)
	}
	key := map[string]types.AttributeValue{"LockName": &types.AttributeValueMemberS{Value: "demo"}}
	_, err = client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String("Locks"),
		Item:      map[string]types.AttributeValue{"LockName": key["LockName"], "count": &types.AttributeValueMemberN{Value: "3"}},
	})
	if err != nil {
		t.Fatalf("PutItem: %v", err)
	}
	out, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Locks"), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatalf("GetItem: %v", err)
	}
	count, ok := out.Item["count"].(*types.AttributeValueMemberN)
	if !ok || count.Value != "3" {
		t.Fatalf("GetItem count = %#v, want N 3", out.Item["count"])
	}
}

func TestDatabasePerAccessKey(t *testing.T) {
	srv := startServer(t, Options{DatabasePerAccessKey: true})
	if !srv.DatabasePerAccessKey() {
		t.Fatal("DatabasePerAccessKey() = false, want true")
	}
	client, err := NewClient(t.Context(), srv.Endpoint(), WithAccessKey("stack1", ClientRegion))
	if err != nil {
		t.Fatal(err)
	}
	createLocksTable(t, client)
	for _, tt := range []struct {
		id, region string
		want       []string
	}{
		{"stack1", ClientRegion, []string{"Locks"}},
		{"stack2", ClientRegion, nil},
		{ClientAccessKeyID, ClientRegion, nil},
		{"stack1", "eu-west-1", nil},
	} {
		if got := tables(t, srv, tt.id, tt.region); !slices.Equal(got, tt.want) {
			t.Errorf("access key %s in %s sees tables %v, want %v", tt.id, tt.region, got, tt.want)
		}
	}
}

func TestStartRetriesWhenThePortIsTaken(t *testing.T) {
	tl, err := locateTools(Options{})
	if errors.Is(err, ErrNotInstalled) || errors.Is(err, ErrJavaMissing) {
		t.Skip(err)
	}
	tests := []struct {
		name  string
		serve bool // the taken port answers ListTables in DynamoDB Local's place
	}{
		{name: "by a silent listener"},
		{name: "by a server that answers in its place", serve: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var takenPort int
			if tt.serve {
				takenPort = impostor(t)
			} else {
				taken, err := net.Listen("tcp", ":0")
				if err != nil {
					t.Fatal(err)
				}
				defer taken.Close()
				takenPort = taken.Addr().(*net.TCPAddr).Port
			}
			picks := 0
			pick := func() (int, error) {
				picks++
				if picks == 1 {
					return takenPort, nil
				}
				return freePort()
			}
			srv, err := startOnFreePort(t.Context(), tl, pick, false)
			if err != nil {
				t.Fatalf("startOnFreePort: %v", err)
			}
			defer srv.Close()
			if picks != 2 {
				t.Errorf("ports picked = %d, want 2 (the taken one, then a free one)", picks)
			}
			if got, notWant := srv.Endpoint(), "http://127.0.0.1:"+strconv.Itoa(takenPort); got == notWant {
				t.Errorf("Endpoint() = %q, the port that was taken", got)
			}
		})
	}
}

// TestStartGivesUpWhenThePortStaysTaken keeps the port taken by a server that answers in
// DynamoDB Local's place: each attempt fails as soon as the answer comes from another process,
// without waiting for the JVM (the silent listener of TestStartRetriesWhenThePortIsTaken covers
// the bind failure in the output).
func TestStartGivesUpWhenThePortStaysTaken(t *testing.T) {
	tl, err := locateTools(Options{})
	if errors.Is(err, ErrNotInstalled) || errors.Is(err, ErrJavaMissing) {
		t.Skip(err)
	}
	taken := impostor(t)
	picks := 0
	pick := func() (int, error) {
		picks++
		return taken, nil
	}
	_, err = startOnFreePort(t.Context(), tl, pick, false)
	var perr *ProcessError
	if !errors.As(err, &perr) || !errors.Is(err, ErrPortInUse) {
		t.Fatalf("error = %v, want a *ProcessError wrapping ErrPortInUse", err)
	}
	if picks != bindAttempts {
		t.Errorf("ports picked = %d, want %d", picks, bindAttempts)
	}
}

// impostor serves ListTables' reply on a free port until the test ends, and returns the port.
func impostor(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		_, _ = w.Write([]byte(`{"TableNames":[]}`))
	})}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return l.Addr().(*net.TCPAddr).Port
}

func TestStartStopsOnContextEnd(t *testing.T) {
	if _, err := locateTools(Options{}); errors.Is(err, ErrNotInstalled) || errors.Is(err, ErrJavaMissing) {
		t.Skip(err)
	}
	canceled, cancel := context.WithCancel(t.Context())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		opts Options
		want error
	}{
		{name: "caller canceled", ctx: canceled, want: context.Canceled},
		{name: "start timeout", ctx: t.Context(), opts: Options{StartTimeout: 1}, want: ErrStartTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, err := Start(tt.ctx, tt.opts)
			var perr *ProcessError
			if srv != nil || !errors.As(err, &perr) || !errors.Is(err, tt.want) {
				t.Fatalf("Start = %v, %v; want no server and a *ProcessError wrapping %v", srv, err, tt.want)
			}
			if perr.Exit == nil {
				t.Errorf("ProcessError.Exit = nil, want the exit status of the stopped process")
			}
		})
	}
}

func TestStartOnAFixedPort(t *testing.T) {
	if _, err := locateTools(Options{}); errors.Is(err, ErrNotInstalled) || errors.Is(err, ErrJavaMissing) {
		t.Skip(err)
	}
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := Start(t.Context(), Options{Port: port})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer srv.Close()
	if want := "http://127.0.0.1:" + strconv.Itoa(port); srv.Endpoint() != want {
		t.Errorf("Endpoint() = %q, want %q", srv.Endpoint(), want)
	}
	client, err := NewClient(t.Context(), srv.Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.ListTables(t.Context(), &dynamodb.ListTablesInput{}); err != nil {
		t.Errorf("ListTables: %v", err)
	}
}

func TestStartOnAFixedPortTakenFails(t *testing.T) {
	if _, err := locateTools(Options{}); errors.Is(err, ErrNotInstalled) || errors.Is(err, ErrJavaMissing) {
		t.Skip(err)
	}
	_, err := Start(t.Context(), Options{Port: impostor(t)})
	if !errors.Is(err, ErrPortInUse) {
		t.Fatalf("error = %v, want ErrPortInUse", err)
	}
}

func TestStartRefusesAPortOutOfRange(t *testing.T) {
	for _, port := range []int{-1, 65536} {
		if _, err := Start(t.Context(), Options{Port: port}); !errors.Is(err, ErrInvalidPort) {
			t.Errorf("Port %d: error = %v, want ErrInvalidPort", port, err)
		}
	}
}
