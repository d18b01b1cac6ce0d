package machines_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/emulator"
)

// TestInputLocksAreTheMachines: for crafted and random inputs, InputLocks.Locks gives the locks
// (names and limits, in order) and For the first of them that the machine's own Check Lock
// Names and Prepare Locks give when run in the emulator, for a semaphore with several locks and one with a total cap; an input the machine
// refuses with Turnstile.InvalidLockName gives ErrInputLockName.
func TestInputLocksAreTheMachines(t *testing.T) {
	work := machines.LambdaWork("arn:work")
	several, err := machines.Semaphore(machines.SemaphoreOptions{Locks: []machines.LockSpec{{LockName: "m%}"}, {LockNamePath: "$.region"}, {LockNamePath: "$.jobs[0].queue", Limit: 3}},
		Limit: 2, WaitStrategy: machines.WaitCallback, Work: work})
	if err != nil {
		t.Fatal(err)
	}
	total, err := machines.Semaphore(machines.SemaphoreOptions{LockNamePath: "$.tenant", Limit: 3, TotalLimit: 12, WaitStrategy: machines.WaitCallback, Work: work})
	if err != nil {
		t.Fatal(err)
	}
	fixed, err := machines.Semaphore(machines.SemaphoreOptions{Locks: []machines.LockSpec{{LockName: "z"}, {LockName: "b", Limit: 4}}, Limit: 2, WaitStrategy: machines.WaitCallback, Work: work})
	if err != nil {
		t.Fatal(err)
	}
	em := emulator.New(emulator.Options{Clock: emulator.NewScaledClock(time.Time{}, 0)})
	defer em.Close()

	names := []any{"a", "eu", "m%}", "q", "~last", "#total", "#total#x", "", 7, nil}
	rng := rand.New(rand.NewPCG(3, 4))
	pick := func() any { return names[rng.IntN(len(names))] }
	for i, m := range []*asl.StateMachine{several, total, fixed} {
		first, ok := machines.SemaphoreInputLocks(m)
		if !ok {
			t.Fatalf("machine %d: SemaphoreInputLocks not ok", i)
		}
		arn := prepareOnly(t, em, fmt.Sprintf("first-%d", i), m, machines.StateCheckLockNames, machines.StateInvalidLockName)
		inputs := []string{`{"region":"eu","jobs":[{"queue":"a"}],"tenant":"t"}`, `{}`, `"text"`, `{"region":"q","jobs":[{"queue":"q"}],"tenant":"#total#q"}`}
		for range 40 {
			doc := map[string]any{"region": pick(), "tenant": pick(), "jobs": []any{map[string]any{"queue": pick()}}}
			if rng.IntN(5) == 0 {
				delete(doc, "region")
			}
			raw, _ := json.Marshal(doc)
			inputs = append(inputs, string(raw))
		}
		for _, input := range inputs {
			want, refused := runPrepare(t, em, arn, input)
			name, limit, err := first.For(input)
			locks, errLocks := first.Locks(input)
			switch {
			case refused && (!errors.Is(err, machines.ErrInputLockName) || !errors.Is(errLocks, machines.ErrInputLockName)):
				t.Errorf("machine %d, %s: For = %q, %d, %v, Locks = %v, %v; the machine refuses it, want ErrInputLockName", i, input, name, limit, err, locks, errLocks)
			case !refused && (err != nil || name != want[0].Name || limit != want[0].Limit):
				t.Errorf("machine %d, %s: For = %q, %d, %v; want %v", i, input, name, limit, err, want[0])
			case !refused && (errLocks != nil || !slices.Equal(withoutGates(locks), want)):
				t.Errorf("machine %d, %s: Locks = %v, %v; want %v", i, input, locks, errLocks, want)
			case !refused && m == total && !(len(locks) == 3 && !locks[0].Gate && locks[1].Gate && !locks[2].Gate):
				t.Errorf("machine %d, %s: Locks = %v; want the key's lock, its gate (Gate) and the total lock", i, input, locks)
			case !refused && m != total && slices.ContainsFunc(locks, func(l machines.LockRef) bool { return l.Gate }):
				t.Errorf("machine %d, %s: Locks = %v; a machine without a total cap has no gate", i, input, locks)
			}
		}
	}
	if _, ok := machines.SemaphoreInputLocks(mustSemaphore(t, machines.SemaphoreOptions{LockName: "L", Limit: 1, WaitStrategy: machines.WaitCallback, Work: work})); ok {
		t.Error("SemaphoreInputLocks of a single-lock machine is ok, want not")
	}
	cleanup, err := machines.Cleanup(machines.CleanupOptions{Locks: []machines.LockSpec{{LockName: "a"}, {LockNamePath: "$.k"}}, Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := machines.SemaphoreInputLocks(cleanup); ok {
		t.Error("SemaphoreInputLocks of a several-lock cleanup machine is ok, want not")
	}
	wantPaths := [][]string{{"$.region", "$.jobs[0].queue"}, {"$.tenant"}, nil}
	for i, m := range []*asl.StateMachine{several, total, fixed} {
		first, _ := machines.SemaphoreInputLocks(m)
		if got := first.Paths(); !slices.Equal(got, wantPaths[i]) {
			t.Errorf("machine %d: Paths = %q, want %q", i, got, wantPaths[i])
		}
	}
	if _, _, err := (machines.InputLocks{}).For("{}"); err == nil {
		t.Error("the zero InputLocks gave a lock")
	}
}

// TestSemaphoreParks: a machine parks its waiters under the Callback strategy, with one lock or
// several, and not under Poll.
func TestSemaphoreParks(t *testing.T) {
	work := machines.LambdaWork("arn:work")
	locks := []machines.LockSpec{{LockName: "a"}, {LockName: "b"}}
	for _, tc := range []struct {
		opts machines.SemaphoreOptions
		want bool
	}{
		{machines.SemaphoreOptions{LockName: "L", Limit: 1, WaitStrategy: machines.WaitCallback, Work: work}, true},
		{machines.SemaphoreOptions{LockName: "L", Limit: 1, WaitStrategy: machines.WaitPoll, Work: work}, false},
		{machines.SemaphoreOptions{Locks: locks, Limit: 1, WaitStrategy: machines.WaitCallback, Work: work}, true},
		{machines.SemaphoreOptions{Locks: locks, Limit: 1, WaitStrategy: machines.WaitPoll, Work: work}, false},
		{machines.SemaphoreOptions{LockNamePath: "$.k", TotalLimit: 2, Limit: 1, WaitStrategy: machines.WaitCallback, Work: work}, true},
	} {
		if got := machines.SemaphoreParks(mustSemaphore(t, tc.opts)); got != tc.want {
			t.Errorf("%s, %d locks, total %d: SemaphoreParks = %v, want %v", tc.opts.WaitStrategy, len(tc.opts.Locks), tc.opts.TotalLimit, got, tc.want)
		}
	}
}

func mustSemaphore(t *testing.T, o machines.SemaphoreOptions) *asl.StateMachine {
	t.Helper()
	m, err := machines.Semaphore(o)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// prepareOnly creates in em, under name, a machine of m's states named first (those m has) and
// its Prepare Locks, ending there.
func prepareOnly(t *testing.T, em *emulator.Emulator, name string, m *asl.StateMachine, first ...string) string {
	t.Helper()
	var states asl.States
	for _, n := range append(first, machines.StatePrepareLocks) {
		s := m.States.Get(n)
		if s == nil {
			continue
		}
		if p, ok := s.(*asl.Pass); ok && n == machines.StatePrepareLocks {
			clone := *p
			clone.Transition = asl.End()
			s = &clone
		}
		states = append(states, asl.NamedState{Name: n, State: s})
	}
	rendered, err := (&asl.StateMachine{StartAt: states[0].Name, States: states}).Render()
	if err != nil {
		t.Fatal(err)
	}
	arn, err := em.CreateStateMachine(name, string(rendered), emulator.StateMachineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return arn
}

// withoutGates is locks with Gate false: the machine's own list does not tell gates.
func withoutGates(locks []machines.LockRef) []machines.LockRef {
	out := slices.Clone(locks)
	for i := range out {
		out[i].Gate = false
	}
	return out
}

// runToEnd starts an execution of arn on input in em and waits for its end: the execution as
// it ended (an output, or an error and a cause).
func runToEnd(t *testing.T, em *emulator.Emulator, arn, input string) emulator.ExecutionDescription {
	t.Helper()
	started, err := em.StartExecution(context.Background(), arn, "", input)
	if err != nil {
		t.Fatal(err)
	}
	done, err := em.Wait(context.Background(), started.ExecutionArn)
	if err != nil {
		t.Fatalf("%s: %v", input, err)
	}
	return done
}

// runPrepare runs the machine of prepareOnly on input: its locks, or refused when it failed
// with Turnstile.InvalidLockName.
func runPrepare(t *testing.T, em *emulator.Emulator, arn, input string) (locks []machines.LockRef, refused bool) {
	t.Helper()
	done := runToEnd(t, em, arn, input)
	if done.Output == nil {
		if deref(done.Error) != machines.ErrorInvalidLockName {
			t.Fatalf("%s: the machine failed with %s: %s", input, deref(done.Error), deref(done.Cause))
		}
		return nil, true
	}
	var out struct {
		Locks []struct {
			LockName string `json:"lockName"`
			Limit    int    `json:"limit"`
		} `json:"locks"`
	}
	if err := json.Unmarshal([]byte(*done.Output), &out); err != nil || len(out.Locks) == 0 {
		t.Fatalf("%s: output %s: %v", input, *done.Output, err)
	}
	for _, l := range out.Locks {
		locks = append(locks, machines.LockRef{Name: l.LockName, Limit: l.Limit})
	}
	return locks, false
}
