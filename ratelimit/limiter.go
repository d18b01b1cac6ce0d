package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/time/rate"

	"github.com/turnstile-sfn/turnstile/ratelimit/gcra"
)

// DefaultLookahead is the default Config.Lookahead.
const DefaultLookahead = 5 * time.Second

// attrTAT is the attribute of a limiter's item that holds the theoretical arrival time (TAT),
// in Unix nanoseconds.
const attrTAT = gcra.AttributeTAT

// Config configures a Limiter.
type Config struct {
	// Table is where the limiter's item lives. Required.
	Table Table
	// Name names the rate; every client that shares the rate uses the same Name. The item's
	// key is Table.KeyPrefix + Name. Required.
	Name string
	// Limit is the shared rate in permits per second; every client of a Name must use the same
	// Limit. Required, > 0 and finite.
	Limit rate.Limit
	// Burst is the number of permits that may be taken at once after an idle period. Default: 1.
	Burst int
	// Lease is the number of permits a client takes with one write and hands out locally
	// (leased mode). 1 is exact mode: one write per decision. Must not exceed Burst.
	// Default: 1.
	Lease int
	// Lookahead is how far ahead of now Wait may book a slot in one write: a waiter whose slot
	// is at most this far ahead takes it at once and sleeps until it, instead of retrying.
	// Larger values mean fewer failed writes under contention; the rate is kept either way.
	// Capped by the context's deadline. Default: DefaultLookahead.
	Lookahead time.Duration
	// Clock is the time source. Default: SystemClock.
	Clock Clock
}

// Limiter is a client's handle on a rate shared through DynamoDB with the generic cell rate
// algorithm (GCRA): a single item holds the theoretical arrival time, and each decision is a
// conditional UpdateItem on it. Its methods mirror golang.org/x/time/rate.Limiter's, with a
// context and an error because they do I/O. A Limiter is safe for concurrent use.
type Limiter struct {
	table     Table
	key       map[string]types.AttributeValue
	clock     Clock
	burst     int
	lease     int
	lookahead time.Duration

	interval atomic.Int64 // emission interval per permit, nanoseconds
	lastTAT  atomic.Int64 // last TAT seen, Unix nanoseconds: picks the update's branch

	mu      sync.Mutex // guards the leased pool; held during a lease write
	pool    int        // leased permits not yet handed out
	poolAt  time.Time  // when the pool's permits may be used
	counts  counts
	limitMu sync.Mutex
	limit   rate.Limit
}

// counts is the atomic form of Counts.
type counts struct {
	writes, strongReads, eventualReads, permits atomic.Int64
}

// snapshot returns the counts.
func (c *counts) snapshot() Counts {
	return Counts{Writes: c.writes.Load(), StrongReads: c.strongReads.Load(),
		EventualReads: c.eventualReads.Load(), Permits: c.permits.Load()}
}

// New returns a Limiter for cfg. It does no I/O: the item is created by the first decision.
func New(cfg Config) (*Limiter, error) {
	t, err := cfg.Table.withDefaults()
	if err != nil {
		return nil, err
	}
	if cfg.Name == "" {
		return nil, fmt.Errorf("%w: Name is required", ErrInvalidConfig)
	}
	if !(cfg.Limit > 0) || cfg.Limit == rate.Inf {
		return nil, fmt.Errorf("%w: Limit must be > 0 and finite, got %v", ErrInvalidConfig, cfg.Limit)
	}
	if cfg.Burst == 0 {
		cfg.Burst = 1
	}
	if cfg.Lease == 0 {
		cfg.Lease = 1
	}
	if cfg.Burst < 0 {
		return nil, fmt.Errorf("%w: Burst must be >= 1, got %d", ErrInvalidConfig, cfg.Burst)
	}
	if cfg.Lease < 0 || cfg.Lease > cfg.Burst {
		return nil, fmt.Errorf("%w: Lease must be within [1, Burst=%d], got %d", ErrInvalidConfig, cfg.Burst, cfg.Lease)
	}
	if cfg.Lookahead == 0 {
		cfg.Lookahead = DefaultLookahead
	}
	if cfg.Lookahead < 0 {
		return nil, fmt.Errorf("%w: Lookahead must be >= 0, got %v", ErrInvalidConfig, cfg.Lookahead)
	}
	l := &Limiter{
		table:     t,
		key:       t.key(t.KeyPrefix + cfg.Name),
		clock:     clockOrSystem(cfg.Clock),
		burst:     cfg.Burst,
		lease:     cfg.Lease,
		lookahead: cfg.Lookahead,
	}
	l.SetLimit(cfg.Limit)
	return l, nil
}

// Limit returns the shared rate, in permits per second.
func (l *Limiter) Limit() rate.Limit {
	l.limitMu.Lock()
	defer l.limitMu.Unlock()
	return l.limit
}

// SetLimit changes the rate this client charges its permits at. All the clients of a Name
// should agree: each permit advances the shared TAT by this client's 1/limit.
func (l *Limiter) SetLimit(r rate.Limit) {
	l.limitMu.Lock()
	defer l.limitMu.Unlock()
	l.limit = r
	l.interval.Store(int64(gcra.Interval(float64(r))))
}

// Burst returns the burst.
func (l *Limiter) Burst() int { return l.burst }

// Counts returns this client's DynamoDB requests and permits so far.
func (l *Limiter) Counts() Counts { return l.counts.snapshot() }

// Allow is AllowN(ctx, 1).
func (l *Limiter) Allow(ctx context.Context) (bool, error) { return l.AllowN(ctx, 1) }

// AllowN reports whether n permits may be used now, and takes them if so. It never waits.
func (l *Limiter) AllowN(ctx context.Context, n int) (bool, error) {
	if err := l.check(n); err != nil {
		return false, err
	}
	now := l.clock.Now()
	if l.lease > 1 {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.pool >= n && !l.poolAt.After(now) {
			l.pool -= n
			l.counts.permits.Add(int64(n))
			return true, nil
		}
		got, at, ok, _, err := l.take(ctx, max(l.lease, n-l.pool), now, 0)
		if err != nil || !ok {
			return false, err
		}
		l.addPool(got, at)
		if at.After(now) {
			return false, nil
		}
		l.pool -= n
		l.counts.permits.Add(int64(n))
		return true, nil
	}
	_, at, ok, _, err := l.take(ctx, n, now, 0)
	if err != nil || !ok || at.After(now) {
		return false, err
	}
	l.counts.permits.Add(int64(n))
	return true, nil
}

// Wait is WaitN(ctx, 1).
func (l *Limiter) Wait(ctx context.Context) error { return l.WaitN(ctx, 1) }

// WaitN blocks until n permits may be used, takes them, and returns nil; or returns an error
// (ErrExceedsBurst, ErrWouldExceedDeadline, ctx.Err(), ErrStore). A context done while WaitN
// sleeps until a slot it booked loses that slot's permits to everyone (an under-use).
//
// It books a slot up to Lookahead (or the context's deadline, if sooner) ahead with one
// conditional write and sleeps until the slot. When the next slot is further ahead, the failed
// write's ALL_OLD item tells the TAT, and WaitN sleeps exactly until the slot comes within reach,
// then tries again.
func (l *Limiter) WaitN(ctx context.Context, n int) error {
	if err := l.check(n); err != nil {
		return err
	}
	if l.lease > 1 {
		l.mu.Lock()
		if l.pool < n {
			got, at, err := l.book(ctx, max(l.lease, n-l.pool))
			if err != nil {
				l.mu.Unlock()
				return err
			}
			l.addPool(got, at)
		}
		l.pool -= n
		at := l.poolAt
		l.mu.Unlock()
		l.counts.permits.Add(int64(n))
		return l.clock.Sleep(ctx, at.Sub(l.clock.Now()))
	}
	_, at, err := l.book(ctx, n)
	if err != nil {
		return err
	}
	l.counts.permits.Add(int64(n))
	return l.clock.Sleep(ctx, at.Sub(l.clock.Now()))
}

// Reservation is a slot booked by Reserve: its permits may be used from TimeToAct on.
type Reservation struct {
	at    time.Time
	clock Clock
}

// TimeToAct is when the reserved permits may be used.
func (r *Reservation) TimeToAct() time.Time { return r.at }

// Delay is how long to wait, from now, before using the reserved permits.
func (r *Reservation) Delay() time.Duration { return max(0, r.at.Sub(r.clock.Now())) }

// Reserve is ReserveN(ctx, 1).
func (l *Limiter) Reserve(ctx context.Context) (*Reservation, error) { return l.ReserveN(ctx, 1) }

// ReserveN books n permits at the next free slot, however far ahead, with one write (two when
// the rate has just gone idle or busy), and returns when they may be used. A reservation cannot
// be cancelled: permits reserved and not used are lost to everyone (an under-use). In leased
// mode it bypasses the local pool.
func (l *Limiter) ReserveN(ctx context.Context, n int) (*Reservation, error) {
	if err := l.check(n); err != nil {
		return nil, err
	}
	_, at, _, _, err := l.take(ctx, n, l.clock.Now(), -1)
	if err != nil {
		return nil, err
	}
	l.counts.permits.Add(int64(n))
	return &Reservation{at: at, clock: l.clock}, nil
}

// check refuses n outside [1, Burst].
func (l *Limiter) check(n int) error {
	if n < 1 {
		return fmt.Errorf("%w: n must be >= 1, got %d", ErrInvalidConfig, n)
	}
	if n > l.burst {
		return fmt.Errorf("%w: n=%d, burst=%d", ErrExceedsBurst, n, l.burst)
	}
	return nil
}

// addPool adds got leased permits usable from at to the pool (l.mu held).
func (l *Limiter) addPool(got int, at time.Time) {
	l.pool += got
	if at.After(l.poolAt) {
		l.poolAt = at
	}
}

// book takes n permits within the lookahead, sleeping while the next slot is beyond it, and
// returns their number and when they may be used.
func (l *Limiter) book(ctx context.Context, n int) (int, time.Time, error) {
	for {
		now := l.clock.Now()
		horizon := l.lookahead
		if d, ok := ctx.Deadline(); ok && d.Sub(now) < horizon {
			horizon = max(0, d.Sub(now))
		}
		got, at, ok, tat, err := l.take(ctx, n, now, horizon)
		if err != nil {
			return 0, time.Time{}, err
		}
		if ok {
			return got, at, nil
		}
		// The permits' slot, were they booked now, and when the condition
		// TAT <= now + (burst-n)·T + horizon holds again:
		slot := tat.Add(-time.Duration(int64(l.burst-n) * l.interval.Load()))
		reach := slot.Add(-horizon)
		if d, ok := ctx.Deadline(); ok && slot.After(d) {
			return 0, time.Time{}, fmt.Errorf("%w: next slot at %v, deadline %v", ErrWouldExceedDeadline, slot, d)
		}
		if err := l.clock.Sleep(ctx, reach.Sub(now)); err != nil {
			return 0, time.Time{}, err
		}
	}
}

// take makes one GCRA decision for n permits at time now: it books them if their slot is at
// most horizon after now (any slot when horizon < 0). It returns ok and when the permits may be
// used, or !ok and the current TAT.
//
// The TAT advances by n·T per decision, T = 1/limit. Two conditional UpdateItems, one per case of
// max(TAT, now):
//   - busy (TAT >= now): SET tat = tat + n·T, condition now <= tat <= now + (burst-n)·T + horizon;
//     additive, so concurrent clients do not conflict;
//   - idle (TAT < now or no item): SET tat = now + n·T, condition tat < now or no tat.
//
// The branch is guessed from the last TAT seen; a wrong guess costs one more write. A failed
// condition returns the item (ReturnValuesOnConditionCheckFailure ALL_OLD); when no item comes
// back (there is none, or the server does not return it) a strongly consistent GetItem decides.
func (l *Limiter) take(ctx context.Context, n int, now time.Time, horizon time.Duration) (got int, at time.Time, ok bool, tat time.Time, err error) {
	inc := int64(n) * l.interval.Load()
	tolerance := int64(l.burst) * l.interval.Load()
	idle := l.lastTAT.Load() < now.UnixNano()
	for attempt := 0; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return 0, time.Time{}, false, time.Time{}, err
		}
		if attempt > 0 {
			// A decision is about the time it is made: a stale now would let the TAT trail the
			// clock and grant the gap as extra permits.
			now = l.clock.Now()
		}
		nowNs := now.UnixNano()
		in := &dynamodb.UpdateItemInput{
			TableName:                           aws.String(l.table.Name),
			Key:                                 l.key,
			ExpressionAttributeNames:            map[string]string{"#tat": attrTAT},
			ReturnValues:                        types.ReturnValueUpdatedNew,
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		}
		if idle {
			in.UpdateExpression = aws.String("SET #tat = :new")
			in.ConditionExpression = aws.String("attribute_not_exists(#tat) OR #tat < :now")
			in.ExpressionAttributeValues = map[string]types.AttributeValue{
				":new": number(nowNs + inc), ":now": number(nowNs)}
		} else {
			in.UpdateExpression = aws.String("SET #tat = #tat + :inc")
			in.ConditionExpression = aws.String("#tat >= :now")
			in.ExpressionAttributeValues = map[string]types.AttributeValue{
				":inc": number(inc), ":now": number(nowNs)}
			if horizon >= 0 {
				in.ConditionExpression = aws.String("#tat BETWEEN :now AND :max")
				in.ExpressionAttributeValues[":max"] = number(nowNs + tolerance - inc + int64(horizon))
			}
		}
		l.counts.writes.Add(1)
		out, err := l.table.Client.UpdateItem(ctx, in)
		if err == nil {
			newTAT, perr := tatOf(out.Attributes)
			if perr != nil {
				return 0, time.Time{}, false, time.Time{}, perr
			}
			l.lastTAT.Store(newTAT)
			// The permits' slot: the first moment at which newTAT - t <= burst·T.
			return n, time.Unix(0, max(nowNs, newTAT-tolerance)), true, time.Time{}, nil
		}
		var failed *types.ConditionalCheckFailedException
		if !errors.As(err, &failed) {
			return 0, time.Time{}, false, time.Time{}, fmt.Errorf("%w: UpdateItem %s: %w", ErrStore, l.table.Name, err)
		}
		item := failed.Item
		if item == nil {
			if item, err = l.read(ctx); err != nil {
				return 0, time.Time{}, false, time.Time{}, err
			}
		}
		cur := int64(math.MinInt64)
		if _, present := item[attrTAT]; present {
			if cur, err = tatOf(item); err != nil {
				return 0, time.Time{}, false, time.Time{}, err
			}
		}
		l.lastTAT.Store(cur)
		switch {
		case cur < nowNs:
			idle = true
		case horizon >= 0 && cur > nowNs+tolerance-inc+int64(horizon):
			return 0, time.Time{}, false, time.Unix(0, cur), nil
		default:
			idle = false
		}
	}
}

// read returns the limiter's item with a strongly consistent GetItem.
func (l *Limiter) read(ctx context.Context) (map[string]types.AttributeValue, error) {
	l.counts.strongReads.Add(1)
	out, err := l.table.Client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(l.table.Name),
		Key:            l.key,
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, fmt.Errorf("%w: GetItem %s: %w", ErrStore, l.table.Name, err)
	}
	return out.Item, nil
}

// number is a DynamoDB number attribute value.
func number(v int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
}

// tatOf reads the TAT attribute of item.
func tatOf(item map[string]types.AttributeValue) (int64, error) {
	n, ok := item[attrTAT].(*types.AttributeValueMemberN)
	if !ok {
		return 0, fmt.Errorf("%w: item has no number attribute %q; is another program using the key?", ErrStore, attrTAT)
	}
	v, err := strconv.ParseInt(n.Value, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: attribute %q = %q is not an integer: %w", ErrStore, attrTAT, n.Value, err)
	}
	return v, nil
}
