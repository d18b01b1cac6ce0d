package ratelimit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/time/rate"
)

// Defaults of AdaptiveConfig.
const (
	// DefaultSyncInterval is how often a client reports and rescales, as in the AWS blog post
	// the adaptive mode follows.
	DefaultSyncInterval = 5 * time.Second
	// DefaultSmoothing moves the local limit 40 % of the way to its new value per sync.
	DefaultSmoothing = 0.4
	// DefaultStaleSyncs is how many sync intervals a report stays counted without a refresh.
	DefaultStaleSyncs = 3
	// MaxScaleUp is the most one sync scales a local limit up by, before smoothing: with the
	// default smoothing a limit grows at most 1.4 times a sync, however low the aggregate.
	MaxScaleUp = 2
	// SlowStartSyncs is the most syncs a new client's slow start lasts: then its claim lapses
	// (it reports its use), so that a client that does not use its share does not hold it.
	SlowStartSyncs = 5
	// DefaultHeadroom is the fraction of the target a fleet leaves unused by default.
	DefaultHeadroom = 0.05
)

// Attributes of the adaptive mode's items.
const (
	attrRate       = "rate"       // report: the client's consumption, units per second
	attrAt         = "at"         // report and summary: when written, Unix nanoseconds
	attrAggregate  = "aggregate"  // summary: the sum of the fresh reports
	attrAggregator = "aggregator" // summary: the client that wrote it
	attrClients    = "clients"    // summary: string set of the registered client IDs
)

// ReportExpiresAttribute is the attribute of a client's report item that holds, in Unix
// seconds, when the report may be deleted (twice StaleAfter after it was written). The
// aggregator deletes the reports of the clients it drops; a table whose time to live is
// enabled on this attribute also loses the reports of a fleet that stopped altogether.
const ReportExpiresAttribute = "expiresAt"

// batchGetLimit is the most keys one BatchGetItem may ask for.
const batchGetLimit = 100

// AdaptiveConfig configures an Adaptive limiter.
type AdaptiveConfig struct {
	// Table is where the summary and report items live. Required.
	Table Table
	// Name names the shared rate; the summary's key is Table.KeyPrefix + Name and a client's
	// report's Table.KeyPrefix + Name + "#client#" + ClientID. Required.
	Name string
	// Target is the aggregate rate all the clients of Name share, in units per second.
	// Required, > 0 and finite.
	Target rate.Limit
	// MaxLocal caps one client's local limit. Default: Target (following SetLimit).
	MaxLocal rate.Limit
	// InitialLocal is the local limit before the first summary arrives, and the rate the
	// client announces to the others when it starts. Default: a slow start at Smoothing times
	// a fair share (Target divided by the number of registered clients, this one included,
	// scaled down by how far the fleet would go over the target with it), announcing the
	// share.
	InitialLocal rate.Limit
	// Burst is the fleet's burst: each client's local limiter gets Burst times its share of
	// the target (local limit / Target), rounded down, at least 1, so that the local bursts of
	// a fleet of at most Burst clients add up to at most Burst. Default: 1.
	Burst int
	// SyncInterval is how often the client reports its rate, reads the summary and rescales
	// (with ±10 % jitter). Negative: no background sync; call Sync yourself.
	// Default: DefaultSyncInterval.
	SyncInterval time.Duration
	// Smoothing is the fraction of the way the local limit moves towards its new value per
	// sync, in (0, 1]. Default: DefaultSmoothing.
	Smoothing float64
	// Headroom is the fraction of Target the fleet aims to leave unused, in [0, 1): the
	// clients scale their limits towards Target·(1 − Headroom), so that the aggregate's
	// fluctuation (each client learns the others' rates a sync late) stays under Target
	// rather than around it. Default: DefaultHeadroom; negative: none (aim at Target).
	Headroom float64
	// StaleAfter is how old a report may be and still count; older clients drop out of the
	// aggregate and the client set. Default: DefaultStaleSyncs × SyncInterval.
	StaleAfter time.Duration
	// ClientID identifies this client among the clients of Name. Default: a random ID.
	ClientID string
	// Clock is the time source. Default: SystemClock.
	Clock Clock
}

// Adaptive is a client's share of an aggregate rate, after the distributed coordination of
// the AWS Database Blog's "Rate-limiting calls to Amazon DynamoDB ... Distributed
// Coordination": each client limits itself with a local golang.org/x/time/rate limiter, reports
// its consumption every SyncInterval to its own item, and scales its local limit by
// Target/aggregate, smoothed, from a summary item that one client (the aggregator, holding a
// lease renewed by every summary it writes) computes from the reports. An Adaptive is safe for
// concurrent use; Close it when done.
type Adaptive struct {
	table      Table
	name       string
	id         string
	clock      Clock
	local      *rate.Limiter
	burst      int // the fleet's burst
	smoothing  float64
	headroom   float64 // the fraction of the target left unused
	interval   time.Duration
	staleAfter time.Duration

	summaryKey map[string]types.AttributeValue
	reportKey  map[string]types.AttributeValue

	mu          sync.Mutex
	target      rate.Limit
	maxLocal    rate.Limit
	maxIsTarget bool       // MaxLocal defaulted to Target: SetLimit moves both
	consumed    float64    // units consumed since lastSync
	debt        float64    // recorded units not yet charged to the local limiter
	lastSync    time.Time  // when consumed was last reset
	aggregate   float64    // the last summary's aggregate
	lastRate    float64    // the rate this client last reported
	claim       rate.Limit // in a slow start, the share this client claims and reports; else 0
	claimSyncs  int        // the syncs of the slow start so far
	leader      bool       // this client wrote the last summary
	closed      bool

	counts counts
	stop   context.CancelFunc
	done   chan struct{}
}

// NewAdaptive registers a client of cfg.Name, reads the summary to size its initial limit,
// and starts its background sync. It makes three DynamoDB requests (two when already registered).
func NewAdaptive(ctx context.Context, cfg AdaptiveConfig) (*Adaptive, error) {
	t, err := cfg.Table.withDefaults()
	if err != nil {
		return nil, err
	}
	switch {
	case cfg.Name == "":
		return nil, fmt.Errorf("%w: Name is required", ErrInvalidConfig)
	case !(cfg.Target > 0) || cfg.Target == rate.Inf:
		return nil, fmt.Errorf("%w: Target must be > 0 and finite, got %v", ErrInvalidConfig, cfg.Target)
	case cfg.MaxLocal < 0 || cfg.InitialLocal < 0 || cfg.Burst < 0 || cfg.StaleAfter < 0:
		return nil, fmt.Errorf("%w: MaxLocal, InitialLocal, Burst and StaleAfter must not be negative", ErrInvalidConfig)
	case cfg.Smoothing < 0 || cfg.Smoothing > 1:
		return nil, fmt.Errorf("%w: Smoothing must be within (0, 1], got %v", ErrInvalidConfig, cfg.Smoothing)
	case cfg.Headroom >= 1:
		return nil, fmt.Errorf("%w: Headroom must be below 1 (a fraction of Target), got %v", ErrInvalidConfig, cfg.Headroom)
	}
	maxLocalIsTarget := cfg.MaxLocal == 0
	if maxLocalIsTarget {
		cfg.MaxLocal = cfg.Target
	}
	if cfg.Burst == 0 {
		cfg.Burst = 1
	}
	if cfg.SyncInterval == 0 {
		cfg.SyncInterval = DefaultSyncInterval
	}
	if cfg.Smoothing == 0 {
		cfg.Smoothing = DefaultSmoothing
	}
	switch {
	case cfg.Headroom == 0:
		cfg.Headroom = DefaultHeadroom
	case cfg.Headroom < 0:
		cfg.Headroom = 0
	}
	if cfg.StaleAfter == 0 {
		cfg.StaleAfter = DefaultStaleSyncs * cfg.SyncInterval
		if cfg.SyncInterval < 0 {
			cfg.StaleAfter = DefaultStaleSyncs * DefaultSyncInterval
		}
	}
	if cfg.ClientID == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		cfg.ClientID = hex.EncodeToString(b[:])
	}
	a := &Adaptive{
		table:       t,
		name:        cfg.Name,
		id:          cfg.ClientID,
		clock:       clockOrSystem(cfg.Clock),
		smoothing:   cfg.Smoothing,
		headroom:    cfg.Headroom,
		interval:    cfg.SyncInterval,
		staleAfter:  cfg.StaleAfter,
		summaryKey:  t.key(t.KeyPrefix + cfg.Name),
		reportKey:   t.key(reportKey(t, cfg.Name, cfg.ClientID)),
		target:      cfg.Target,
		maxLocal:    cfg.MaxLocal,
		maxIsTarget: maxLocalIsTarget,
		done:        make(chan struct{}),
	}
	now := a.clock.Now()
	a.lastSync = now
	s, err := a.readSummary(ctx)
	if err != nil {
		return nil, err
	}
	member := slices.Contains(s.clients, a.id)
	n := len(s.clients)
	if !member {
		n++
	}
	share, start := cfg.InitialLocal, cfg.InitialLocal
	if share == 0 {
		// A fair share, scaled down by how far the fleet would go over the target with this
		// client added, by the summary's aggregate: fresh, or never aggregated yet (then it
		// sums the rates the clients starting with this one announced).
		aim := a.aim(cfg.Target)
		share = aim / rate.Limit(n)
		if fresh := s.at.IsZero() || now.Sub(s.at) <= a.staleAfter; fresh && rate.Limit(s.aggregate)+share > aim {
			share *= aim / (rate.Limit(s.aggregate) + share)
		}
		share = min(share, a.maxLocal)
		// A slow start: the client claims its share (it reports the claim, rather than its
		// use, until its limit reaches it) but starts at Smoothing times it, as the others
		// give up only that fraction of the room it claims at their next sync; its limit
		// grows towards the claim at its syncs (see slowStart).
		start = share * rate.Limit(cfg.Smoothing)
	}
	start = min(start, a.maxLocal)
	a.burst = cfg.Burst
	a.local = rate.NewLimiter(start, localBurst(cfg.Burst, start, cfg.Target))
	// The bucket starts empty: the fleet's burst is room saved by clients that took less than
	// their limits, not a gift to every client that joins (50 clients joining at once would
	// otherwise take 50 permits at once, whatever the burst).
	a.local.ReserveN(now, a.local.Burst())
	a.lastRate = float64(share)
	if start < share {
		a.claim = share
	}
	// The first report and the registration announce the share as this client's rate, so that
	// the others make room for it at their next sync rather than a summary later, and the
	// aggregator does not drop the client before its first sync.
	if err := a.report(ctx, now, float64(share)); err != nil {
		return nil, err
	}
	if !member {
		if err := a.register(ctx, float64(share)); err != nil {
			return nil, err
		}
	}
	if a.interval < 0 {
		close(a.done)
		a.stop = func() {}
		return a, nil
	}
	loopCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	a.stop = stop
	go a.loop(loopCtx)
	return a, nil
}

// reportKey is the key of a client's report item.
func reportKey(t Table, name, id string) string { return t.KeyPrefix + name + "#client#" + id }

// ClientID returns this client's ID.
func (a *Adaptive) ClientID() string { return a.id }

// Limit returns the local limit, in units per second.
func (a *Adaptive) Limit() rate.Limit { return a.local.Limit() }

// Aggregate returns the aggregate rate of the last summary read, in units per second.
func (a *Adaptive) Aggregate() float64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.aggregate
}

// SetLimit changes the aggregate target; the local limit follows at the next syncs. A MaxLocal
// left to its default follows the target.
func (a *Adaptive) SetLimit(target rate.Limit) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.target = target
	if a.maxIsTarget {
		a.maxLocal = target
	}
}

// Counts returns this client's DynamoDB requests for coordination, and the units it used.
func (a *Adaptive) Counts() Counts { return a.counts.snapshot() }

// Allow is AllowN(1).
func (a *Adaptive) Allow() bool { return a.AllowN(1) }

// AllowN reports whether n units may be used now under the local limit, and takes them if so.
func (a *Adaptive) AllowN(n int) bool {
	if !a.local.AllowN(a.clock.Now(), n) {
		return false
	}
	a.use(float64(n))
	return true
}

// Wait is WaitN(ctx, 1).
func (a *Adaptive) Wait(ctx context.Context) error { return a.WaitN(ctx, 1) }

// WaitN blocks until n units may be used under the local limit, or returns an error
// (ErrExceedsBurst, ErrWouldExceedDeadline, ctx.Err()) without having taken them.
func (a *Adaptive) WaitN(ctx context.Context, n int) error {
	now := a.clock.Now()
	r := a.local.ReserveN(now, n)
	if !r.OK() {
		return fmt.Errorf("%w: n=%d, burst=%d", ErrExceedsBurst, n, a.local.Burst())
	}
	delay := r.DelayFrom(now)
	if d, ok := ctx.Deadline(); ok && now.Add(delay).After(d) {
		r.CancelAt(now)
		return fmt.Errorf("%w: wait %v", ErrWouldExceedDeadline, delay)
	}
	if err := a.clock.Sleep(ctx, delay); err != nil {
		r.CancelAt(a.clock.Now())
		return err
	}
	a.use(float64(n))
	return nil
}

// Reserve is ReserveN(1).
func (a *Adaptive) Reserve() *rate.Reservation { return a.ReserveN(1) }

// ReserveN reserves n units of the local limiter, as rate.Limiter.ReserveN does; the units
// count as used whether or not the reservation is kept.
func (a *Adaptive) ReserveN(n int) *rate.Reservation {
	r := a.local.ReserveN(a.clock.Now(), n)
	if r.OK() {
		a.use(float64(n))
	}
	return r
}

// Record adds units used without waiting (positive: more than was waited for; negative: less),
// e.g. the difference between a request's estimated and its consumed capacity. Positive units
// are charged to the local limiter, so later waits pay for them.
func (a *Adaptive) Record(units float64) {
	a.mu.Lock()
	a.consumed += units
	a.debt += max(units, 0)
	charge := int(a.debt)
	a.debt -= float64(charge)
	a.mu.Unlock()
	now := a.clock.Now()
	for b := max(a.local.Burst(), 1); charge > 0; charge -= b {
		a.local.ReserveN(now, min(charge, b))
	}
}

// use counts n units used.
func (a *Adaptive) use(n float64) {
	a.mu.Lock()
	a.consumed += n
	a.mu.Unlock()
	a.counts.permits.Add(int64(n))
}

// loop syncs every interval (±10 % jitter) until ctx is done.
func (a *Adaptive) loop(ctx context.Context) {
	defer close(a.done)
	for {
		jitter := 0.9 + 0.2*randFloat()
		if a.clock.Sleep(ctx, time.Duration(float64(a.interval)*jitter)) != nil {
			return
		}
		// A failed sync keeps the current limit; the next one tries again.
		_ = a.Sync(ctx)
	}
}

// Sync reports this client's rate since the last sync, reads the summary (computing and
// writing it when this client is the aggregator, or the aggregator's summary is stale),
// re-registers the client if it was dropped, and scales the local limit by
// Target/aggregate, smoothed, growing it only as far as this client's use since the last sync
// justifies (in a slow start, it reports its claim and grows towards it; see the package
// documentation). The background loop calls it every SyncInterval.
func (a *Adaptive) Sync(ctx context.Context) error {
	now := a.clock.Now()
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return ErrClosed
	}
	elapsed := now.Sub(a.lastSync).Seconds()
	mine := 0.0
	if elapsed > 0 {
		mine = max(a.consumed, 0) / elapsed
	}
	reported := max(mine, float64(a.claim)) // in a slow start, the claim
	a.consumed, a.lastSync, a.lastRate = 0, now, reported
	a.mu.Unlock()

	if err := a.report(ctx, now, reported); err != nil {
		return err
	}
	s, err := a.readSummary(ctx)
	if err != nil {
		return err
	}
	if !slices.Contains(s.clients, a.id) {
		if err := a.register(ctx, reported); err != nil {
			return err
		}
		s.clients = append(s.clients, a.id)
	}
	leader := false
	if s.aggregator == "" || s.aggregator == a.id || now.Sub(s.at) > a.staleAfter {
		agg, ok, err := a.aggregateOnce(ctx, now, s)
		if err != nil {
			return err
		}
		if ok {
			s.aggregate, s.at, leader = agg, now, true
		}
	}
	a.mu.Lock()
	a.leader = leader
	a.mu.Unlock()
	if s.at.IsZero() || now.Sub(s.at) > a.staleAfter {
		return nil // no fresh summary: keep the current limit
	}
	a.mu.Lock()
	a.aggregate = s.aggregate
	target, maxLocal, claim := a.target, a.maxLocal, a.claim
	a.mu.Unlock()
	aim := a.aim(target)
	var next rate.Limit
	if claim > 0 {
		claim, next = slowStart(a.local.Limit(), rate.Limit(mine), claim, aim, maxLocal, rate.Limit(s.aggregate), a.smoothing)
		a.mu.Lock()
		if a.claimSyncs++; a.claimSyncs >= SlowStartSyncs {
			claim = 0
		}
		a.claim = claim
		a.mu.Unlock()
	} else {
		next = nextLimit(a.local.Limit(), rate.Limit(mine), aim, maxLocal, rate.Limit(s.aggregate), a.smoothing)
	}
	a.local.SetLimitAt(now, next)
	a.local.SetBurstAt(now, localBurst(a.burst, next, target))
	return nil
}

// nextLimit is the local limit after a sync, after the seed: the current limit scaled by
// target/aggregate, capped at maxLocal, and moved there by the fraction smoothing. Two
// additions keep a fleet from overshooting the target when its aggregate reads low:
//   - the scale factor is at most MaxScaleUp;
//   - a limit grows only as far as this client's own use since the last sync (used, units per
//     second), scaled, justifies: a client that did not use its limit (a loaded machine, a lull
//     in its work, a report the aggregate missed) keeps it rather than raising it, so the
//     limits of a fleet that under-uses them add up to the target, not to more, and a return
//     to full use does not overshoot.
//
// An aggregate of 0 (no use reported at all) keeps the limit, as the seed does.
func nextLimit(current, used, target, maxLocal, aggregate rate.Limit, smoothing float64) rate.Limit {
	scaled := current
	if aggregate > 0 {
		scale := min(target/aggregate, MaxScaleUp)
		scaled = current * scale
		if scale > 1 {
			scaled = max(current, min(scaled, used*scale))
		}
	}
	scaled = min(scaled, maxLocal)
	return rate.Limit((1-smoothing)*float64(current) + smoothing*float64(scaled))
}

// slowStart is the claim and the local limit after a sync of a client in its slow start.
// The claim follows nextLimit as a limit in full use would, so that the fleet makes room for
// it; the limit grows towards it as fast as nextLimit lets a limit grow (1 + smoothing ×
// (MaxScaleUp − 1) times a sync) while the client uses it, but stays within the claim scaled
// by target/aggregate, unsmoothed, while the claims put the aggregate over the target (as when
// a whole fleet starts at once, when the claims add up to several times the target). The slow
// start ends (claim 0) when the limit reaches the claim.
func slowStart(current, used, claim, target, maxLocal, aggregate rate.Limit, smoothing float64) (rate.Limit, rate.Limit) {
	room := claim
	if aggregate > target {
		room = claim * target / aggregate
	}
	claim = nextLimit(claim, claim, target, maxLocal, aggregate, smoothing)
	next := min(room, claim, max(current, used*rate.Limit(1+smoothing*(MaxScaleUp-1))))
	if next >= claim {
		return 0, claim
	}
	return claim, next
}

// aim is the aggregate rate the fleet scales towards: target less the headroom.
func (a *Adaptive) aim(target rate.Limit) rate.Limit { return target * rate.Limit(1-a.headroom) }

// localBurst is a client's share of the fleet's burst: burst·limit/target, rounded down, at
// least 1.
func localBurst(burst int, limit, target rate.Limit) int {
	if !(target > 0) {
		return max(burst, 1)
	}
	return max(1, int(float64(burst)*float64(limit/target)))
}

// summary is the summary item.
type summary struct {
	aggregate  float64
	at         time.Time
	aggregator string
	clients    []string
}

// readSummary reads the summary item (eventually consistent); a missing item is a zero summary.
func (a *Adaptive) readSummary(ctx context.Context) (summary, error) {
	a.counts.eventualReads.Add(1)
	out, err := a.table.Client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(a.table.Name), Key: a.summaryKey})
	if err != nil {
		return summary{}, fmt.Errorf("%w: GetItem %s: %w", ErrStore, a.table.Name, err)
	}
	var s summary
	s.aggregate = numberOf(out.Item[attrAggregate])
	if at := numberOf(out.Item[attrAt]); at > 0 {
		s.at = time.Unix(0, int64(at))
	}
	if v, ok := out.Item[attrAggregator].(*types.AttributeValueMemberS); ok {
		s.aggregator = v.Value
	}
	if v, ok := out.Item[attrClients].(*types.AttributeValueMemberSS); ok {
		s.clients = v.Value
	}
	return s, nil
}

// register adds this client to the summary's client set and its rate to the summary's
// aggregate.
func (a *Adaptive) register(ctx context.Context, units float64) error {
	a.counts.writes.Add(1)
	_, err := a.table.Client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                aws.String(a.table.Name),
		Key:                      a.summaryKey,
		UpdateExpression:         aws.String("ADD #clients :me, #aggregate :units"),
		ExpressionAttributeNames: map[string]string{"#clients": attrClients, "#aggregate": attrAggregate},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":me":    &types.AttributeValueMemberSS{Value: []string{a.id}},
			":units": &types.AttributeValueMemberN{Value: strconv.FormatFloat(units, 'f', -1, 64)},
		},
	})
	if err != nil {
		return fmt.Errorf("%w: UpdateItem %s: %w", ErrStore, a.table.Name, err)
	}
	return nil
}

// report writes this client's report item.
func (a *Adaptive) report(ctx context.Context, now time.Time, units float64) error {
	item := map[string]types.AttributeValue{
		attrRate:               &types.AttributeValueMemberN{Value: strconv.FormatFloat(units, 'f', -1, 64)},
		attrAt:                 number(now.UnixNano()),
		ReportExpiresAttribute: number(now.Add(2 * a.staleAfter).Unix()),
	}
	maps.Copy(item, a.reportKey)
	a.counts.writes.Add(1)
	if _, err := a.table.Client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(a.table.Name), Item: item}); err != nil {
		return fmt.Errorf("%w: PutItem %s: %w", ErrStore, a.table.Name, err)
	}
	return nil
}

// aggregateOnce sums the fresh reports of the registered clients and writes the summary,
// dropping the stale clients from the set, on condition that this client holds the aggregator
// lease (it wrote the last summary, or there is none, or it is stale). It reports whether it
// wrote the summary.
func (a *Adaptive) aggregateOnce(ctx context.Context, now time.Time, s summary) (float64, bool, error) {
	keys := make([]map[string]types.AttributeValue, 0, len(s.clients))
	for _, id := range s.clients {
		keys = append(keys, a.table.key(reportKey(a.table, a.name, id)))
	}
	fresh := map[string]bool{}
	total := 0.0
	for chunk := range slices.Chunk(keys, batchGetLimit) {
		pending := map[string]types.KeysAndAttributes{a.table.Name: {Keys: chunk}}
		for len(pending) > 0 {
			out, err := a.table.Client.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: pending})
			if err != nil {
				return 0, false, fmt.Errorf("%w: BatchGetItem %s: %w", ErrStore, a.table.Name, err)
			}
			for _, item := range out.Responses[a.table.Name] {
				a.counts.eventualReads.Add(1)
				at := time.Unix(0, int64(numberOf(item[attrAt])))
				key, _ := item[a.table.KeyAttribute].(*types.AttributeValueMemberS)
				if key == nil || now.Sub(at) > a.staleAfter {
					continue
				}
				fresh[key.Value] = true
				total += numberOf(item[attrRate])
			}
			pending = out.UnprocessedKeys
		}
	}
	var stale []string
	for _, id := range s.clients {
		if id != a.id && !fresh[reportKey(a.table, a.name, id)] {
			stale = append(stale, id)
		}
	}
	update := "SET #aggregate = :aggregate, #at = :now, #aggregator = :me"
	values := map[string]types.AttributeValue{
		":aggregate":   &types.AttributeValueMemberN{Value: strconv.FormatFloat(total, 'f', -1, 64)},
		":now":         number(now.UnixNano()),
		":me":          &types.AttributeValueMemberS{Value: a.id},
		":staleBefore": number(now.Add(-a.staleAfter).UnixNano()),
	}
	names := map[string]string{"#aggregate": attrAggregate, "#at": attrAt, "#aggregator": attrAggregator}
	if len(stale) > 0 {
		update += " DELETE #clients :stale"
		names["#clients"] = attrClients
		values[":stale"] = &types.AttributeValueMemberSS{Value: stale}
	}
	a.counts.writes.Add(1)
	_, err := a.table.Client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(a.table.Name),
		Key:                       a.summaryKey,
		UpdateExpression:          aws.String(update),
		ConditionExpression:       aws.String("attribute_not_exists(#aggregator) OR #aggregator = :me OR #at < :staleBefore"),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
	})
	var failed *types.ConditionalCheckFailedException
	if errors.As(err, &failed) {
		return 0, false, nil // another client holds the lease
	}
	if err != nil {
		return 0, false, fmt.Errorf("%w: UpdateItem %s: %w", ErrStore, a.table.Name, err)
	}
	for _, id := range stale {
		// Best effort: a report left behind is dropped again at the next summary, and expires.
		a.counts.writes.Add(1)
		_, _ = a.table.Client.DeleteItem(ctx, &dynamodb.DeleteItemInput{
			TableName: aws.String(a.table.Name),
			Key:       a.table.key(reportKey(a.table, a.name, id)),
		})
	}
	return total, true, nil
}

// Close stops the background sync and removes this client's report and registration, so that
// the aggregate drops it at the next summary. The limiter must not be used afterwards.
func (a *Adaptive) Close(ctx context.Context) error {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return ErrClosed
	}
	a.closed = true
	leader, last := a.leader, a.lastRate
	a.mu.Unlock()
	a.stop()
	<-a.done
	a.counts.writes.Add(2)
	if _, err := a.table.Client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(a.table.Name), Key: a.reportKey}); err != nil {
		return fmt.Errorf("%w: DeleteItem %s: %w", ErrStore, a.table.Name, err)
	}
	// Leaving takes this client's last rate off the aggregate, so that the others take up its
	// share at their next sync rather than a summary later.
	leave := &dynamodb.UpdateItemInput{
		TableName:                aws.String(a.table.Name),
		Key:                      a.summaryKey,
		UpdateExpression:         aws.String("DELETE #clients :me ADD #aggregate :minus"),
		ExpressionAttributeNames: map[string]string{"#clients": attrClients, "#aggregate": attrAggregate},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":me":    &types.AttributeValueMemberSS{Value: []string{a.id}},
			":minus": &types.AttributeValueMemberN{Value: strconv.FormatFloat(-last, 'f', -1, 64)},
		},
	}
	if leader {
		// Hand the aggregator lease back, so that another client aggregates at its next sync
		// instead of after StaleAfter.
		leave.UpdateExpression = aws.String("DELETE #clients :me ADD #aggregate :minus REMOVE #aggregator")
		leave.ConditionExpression = aws.String("#aggregator = :id")
		leave.ExpressionAttributeNames["#aggregator"] = attrAggregator
		leave.ExpressionAttributeValues[":id"] = &types.AttributeValueMemberS{Value: a.id}
	}
	_, err := a.table.Client.UpdateItem(ctx, leave)
	var failed *types.ConditionalCheckFailedException
	if errors.As(err, &failed) {
		// Another client took the lease meanwhile: leave the set only.
		a.counts.writes.Add(1)
		leave.UpdateExpression, leave.ConditionExpression = aws.String("DELETE #clients :me ADD #aggregate :minus"), nil
		delete(leave.ExpressionAttributeNames, "#aggregator")
		delete(leave.ExpressionAttributeValues, ":id")
		_, err = a.table.Client.UpdateItem(ctx, leave)
	}
	if err != nil {
		return fmt.Errorf("%w: UpdateItem %s: %w", ErrStore, a.table.Name, err)
	}
	return nil
}

// numberOf is the value of a number attribute, or 0.
func numberOf(v types.AttributeValue) float64 {
	n, ok := v.(*types.AttributeValueMemberN)
	if !ok {
		return 0
	}
	f, err := strconv.ParseFloat(n.Value, 64)
	if err != nil || math.IsNaN(f) {
		return 0
	}
	return f
}
