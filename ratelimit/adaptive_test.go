package ratelimit

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/time/rate"

	"github.com/turnstile-sfn/turnstile/emulator/ddblocal"
)

func TestNextLimit(t *testing.T) {
	for _, tc := range []struct {
		name                                 string
		current, used, target, maxLocal, agg rate.Limit
		want                                 rate.Limit
	}{
		{"on target", 10, 10, 100, 100, 100, 10},
		{"over by half", 15, 15, 100, 100, 150, 15*0.6 + 10*0.4},
		{"over by half, under-used", 15, 5, 100, 100, 150, 15*0.6 + 10*0.4},
		{"under by a fifth", 10, 10, 100, 100, 80, 10*0.6 + 12.5*0.4},
		{"under by a fifth, partly used", 10, 9, 100, 100, 80, 10*0.6 + 11.25*0.4},
		{"under by a fifth, under-used: kept", 10, 7, 100, 100, 80, 10},
		{"under by half", 10, 10, 100, 100, 50, 10*0.6 + 20*0.4},
		{"far under: at most MaxScaleUp", 10, 10, 100, 100, 10, 10*0.6 + 10*MaxScaleUp*0.4},
		{"capped", 80, 80, 100, 90, 50, 80*0.6 + 90*0.4},
		{"over the cap after SetLimit", 80, 80, 100, 50, 100, 80*0.6 + 50*0.4},
		{"no consumption: kept", 10, 0, 100, 50, 0, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := nextLimit(tc.current, tc.used, tc.target, tc.maxLocal, tc.agg, 0.4); math.Abs(float64(got-tc.want)) > 1e-9 {
				t.Errorf("nextLimit = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSlowStart(t *testing.T) {
	for _, tc := range []struct {
		name                              string
		current, used, claim, target, agg rate.Limit
		wantClaim, wantNext               rate.Limit
	}{
		{"over target: the claim shrinks, the limit grows", 4, 4, 10, 100, 125, 10 * (0.6 + 0.4*0.8), 4 * 1.4},
		{"on target: grows", 4, 4, 10, 100, 100, 10, 4 * 1.4},
		{"loaded: kept", 4, 2, 10, 100, 100, 10, 4},
		{"far over target: within the claim scaled", 8, 8, 10, 100, 200, 8, 10 * 0.5},
		{"reaches the claim: over", 8, 8, 10, 100, 100, 0, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			claim, next := slowStart(tc.current, tc.used, tc.claim, tc.target, tc.target, tc.agg, 0.4)
			if math.Abs(float64(claim-tc.wantClaim)) > 1e-9 || math.Abs(float64(next-tc.wantNext)) > 1e-9 {
				t.Errorf("slowStart = %v, %v; want %v, %v", claim, next, tc.wantClaim, tc.wantNext)
			}
		})
	}
}

func TestLocalBurst(t *testing.T) {
	for _, tc := range []struct {
		burst         int
		limit, target rate.Limit
		want          int
	}{
		{20, 200, 200, 20},
		{20, 100, 200, 10},
		{20, 4, 200, 1}, // 0.4, at least 1
		{20, 15, 200, 1},
		{1, 200, 200, 1},
	} {
		if got := localBurst(tc.burst, tc.limit, tc.target); got != tc.want {
			t.Errorf("localBurst(%d, %v, %v) = %d, want %d", tc.burst, tc.limit, tc.target, got, tc.want)
		}
	}
}

// newAdaptive is NewAdaptive with manual syncs on a fake clock and no headroom (the seed's
// rule as it is: the fleet aims at the target), failing the test on error.
func newAdaptive(t *testing.T, table Table, clock Clock, id string) *Adaptive {
	t.Helper()
	return newAdaptiveWith(t, AdaptiveConfig{Table: table, Clock: clock, ClientID: id, Headroom: -1})
}

// newAdaptiveWith is NewAdaptive of the fleet of newAdaptive (its name, target, manual syncs
// and stale time) with cfg's table, clock, client ID and headroom.
func newAdaptiveWith(t *testing.T, cfg AdaptiveConfig) *Adaptive {
	t.Helper()
	a, err := NewAdaptive(t.Context(), AdaptiveConfig{
		Table: cfg.Table, Name: "fleet", Target: 100, SyncInterval: -1, StaleAfter: 3 * time.Second,
		ClientID: cfg.ClientID, Clock: cfg.Clock, Headroom: cfg.Headroom,
	})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// round lets each client use its whole local limit for a second, then syncs them all.
func round(t *testing.T, clock *fakeClock, clients ...*Adaptive) {
	t.Helper()
	roundUsing(t, clock, 1, clients...)
}

// roundUsing lets each client use the fraction used of its local limit for a second, then
// syncs them all.
func roundUsing(t *testing.T, clock *fakeClock, used float64, clients ...*Adaptive) {
	t.Helper()
	for _, a := range clients {
		a.Record(used * float64(a.Limit()))
	}
	clock.Advance(time.Second)
	for _, a := range clients {
		if err := a.Sync(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
}

// within reports whether got is within frac of want.
func within(got, want, frac float64) bool { return math.Abs(got-want) <= frac*want }

func TestAdaptiveConvergesAndDropsStaleClients(t *testing.T) {
	clock := newFakeClock()
	table := newTable(t)
	a := newAdaptive(t, table, clock, "a")
	b := newAdaptive(t, table, clock, "b")
	c := newAdaptive(t, table, clock, "c")
	// Each announces a fair share, scaled down by how far the announced rates would go over,
	// and starts at DefaultSmoothing times it.
	shareB := 50 * 100 / (100 + 50.0)
	shareC := 100.0 / 3 * 100 / (100 + shareB + 100.0/3)
	for _, tc := range []struct {
		a    *Adaptive
		want float64
	}{{a, DefaultSmoothing * 100}, {b, DefaultSmoothing * shareB}, {c, DefaultSmoothing * shareC}} {
		if got := float64(tc.a.Limit()); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("client %s's initial limit %v, want %v", tc.a.ClientID(), got, tc.want)
		}
	}
	for range 12 {
		round(t, clock, a, b, c)
	}
	sum := float64(a.Limit() + b.Limit() + c.Limit())
	if !within(sum, 100, 0.15) || !within(a.Aggregate(), 100, 0.15) {
		t.Errorf("after 12 syncs: limits sum to %v, aggregate %v; want 100 ± 15 %%", sum, a.Aggregate())
	}
	// c stops without a word; after StaleAfter it drops out and a and b take its share.
	for range 12 {
		round(t, clock, a, b)
	}
	sum = float64(a.Limit() + b.Limit())
	if !within(sum, 100, 0.15) || !within(b.Aggregate(), 100, 0.15) {
		t.Errorf("after c left: limits sum to %v, aggregate %v; want 100 ± 15 %%", sum, b.Aggregate())
	}
	s, err := a.readSummary(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(s.clients)
	if strings.Join(s.clients, ",") != "a,b" {
		t.Errorf("registered clients %v, want [a b]", s.clients)
	}
	got, err := server.Client.GetItem(t.Context(), &dynamodb.GetItemInput{
		TableName: aws.String(table.Name),
		Key:       c.table.key(reportKey(c.table, "fleet", "c")),
	})
	if err != nil || got.Item != nil {
		t.Errorf("c's report after it was dropped: %v (%v), want none", got.Item, err)
	}
	// Closing the aggregator hands the lease on at once.
	if err := a.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(t.Context()); !errors.Is(err, ErrClosed) {
		t.Errorf("second Close: got %v, want ErrClosed", err)
	}
	round(t, clock, b)
	if s, err = b.readSummary(t.Context()); err != nil || s.aggregator != "b" {
		t.Errorf("aggregator after a closed: %q (%v), want b", s.aggregator, err)
	}
}

func TestAdaptiveUnderUseDoesNotRaiseLimits(t *testing.T) {
	clock := newFakeClock()
	table := newTable(t)
	a := newAdaptive(t, table, clock, "a")
	b := newAdaptive(t, table, clock, "b")
	for range 12 {
		round(t, clock, a, b)
	}
	// A loaded machine: the clients use only 80 % of their limits. The aggregate reads a fifth
	// under the target, but the limits must not grow past it, or the fleet would overshoot as
	// soon as it uses them again.
	most := 0.0
	for range 12 {
		roundUsing(t, clock, 0.8, a, b)
		most = max(most, float64(a.Limit()+b.Limit()))
	}
	if most > 101 {
		t.Errorf("limits added up to %.1f while the clients used 80 %% of them, want at most the target 100 (+1 %%)", most)
	}
	// Back to full use: the fleet takes up the target again.
	for range 12 {
		round(t, clock, a, b)
	}
	if sum := float64(a.Limit() + b.Limit()); !within(sum, 100, 0.05) {
		t.Errorf("limits add up to %.1f at full use, want 100 ± 5 %%", sum)
	}
}

func TestAdaptiveJoinerTakesItsShare(t *testing.T) {
	clock := newFakeClock()
	table := newTable(t)
	a := newAdaptive(t, table, clock, "a")
	b := newAdaptive(t, table, clock, "b")
	for range 12 {
		round(t, clock, a, b)
	}
	// c joins a fleet at its target: it claims a third of the target, scaled down by how far
	// the fleet would go over, and starts at DefaultSmoothing times that. The others make room
	// for the claim, and c's limit reaches it, scaled to the target, without overshooting much.
	c := newAdaptive(t, table, clock, "c")
	share := 100.0 / 3 * 100 / (a.Aggregate() + 100.0/3)
	most := 0.0
	for range 12 {
		round(t, clock, a, b, c)
		most = max(most, float64(a.Limit()+b.Limit()+c.Limit()))
	}
	if got, want := float64(c.Limit()), share*100/(100+share); !within(got, want, 0.15) {
		t.Errorf("the joiner's limit %.1f after 12 syncs, want its share %.1f scaled to the target (± 15 %%)", got, want)
	}
	if sum := float64(a.Limit() + b.Limit() + c.Limit()); !within(sum, 100, 0.05) || most > 110 {
		t.Errorf("limits add up to %.1f after the join (at most %.1f), want 100 ± 5 %% (at most 110)", sum, most)
	}
}

func TestAdaptiveIdleJoinersClaimLapses(t *testing.T) {
	clock := newFakeClock()
	table := newTable(t)
	a := newAdaptive(t, table, clock, "a")
	b := newAdaptive(t, table, clock, "b")
	for range 12 {
		round(t, clock, a, b)
	}
	// c joins and claims a share, but uses nothing: after SlowStartSyncs its claim lapses and
	// a and b take the whole target again.
	c := newAdaptive(t, table, clock, "c")
	for range SlowStartSyncs + 12 {
		a.Record(float64(a.Limit()))
		b.Record(float64(b.Limit()))
		clock.Advance(time.Second)
		for _, x := range []*Adaptive{a, b, c} {
			if err := x.Sync(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
	}
	if sum := float64(a.Limit() + b.Limit()); !within(sum, 100, 0.05) {
		t.Errorf("a and b's limits add up to %.1f beside an idle joiner, want 100 ± 5 %%", sum)
	}
}

func TestAdaptiveLocalBurstIsAShareOfTheFleets(t *testing.T) {
	clock := newFakeClock()
	table := newTable(t)
	start := func(id string) *Adaptive {
		a, err := NewAdaptive(t.Context(), AdaptiveConfig{
			Table: table, Name: "fleet", Target: 100, Burst: 20, SyncInterval: -1, ClientID: id, Clock: clock, Headroom: -1,
		})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	a := start("a")
	// A lone client starts at DefaultSmoothing times the whole target: that share of the burst.
	if got, want := a.local.Burst(), int(DefaultSmoothing*20); got != want {
		t.Errorf("a lone client's local burst %d at limit %.1f, want %d", got, a.Limit(), want)
	}
	b := start("b")
	for range 12 {
		round(t, clock, a, b)
	}
	for _, c := range []*Adaptive{a, b} {
		if got, want := c.local.Burst(), localBurst(20, c.Limit(), 100); got != want || got >= 20 {
			t.Errorf("client %s's local burst %d at limit %.1f, want %d (its share of 20)", c.ClientID(), got, c.Limit(), want)
		}
	}
}

func TestCapacityMiddlewareCountsConsumedUnits(t *testing.T) {
	clock := newFakeClock()
	table := newTable(t)
	writes := newAdaptive(t, table, clock, "writes")
	app, err := ddblocal.NewClient(t.Context(), server.Endpoint, WithCapacityLimit(nil, writes))
	if err != nil {
		t.Fatal(err)
	}
	// An item of about 2.5 KB: 3 write units.
	out, err := app.PutItem(t.Context(), &dynamodb.PutItemInput{
		TableName: aws.String(table.Name),
		Item: map[string]types.AttributeValue{
			DefaultKeyAttribute:    &types.AttributeValueMemberS{Value: "big"},
			table.SortKeyAttribute: &types.AttributeValueMemberS{Value: "big"},
			"payload":              &types.AttributeValueMemberS{Value: strings.Repeat("x", 2500)},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if out.ConsumedCapacity == nil || aws.ToFloat64(out.ConsumedCapacity.CapacityUnits) != 3 {
		t.Fatalf("ConsumedCapacity %+v, want 3 units (the middleware asks for it)", out.ConsumedCapacity)
	}
	writes.mu.Lock()
	consumed := writes.consumed
	writes.mu.Unlock()
	if consumed != 3 {
		t.Errorf("recorded %v units, want the 3 consumed", consumed)
	}
	// The two units beyond the estimate are charged to the local limiter (burst 1, so it is in
	// debt), so the next write must wait.
	if writes.local.AllowN(clock.Now(), 1) {
		t.Error("the local limiter allowed a write right after a 3-unit write at burst 1")
	}
}

func TestSetLimitMovesADefaultMaxLocal(t *testing.T) {
	clock := newFakeClock()
	a := newAdaptive(t, newTable(t), clock, "solo")
	a.SetLimit(400)
	// Using its whole limit, far under a 400 target, the client scales up by MaxScaleUp a
	// sync (1.4 times after smoothing), past the old target of 100.
	want := a.Limit()
	for range 5 {
		round(t, clock, a)
		want *= 0.6 + 0.4*MaxScaleUp
	}
	if got := a.Limit(); math.Abs(float64(got-want)) > 1e-9 || got <= 100 {
		t.Errorf("limit after SetLimit(400) and five syncs %v, want %v", got, want)
	}
}

func TestAdaptiveHeadroomAimsBelowTheTarget(t *testing.T) {
	clock := newFakeClock()
	table := newTable(t)
	a := newAdaptiveWith(t, AdaptiveConfig{Table: table, Clock: clock, ClientID: "a"})
	b := newAdaptiveWith(t, AdaptiveConfig{Table: table, Clock: clock, ClientID: "b"})
	for range 20 {
		round(t, clock, a, b)
	}
	// The default headroom: the two clients, each using its whole limit, settle at
	// (1 − DefaultHeadroom) of the target of 100, not at 100.
	if sum, want := float64(a.Limit()+b.Limit()), 100*(1-DefaultHeadroom); !within(sum, want, 0.02) {
		t.Errorf("limits add up to %.1f with the default headroom, want %.1f ± 2 %%", sum, want)
	}
	if _, err := NewAdaptive(t.Context(), AdaptiveConfig{Table: table, Name: "fleet", Target: 100, Headroom: 1}); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("NewAdaptive(Headroom: 1) = %v, want ErrInvalidConfig", err)
	}
}
