package machines_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/emulator"
)

// severalLocks are the locks of the several-locks golden cases: a fixed one and two read from
// the input, one with its own limit.
func severalLocks() []machines.LockSpec {
	return []machines.LockSpec{{LockName: "database"}, {LockNamePath: "$.region"}, {LockNamePath: "$.jobs[0].queue", Limit: 3}}
}

// TestSeveralLocksRejectsInvalidOptions checks the named errors of bad Locks.
func TestSeveralLocksRejectsInvalidOptions(t *testing.T) {
	work := machines.LambdaWork("arn:aws:lambda:us-east-1:123456789012:function:work")
	valid := func(edit func(o *machines.SemaphoreOptions)) machines.SemaphoreOptions {
		o := machines.SemaphoreOptions{Locks: severalLocks(), Limit: 2, Work: work, WaitStrategy: machines.WaitCallback}
		edit(&o)
		return o
	}
	tests := []struct {
		name      string
		opts      machines.SemaphoreOptions
		wantErr   error
		wantField string
		wantInMsg string
	}{
		{"with LockName", valid(func(o *machines.SemaphoreOptions) { o.LockName = "x" }), machines.ErrLockName, "Locks", "mutually exclusive"},
		{"with Rate", valid(func(o *machines.SemaphoreOptions) { o.Rate = &machines.RateOptions{PerSecond: 1} }), machines.ErrRate, "Rate", "not supported with Locks"},
		{"with priorities", valid(func(o *machines.SemaphoreOptions) { o.PriorityPath = "$.priority" }), machines.ErrPriority, "PriorityPath", "not supported with Locks"},
		{"with weights", valid(func(o *machines.SemaphoreOptions) { o.WeightPath = "$.slots" }), machines.ErrWeight, "WeightPath", "not supported with Locks"},
		{"a total limit with weights", machines.SemaphoreOptions{LockNamePath: "$.tenant", Limit: 3, TotalLimit: 12, Work: work, WaitStrategy: machines.WaitCallback, WeightPath: "$.slots"},
			machines.ErrWeight, "WeightPath", "not supported with TotalLimit"},
		{"spec without a name", valid(func(o *machines.SemaphoreOptions) { o.Locks[1].LockNamePath = "" }), machines.ErrLockName, "Locks[1].LockName", "got neither"},
		{"spec with both names", valid(func(o *machines.SemaphoreOptions) { o.Locks[0].LockNamePath = "$.a" }), machines.ErrLockName, "Locks[0].LockName", "got both"},
		{"fixed name twice", valid(func(o *machines.SemaphoreOptions) { o.Locks[1] = machines.LockSpec{LockName: "database"} }), machines.ErrLockName, "Locks[1].LockName", "named twice"},
		{"path with a wildcard", valid(func(o *machines.SemaphoreOptions) { o.Locks[1].LockNamePath = "$.regions[*]" }), machines.ErrLockNamePath, "Locks[1].LockNamePath", `"$.regions[*]"`},
		{"path with a quoted field", valid(func(o *machines.SemaphoreOptions) { o.Locks[1].LockNamePath = "$.a['b']" }), machines.ErrLockNamePath, "Locks[1].LockNamePath", "plain field names"},
		{"no limit", valid(func(o *machines.SemaphoreOptions) { o.Limit = 0 }), machines.ErrLimit, "Locks[0].Limit", "must be > 0"},
		{"limit too high", valid(func(o *machines.SemaphoreOptions) { o.Locks[2].Limit = machines.MaxLimit + 1 }), machines.ErrLimit, "Locks[2].Limit", "MaxLimit"},
		{"acquire timeouts beyond the timeout", valid(func(o *machines.SemaphoreOptions) { o.AcquireTimeout, o.Timeout = 20*time.Minute, time.Hour }), machines.ErrTiming, "AcquireTimeout", "times the 3 locks"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := machines.Semaphore(tc.opts)
			var oe *machines.OptionError
			if !errors.As(err, &oe) {
				t.Fatalf("got %v, want an *OptionError", err)
			}
			if !errors.Is(err, tc.wantErr) || oe.Field != tc.wantField || !strings.Contains(err.Error(), tc.wantInMsg) {
				t.Errorf("got %q (field %q), want field %q, %v, and %q in the message", err, oe.Field, tc.wantField, tc.wantErr, tc.wantInMsg)
			}
		})
	}
	total := func(edit func(o *machines.SemaphoreOptions)) machines.SemaphoreOptions {
		o := machines.SemaphoreOptions{LockNamePath: "$.tenant", Limit: 3, TotalLimit: 12, Work: work, WaitStrategy: machines.WaitCallback}
		edit(&o)
		return o
	}
	for _, tc := range []struct {
		name      string
		opts      machines.SemaphoreOptions
		wantErr   error
		wantField string
		wantInMsg string
	}{
		{"total without a key path", total(func(o *machines.SemaphoreOptions) { o.LockNamePath, o.LockName = "", "x" }), machines.ErrLockName, "TotalLimit", "needs LockNamePath"},
		{"total under Poll", total(func(o *machines.SemaphoreOptions) { o.WaitStrategy = machines.WaitPoll }), machines.ErrWaitStrategy, "WaitStrategy", "with TotalLimit"},
		{"negative total", total(func(o *machines.SemaphoreOptions) { o.TotalLimit = -1 }), machines.ErrLimit, "TotalLimit", "must be 1 to MaxLimit"},
		{"total lock name without a total", total(func(o *machines.SemaphoreOptions) { o.TotalLimit, o.TotalLockName = 0, "all" }), machines.ErrLimit, "TotalLimit", "with TotalLockName"},
		{"blank total lock name", total(func(o *machines.SemaphoreOptions) { o.TotalLockName = " " }), machines.ErrLockName, "TotalLockName", "not only blanks"},
		{"total with Locks", valid(func(o *machines.SemaphoreOptions) { o.TotalLimit = 5 }), machines.ErrLimit, "TotalLimit", "not supported with Locks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := machines.Semaphore(tc.opts)
			var oe *machines.OptionError
			if !errors.As(err, &oe) || !errors.Is(err, tc.wantErr) || oe.Field != tc.wantField || !strings.Contains(err.Error(), tc.wantInMsg) {
				t.Errorf("got %v, want field %q, %v, and %q in the message", err, tc.wantField, tc.wantErr, tc.wantInMsg)
			}
		})
	}
	if _, err := machines.Cleanup(machines.CleanupOptions{Locks: severalLocks()}); !errors.Is(err, machines.ErrLimit) {
		t.Errorf("Cleanup with Locks and no limit: got %v, want ErrLimit", err)
	}
}

// TestSeveralLocksAreSortedAndNamedOnce runs the Prepare Locks states (and, for TotalLimit, Check
// Lock Names) of the semaphore and of its cleanup in the emulator: the locks come out sorted by
// name, a lock named twice once with its smaller limit, a TotalLimit's gate and total lock last,
// a key that begins with the total lock's name rejected, and (cleanup) names that are missing or
// not strings left out.
func TestSeveralLocksAreSortedAndNamedOnce(t *testing.T) {
	specs := []machines.LockSpec{{LockName: "m%}"}, {LockNamePath: "$.region"}, {LockNamePath: "$.jobs[0].queue", Limit: 3}}
	sem, err := machines.Semaphore(machines.SemaphoreOptions{Locks: specs, Limit: 2, WaitStrategy: machines.WaitCallback, Work: machines.LambdaWork("arn:work")})
	if err != nil {
		t.Fatal(err)
	}
	cleanup, err := machines.Cleanup(machines.CleanupOptions{Locks: specs, Limit: 2, HandOffFunctionArn: "arn:handoff"})
	if err != nil {
		t.Fatal(err)
	}
	em := emulator.New(emulator.Options{Clock: emulator.NewScaledClock(time.Time{}, 0)})
	defer em.Close()
	created := 0
	only := func(m *asl.StateMachine, first ...string) string {
		created++
		return prepareOnly(t, em, fmt.Sprintf("prepare-%d", created), m, first...)
	}
	totalSem, err := machines.Semaphore(machines.SemaphoreOptions{LockNamePath: "$.tenant", Limit: 3, TotalLimit: 12, WaitStrategy: machines.WaitCallback, Work: machines.LambdaWork("arn:work")})
	if err != nil {
		t.Fatal(err)
	}
	totalCleanup, err := machines.Cleanup(machines.CleanupOptions{LockNamePath: "$.tenant", Limit: 3, TotalLimit: 12, HandOffFunctionArn: "arn:handoff"})
	if err != nil {
		t.Fatal(err)
	}
	totalArn := only(totalSem, machines.StateCheckLockNames, machines.StateInvalidLockName)
	totalCleanupArn := only(totalCleanup, machines.StateReadLocks)
	semArn := only(sem)
	cleanupArn := only(cleanup, machines.StateReadLocks)
	run := func(arn, input string) string {
		done := runToEnd(t, em, arn, input)
		if done.Output == nil {
			return deref(done.Error)
		}
		var out struct {
			Locks json.RawMessage `json:"locks"`
		}
		if err := json.Unmarshal([]byte(*done.Output), &out); err != nil {
			t.Fatal(err)
		}
		return string(out.Locks)
	}
	event := func(input string) string {
		b, _ := json.Marshal(map[string]any{"execution": map[string]any{"executionArn": "arn:x", "input": input}})
		return string(b)
	}
	tests := []struct{ name, arn, input, want string }{
		{"three locks", semArn, `{"region":"eu","jobs":[{"queue":"a"}]}`,
			`[{"limit":3,"lockName":"a"},{"limit":2,"lockName":"eu"},{"limit":2,"lockName":"m%}"}]`},
		{"a lock named twice", semArn, `{"region":"q","jobs":[{"queue":"q"}]}`,
			`[{"limit":2,"lockName":"m%}"},{"limit":2,"lockName":"q"}]`},
		{"one lock named thrice", semArn, `{"region":"m%}","jobs":[{"queue":"m%}"}]}`,
			`[{"limit":2,"lockName":"m%}"}]`},
		{"cleanup", cleanupArn, event(`{"region":"eu","jobs":[{"queue":"a"}]}`),
			`[{"limit":3,"lockName":"a"},{"limit":2,"lockName":"eu"},{"limit":2,"lockName":"m%}"}]`},
		{"cleanup of an input without names", cleanupArn, event(`{"region":7}`),
			`[{"limit":2,"lockName":"m%}"}]`},
		{"the key, its gate, then the total lock", totalArn, `{"tenant":"~last"}`,
			`[{"limit":3,"lockName":"~last"},{"limit":1,"lockName":"#total#~last"},{"limit":12,"lockName":"#total"}]`},
		{"a key that begins with the total lock's name", totalArn, `{"tenant":"#total#a"}`, machines.ErrorInvalidLockName},
		{"a key that is not a string", totalArn, `{"tenant":7}`, machines.ErrorInvalidLockName},
		{"cleanup of the key, its gate and the total lock", totalCleanupArn, event(`{"tenant":"a"}`),
			`[{"limit":3,"lockName":"a"},{"limit":1,"lockName":"#total#a"},{"limit":12,"lockName":"#total"}]`},
		{"cleanup of an input that is not an object", cleanupArn, event(`"text"`),
			`[{"limit":2,"lockName":"m%}"}]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := run(tc.arn, tc.input); got != tc.want {
				t.Errorf("locks of %s:\n got %s\nwant %s", tc.input, got, tc.want)
			}
		})
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
