package ratelimit

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/turnstile-sfn/turnstile/emulator/ddblocal"
	"github.com/turnstile-sfn/turnstile/emulator/ddblocal/ddblocaltest"
	"github.com/turnstile-sfn/turnstile/internal/faultproxy"
)

// The tests share one DynamoDB API server; each test works in a lock table of its own.
var server ddblocaltest.Server

func TestMain(m *testing.M) { os.Exit(ddblocaltest.Main(m, &server)) }

// newTable creates a lock table for the test (deleted after it) and returns it as a Table.
func newTable(t *testing.T) Table {
	t.Helper()
	return Table{Client: server.Client, Name: server.CreateLockTable(t), SortKeyAttribute: "Entry"}
}

// faultyClient is a client of the test server through a fault proxy that loses the replies of
// the given fraction of UpdateItem requests after applying them. Its retryer has no retry
// quota, so that every lost reply is retried, and short backoffs.
func faultyClient(t *testing.T, lost float64) (*dynamodb.Client, *faultproxy.Proxy) {
	t.Helper()
	proxy, err := faultproxy.Start(server.Endpoint, faultproxy.Config{Seed: 7, AppliedReplyLost: lost, Operations: []string{"UpdateItem"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = proxy.Close() })
	client, err := ddblocal.NewClient(t.Context(), proxy.URL(), func(o *dynamodb.Options) {
		o.Retryer = retry.NewStandard(func(o *retry.StandardOptions) {
			o.RateLimiter = ratelimit.None
			o.MaxAttempts = 10
			o.Backoff = retry.NewExponentialJitterBackoff(10 * time.Millisecond)
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return client, proxy
}

// fakeClock is a Clock that moves only when told to, or by the duration of a Sleep.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

// newFakeClock returns a fake clock at the real time, so that context deadlines set from it
// do not expire at once.
func newFakeClock() *fakeClock { return &fakeClock{now: time.Now()} }

// Now returns the fake time.
func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the fake time forward by d.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Sleep advances the fake time by d at once.
func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if d > 0 {
		c.Advance(d)
	}
	return ctx.Err()
}
