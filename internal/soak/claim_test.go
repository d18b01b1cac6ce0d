package soak_test

import (
	"strings"
	"testing"

	"github.com/turnstile-sfn/turnstile/internal/soak"
)

// TestQueueSoakWithClaimsKeepsItsPromises is TestSmallQueueSoakKeepsItsPromises with every
// hand-off claimed first (lock.WithClaimHolders(1); the queue soak's 3 slots are below
// lock.DefaultClaimHolders): under lost replies the claims, their hand-offs and the deletes of
// the claimed items keep the queue's promises, and the FIFO model accepts the histories.
func TestQueueSoakWithClaimsKeepsItsPromises(t *testing.T) {
	cfg := smallQueueSoak()
	cfg.QueueClaimHolders = 1
	report, err := soak.Run(t.Context(), endpoint(t), cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	var text strings.Builder
	if err := report.WriteText(&text, cfg.Limit); err != nil {
		t.Fatalf("WriteText: %v", err)
	}
	t.Logf("\n%s", text.String())
	promises := []struct {
		name  string
		count int64
	}{
		{"histories the FIFO model rejects", int64(report.FailingHistories)},
		{"admissions out of order", int64(report.OutOfOrder)},
		{"waiters not woken in time", report.StrandedWaiters},
		{"reads over the limit", int64(report.OverLimitReads)},
		{"reads breaking the invariant", int64(report.BrokenReads)},
		{"slots leaked", int64(report.LeakedSlots)},
		{"seeds ended by a lock error", int64(report.LockErrors)},
	}
	for _, p := range promises {
		if p.count != 0 {
			t.Errorf("%s = %d, want 0; first failure: %s", p.name, p.count, report.FirstFailure)
		}
	}
	if report.Faults.AppliedReplyLost == 0 || report.Leaves == 0 {
		t.Errorf("replies lost %d, leaves %d: the soak did not exercise them", report.Faults.AppliedReplyLost, report.Leaves)
	}
}
