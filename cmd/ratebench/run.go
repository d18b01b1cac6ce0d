package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/time/rate"

	"github.com/turnstile-sfn/turnstile/emulator/ddblocal"
	"github.com/turnstile-sfn/turnstile/internal/faultproxy"
	rl "github.com/turnstile-sfn/turnstile/ratelimit"
)

// The modes.
const (
	modeExact    = "exact"
	modeLeased   = "leased"
	modeAdaptive = "adaptive"
)

// result is what one mode's run produced.
type result struct {
	mode       string
	start, end time.Time
	grants     []time.Time // when each permit was due, sorted
	woke       []time.Time // when each permit's client woke up, sorted
	counts     rl.Counts   // the DynamoDB requests of all the clients
	errors     int         // Wait errors other than the end of the run
	leave      time.Time   // adaptive: when the churn clients left (zero: no churn)
	join       time.Time   // adaptive: when the churn clients joined
	lost       int64       // replies lost by the fault proxy
}

// clientClock is one client's clock: the real clock, remembering when its last Sleep was due
// to end, i.e. when the limiter meant the permit to be used.
type clientClock struct {
	mu  sync.Mutex
	due time.Time
}

// Now returns time.Now().
func (c *clientClock) Now() time.Time { return time.Now() }

// Sleep records when the sleep is due to end and sleeps.
func (c *clientClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.due = time.Now().Add(max(d, 0))
	c.mu.Unlock()
	return rl.SystemClock{}.Sleep(ctx, d)
}

// lastDue is when the last sleep was due to end.
func (c *clientClock) lastDue() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.due
}

// recorder collects the grant times of all the clients: when each permit was due (the end of
// the limiter's sleep) and when its client actually ran (later, by the scheduling delay of a
// loaded machine).
type recorder struct {
	mu     sync.Mutex
	due    []time.Time
	woke   []time.Time
	errors int
}

// take loops wait until ctx is done, recording each grant.
func (r *recorder) take(ctx context.Context, clock *clientClock, wait func(context.Context) error) {
	for ctx.Err() == nil {
		err := wait(ctx)
		now := time.Now()
		r.mu.Lock()
		switch {
		case err == nil:
			r.due = append(r.due, clock.lastDue())
			r.woke = append(r.woke, now)
		case ctx.Err() == nil:
			r.errors++
		}
		r.mu.Unlock()
		if err != nil && ctx.Err() == nil {
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// newClient returns a DynamoDB client of the endpoint with a connection pool for many
// concurrent clients and a retryer without retry quota (lost replies are retried), and the
// fault proxy in between when replies are to be lost.
func newClient(ctx context.Context, endpoint string, replyLost float64) (*dynamodb.Client, *faultproxy.Proxy, error) {
	var proxy *faultproxy.Proxy
	if replyLost > 0 {
		var err error
		if proxy, err = faultproxy.Start(endpoint, faultproxy.Config{Seed: 1, AppliedReplyLost: replyLost}); err != nil {
			return nil, nil, err
		}
		endpoint = proxy.URL()
	}
	client, err := ddblocal.NewClient(ctx, endpoint, func(o *dynamodb.Options) {
		o.HTTPClient = awshttp.NewBuildableClient().WithTransportOptions(func(t *http.Transport) {
			t.MaxIdleConnsPerHost = 128
			t.IdleConnTimeout = 4 * time.Second
		})
		o.Retryer = retry.NewStandard(func(o *retry.StandardOptions) {
			o.RateLimiter = ratelimit.None
			o.MaxAttempts = 10
			o.Backoff = retry.NewExponentialJitterBackoff(100 * time.Millisecond)
		})
	})
	if err != nil && proxy != nil {
		err = errors.Join(err, proxy.Close())
	}
	return client, proxy, err
}

// createTable creates a lock table (key LockName) and returns its name and a function that
// deletes it.
func createTable(ctx context.Context, client *dynamodb.Client, mode string) (string, func() error, error) {
	name := fmt.Sprintf("ratebench-%s-%d", mode, time.Now().UnixNano())
	_, err := client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String(rl.DefaultKeyAttribute), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String(rl.DefaultKeyAttribute), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		return "", nil, err
	}
	waiter := dynamodb.NewTableExistsWaiter(client, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay, o.MaxDelay = 10*time.Millisecond, 100*time.Millisecond
	})
	if err := waiter.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, 30*time.Second); err != nil {
		return "", nil, err
	}
	return name, func() error {
		_, err := client.DeleteTable(context.WithoutCancel(ctx), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		return err
	}, nil
}

// runMode runs one mode for o.duration and returns what it measured.
func runMode(ctx context.Context, o options, mode string) (res result, err error) {
	direct, _, err := newClient(ctx, o.endpoint, 0)
	if err != nil {
		return result{}, err
	}
	name, drop, err := createTable(ctx, direct, mode)
	if err != nil {
		return result{}, err
	}
	defer func() { err = errors.Join(err, drop()) }()
	client, proxy, err := newClient(ctx, o.endpoint, o.replyLost)
	if err != nil {
		return result{}, err
	}
	if proxy != nil {
		defer func() { err = errors.Join(err, proxy.Close()) }()
	}
	table := rl.Table{Client: client, Name: name}
	res = result{mode: mode}
	var rec recorder
	if mode == modeAdaptive {
		err = runAdaptive(ctx, o, table, &rec, &res)
	} else {
		err = runGCRA(ctx, o, table, mode, &rec, &res)
	}
	if err != nil {
		return result{}, err
	}
	res.grants, res.woke, res.errors = rec.due, rec.woke, rec.errors
	slices.SortFunc(res.grants, time.Time.Compare)
	slices.SortFunc(res.woke, time.Time.Compare)
	if proxy != nil {
		res.lost = proxy.Stats().AppliedReplyLost
	}
	return res, nil
}

// runGCRA runs the exact or the leased mode.
func runGCRA(ctx context.Context, o options, table rl.Table, mode string, rec *recorder, res *result) error {
	lease := 1
	if mode == modeLeased {
		lease = o.lease
	}
	var limiters []*rl.Limiter
	var clocks []*clientClock
	for range o.clients {
		clock := &clientClock{}
		l, err := rl.New(rl.Config{Table: table, Name: "bench", Limit: rate.Limit(o.target), Burst: o.burst, Lease: lease, Lookahead: o.lookahead, Clock: clock})
		if err != nil {
			return err
		}
		limiters, clocks = append(limiters, l), append(clocks, clock)
	}
	res.start = time.Now()
	res.end = res.start.Add(o.duration)
	runCtx, cancel := runUntil(ctx, res.end)
	defer cancel()
	var wg sync.WaitGroup
	for i, l := range limiters {
		wg.Go(func() { rec.take(runCtx, clocks[i], l.Wait) })
	}
	wg.Wait()
	for _, l := range limiters {
		res.counts = add(res.counts, l.Counts())
	}
	return ctx.Err()
}

// runAdaptive runs the adaptive mode: o.clients clients, o.churn of which leave at a third of
// the run and o.churn new ones join at two thirds.
func runAdaptive(ctx context.Context, o options, table rl.Table, rec *recorder, res *result) error {
	type client struct {
		a    *rl.Adaptive
		stop context.CancelFunc
		done chan struct{}
	}
	var mu sync.Mutex
	var closed rl.Counts
	start := func(runCtx context.Context) (*client, error) {
		clock := &clientClock{}
		a, err := rl.NewAdaptive(ctx, rl.AdaptiveConfig{Table: table, Name: "bench", Target: rate.Limit(o.target), Burst: o.burst, SyncInterval: o.sync, Clock: clock})
		if err != nil {
			return nil, err
		}
		cctx, stop := context.WithCancel(runCtx)
		c := &client{a: a, stop: stop, done: make(chan struct{})}
		go func() { defer close(c.done); rec.take(cctx, clock, a.Wait) }()
		return c, nil
	}
	finish := func(c *client) error {
		c.stop()
		<-c.done
		err := c.a.Close(context.WithoutCancel(ctx))
		mu.Lock()
		closed = add(closed, c.a.Counts())
		mu.Unlock()
		return err
	}
	res.start = time.Now()
	res.end = res.start.Add(o.duration)
	runCtx, cancel := runUntil(ctx, res.end)
	defer cancel()
	var clients []*client
	for range o.clients {
		c, err := start(runCtx)
		if err != nil {
			return err
		}
		clients = append(clients, c)
	}
	var errs []error
	if o.churn > 0 {
		sleepUntil(runCtx, res.start.Add(o.duration/3))
		res.leave = time.Now()
		leaving := clients[len(clients)-o.churn:]
		clients = clients[:len(clients)-o.churn]
		for _, c := range leaving {
			errs = append(errs, finish(c))
		}
		sleepUntil(runCtx, res.start.Add(2*o.duration/3))
		res.join = time.Now()
		for range o.churn {
			c, err := start(runCtx)
			if err != nil {
				return err
			}
			clients = append(clients, c)
		}
	}
	<-runCtx.Done()
	for _, c := range clients {
		errs = append(errs, finish(c))
	}
	res.counts = closed
	return errors.Join(append(errs, ctx.Err())...)
}

// runUntil returns a context cancelled at end. Not a deadline: a Wait would book no slot
// beyond it, and near the end every client would fail and retry.
func runUntil(ctx context.Context, end time.Time) (context.Context, context.CancelFunc) {
	runCtx, cancel := context.WithCancel(ctx)
	timer := time.AfterFunc(time.Until(end), cancel)
	return runCtx, func() { timer.Stop(); cancel() }
}

// sleepUntil sleeps until t or until ctx is done.
func sleepUntil(ctx context.Context, t time.Time) {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-ctx.Done():
	}
}

// add sums two Counts.
func add(a, b rl.Counts) rl.Counts {
	return rl.Counts{Writes: a.Writes + b.Writes, StrongReads: a.StrongReads + b.StrongReads,
		EventualReads: a.EventualReads + b.EventualReads, Permits: a.Permits + b.Permits}
}
