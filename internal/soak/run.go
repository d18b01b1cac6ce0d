package soak

import (
	"context"
	"errors"
	"fmt"

	"github.com/turnstile-sfn/turnstile/emulator/ddblocal"
	"github.com/turnstile-sfn/turnstile/emulator/dynamo"
	"github.com/turnstile-sfn/turnstile/internal/faultproxy"
	"github.com/turnstile-sfn/turnstile/lock"
)

// Run runs the soak cfg describes against the DynamoDB API server at endpoint (DynamoDB Local's, e.g.
// "http://127.0.0.1:8000"), one seed after the other, and returns the figures of every seed
// added up. An error means the soak could not run (a bad config, a server error), not that a
// check failed: see Report.Failures.
func Run(ctx context.Context, endpoint string, cfg Config) (report Report, err error) {
	if err := cfg.Validate(); err != nil {
		return Report{}, err
	}
	// The reconciler's requests pass a proxy that injects no fault, only to count their
	// capacity.
	counting, err := faultproxy.Start(endpoint, faultproxy.Config{})
	if err != nil {
		return Report{}, err
	}
	defer func() {
		err = errors.Join(err, counting.Close())
		report.Capacity.Add(counting.Stats().Capacity())
	}()
	client, err := ddblocal.NewClient(ctx, counting.URL())
	if err != nil {
		return Report{}, fmt.Errorf("soak: client: %w", err)
	}
	var total Report
	for i := range cfg.Seeds {
		seed := cfg.FirstSeed + uint64(i)
		run := runSeed
		if cfg.Strategy == StrategyCallback {
			run = runQueueSeed
		}
		report, err := run(ctx, cfg, seed, endpoint, recordingDynamoDB{Client: client, client: reconcilerClient})
		if err != nil {
			return total, fmt.Errorf("soak: seed %d: %w", seed, err)
		}
		total.add(report)
	}
	return total, nil
}

// runSeed runs one seed against a fresh lock table behind a fresh fault proxy.
func runSeed(ctx context.Context, cfg Config, seed uint64, endpoint string, ddb recordingDynamoDB) (report Report, err error) {
	table, err := createLockTable(ctx, ddb.Client, seed)
	if err != nil {
		return Report{}, err
	}
	defer func() { err = errors.Join(err, deleteTable(context.WithoutCancel(ctx), ddb.Client, table)) }()
	proxy, err := faultproxy.Start(endpoint, proxyConfig(cfg, seed))
	if err != nil {
		return Report{}, err
	}
	defer func() { err = errors.Join(err, proxy.Close()) }()
	viaProxy, err := dynamo.New(proxy.URL())
	if err != nil {
		return Report{}, err
	}
	s, err := newSeedRun(cfg, seed, table, viaProxy, ddb)
	if err != nil {
		return Report{}, err
	}
	defer func() { err = errors.Join(err, s.bus.Close(context.WithoutCancel(ctx))) }()
	report, err = s.run(ctx)
	stats := proxy.Stats()
	report.Capacity = stats.Capacity()
	report.Faults.Requests = stats.Requests
	report.Faults.AppliedReplyLost = stats.AppliedReplyLost
	report.Faults.LostBefore = stats.LostBefore
	report.Faults.Throttled = stats.Throttled
	return report, err
}

// runQueueSeed runs one seed of the queue soak against a fresh lock table behind a fresh fault
// proxy (every DynamoDB operation faulted). The reconciler's client is used for the table and
// the reads past the proxy only.
func runQueueSeed(ctx context.Context, cfg Config, seed uint64, endpoint string, ddb recordingDynamoDB) (report Report, err error) {
	table, err := createLockTable(ctx, ddb.Client, seed)
	if err != nil {
		return Report{}, err
	}
	defer func() { err = errors.Join(err, deleteTable(context.WithoutCancel(ctx), ddb.Client, table)) }()
	faults := proxyConfig(cfg, seed)
	faults.Operations = nil
	proxy, err := faultproxy.Start(endpoint, faults)
	if err != nil {
		return Report{}, err
	}
	defer func() { err = errors.Join(err, proxy.Close()) }()
	direct, err := lock.New(table, ddb.Client, nil)
	if err != nil {
		return Report{}, err
	}
	q := &queueRun{
		cfg: cfg, seed: seed,
		observer: &observer{direct: direct, lockName: lockName, limit: cfg.Limit},
		board:    &wakeBoard{woken: map[string]chan struct{}{}},
	}
	clients, err := q.newQueueClients(ctx, table, proxy.URL())
	if err != nil {
		return Report{}, err
	}
	report, err = q.run(ctx, clients)
	stats := proxy.Stats()
	report.Capacity = stats.Capacity()
	report.Faults.Requests = stats.Requests
	report.Faults.AppliedReplyLost = stats.AppliedReplyLost
	report.Faults.LostBefore = stats.LostBefore
	report.Faults.Throttled = stats.Throttled
	return report, err
}
