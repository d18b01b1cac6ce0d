package simulate

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/turnstile-sfn/turnstile/cmd/app/demo"
	"github.com/turnstile-sfn/turnstile/constructs/semaphore"
	"github.com/turnstile-sfn/turnstile/emulator/template"
	"github.com/turnstile-sfn/turnstile/lambdas/testrunner/runner"
)

// TestSeveralLocks: the demo with several locks (a shared lock of limit 3 and a lock per tenant
// of limit 2) and the demo with a total cap (a lock per tenant of limit 2, 3 in all) run 40
// executions over 3 tenants: every execution succeeds, no lock has more executions inside the
// work than its limit while the tightest one is filled, and no slot or waiter is left on any
// lock.
func TestSeveralLocks(t *testing.T) {
	if testing.Short() {
		t.Skip("synthesizes the demo app")
	}
	keys := []string{"a", "b", "c"}
	for name, cfg := range map[string]demo.Config{
		"several locks": {Locks: []semaphore.LockSpec{{LockName: "shared", Limit: 3}, {LockNamePath: "$.tenant"}}, Limit: 2},
		"total cap":     {LockNamePath: "$.tenant", TotalLimit: 3, Limit: 2},
	} {
		t.Run(name, func(t *testing.T) {
			c := demo.DefaultConfig()
			c.Locks, c.LockNamePath, c.TotalLimit, c.Limit, c.FailureRate = cfg.Locks, cfg.LockNamePath, cfg.TotalLimit, cfg.Limit, 0
			res, err := Run(context.Background(), Scenario{Demo: &c, Executions: 40, Keys: keys, Seed: 4, DynamoDB: server.Local})
			if err != nil {
				t.Fatal(err)
			}
			if v := res.Violations(); len(v) > 0 {
				t.Errorf("violations: %v", v)
			}
			if r := res.Report; r.Succeeded != 40 || r.LeakedSlots != 0 || r.WaitersLeft != 0 || r.Locks == nil {
				t.Errorf("%d of 40 succeeded (%v), %d slots leaked, %d waiters left, locks read: %v", r.Succeeded, r.FailedByError, r.LeakedSlots, r.WaitersLeft, r.Locks != nil)
			}
			names := slices.Sorted(maps.Keys(res.Locks))
			if len(names) != 4 || !slices.Equal(names[:3], keys) && !slices.Equal(names[1:], keys) {
				t.Fatalf("locks measured: %v, want the 3 tenants and the shared (or total) lock, no gate", names)
			}
			for _, n := range names {
				f := res.Locks[n]
				tenant := slices.Contains(keys, n)
				wantLimit, wantExecutions := 3, 40
				if tenant {
					wantLimit, wantExecutions = 2, 14-min(1, slices.Index(keys, n))
				}
				if f.Limit != wantLimit || f.Executions != wantExecutions || f.MaxConcurrentWork < 1 || f.MaxConcurrentWork > f.Limit {
					t.Errorf("lock %s: %+v, want limit %d, %d executions, 1 to %d inside the work at once", n, f, wantLimit, wantExecutions, wantLimit)
				}
				if !tenant && f.MaxConcurrentWork != f.Limit {
					t.Errorf("lock %s: at most %d inside the work at once; with 3 tenants of 2 slots it should be filled to %d", n, f.MaxConcurrentWork, f.Limit)
				}
			}
			if res.IdealMakespanSeconds <= 0 || res.TransitionsPerExecution <= 0 {
				t.Errorf("ideal makespan %.1f s, %.1f transitions per execution; want both above 0", res.IdealMakespanSeconds, res.TransitionsPerExecution)
			}
		})
	}
}

// TestLockViolations: a lock with more executions inside the work than its limit is reported,
// by name; its waiters' order is not judged.
func TestLockViolations(t *testing.T) {
	res := Result{Report: &runner.Report{AdmissionOrderInversions: 2}, Locks: map[string]LockFigures{
		"a": {Limit: 2, MaxConcurrentWork: 2}, "b": {Limit: 2, MaxConcurrentWork: 3},
	}}
	v := res.Violations()
	if len(v) != 1 || !strings.Contains(v[0], `"b"`) {
		t.Errorf("violations: %q, want one, of the lock b", v)
	}
}

// TestNoSemaphore: a cloud assembly without a semaphore is refused with ErrNoSemaphore, which
// says what to pass instead.
func TestNoSemaphore(t *testing.T) {
	tmpl, err := template.Load("../../emulator/template/testdata/cdk.out", template.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = findSemaphore(tmpl, "")
	if !errors.Is(err, ErrNoSemaphore) || !strings.Contains(err.Error(), "--cdk-out") || !strings.Contains(err.Error(), "demo") {
		t.Errorf("findSemaphore: %v, want ErrNoSemaphore saying what to pass with --cdk-out", err)
	}
}
