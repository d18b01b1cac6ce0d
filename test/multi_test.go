package test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/cmd/app/demo"
	"github.com/turnstile-sfn/turnstile/constructs/semaphore"
	"github.com/turnstile-sfn/turnstile/emulator"
	"github.com/turnstile-sfn/turnstile/emulator/eventbus"
	"github.com/turnstile-sfn/turnstile/emulator/lambdafn"
	"github.com/turnstile-sfn/turnstile/emulator/stack"
	"github.com/turnstile-sfn/turnstile/emulator/template"
	"github.com/turnstile-sfn/turnstile/internal/simulate"
	"github.com/turnstile-sfn/turnstile/lambdas/dowork/work"
	"github.com/turnstile-sfn/turnstile/lambdas/testrunner/runner"
	"github.com/turnstile-sfn/turnstile/lock"
)

// multiLocks are the three lock paths of the several-locks demo: each execution names a lock at
// each of them, picked at random from multiLockNames (a lock named twice is taken once), so it
// takes one, two or three locks, named in any order.
var (
	multiLocks     = []semaphore.LockSpec{{LockNamePath: "$.first"}, {LockNamePath: "$.second"}, {LockNamePath: "$.third"}}
	multiLockNames = []string{"db", "region", "queue"}
)

// multiInput is the input of an execution of the several-locks demo.
type multiInput struct {
	First  string `json:"first"`
	Second string `json:"second"`
	Third  string `json:"third"`
}

// locks are the distinct locks the input names.
func (in multiInput) locks() []string {
	names := []string{in.First, in.Second, in.Third}
	slices.Sort(names)
	return slices.Compact(names)
}

// workMeter counts, per lock, the work invocations running at once: the work runs while its
// execution holds every lock its input names.
type workMeter struct {
	limit      int
	mu         sync.Mutex
	running    map[string]int
	max        map[string]int
	violations []string
}

func newWorkMeter(limit int) *workMeter {
	return &workMeter{limit: limit, running: map[string]int{}, max: map[string]int{}}
}

// wrap counts the invocations of h by the locks their payload names.
func (m *workMeter) wrap(h lambdafn.Handler) lambdafn.Handler {
	return func(ctx context.Context, payload []byte) ([]byte, error) {
		var in multiInput
		if err := json.Unmarshal(payload, &in); err != nil {
			return nil, err
		}
		locks := in.locks()
		m.mu.Lock()
		for _, l := range locks {
			m.running[l]++
			m.max[l] = max(m.max[l], m.running[l])
			if m.running[l] > m.limit {
				m.violations = append(m.violations, fmt.Sprintf("%s: %d works at once (limit %d)", l, m.running[l], m.limit))
			}
		}
		m.mu.Unlock()
		defer func() {
			m.mu.Lock()
			for _, l := range locks {
				m.running[l]--
			}
			m.mu.Unlock()
		}()
		return h(ctx, payload)
	}
}

// startMultiStack synthesizes the demo with several locks (Limit slots each) and starts it; the
// dowork handler (with its slot check) reports to meter.
func startMultiStack(t *testing.T, cfg demo.Config, meter *workMeter, opts stack.Options) *stack.Stack {
	t.Helper()
	dir := t.TempDir()
	if err := simulate.Synthesize(dir, cfg); err != nil {
		t.Fatalf("synthesize: %v", err)
	}
	handlers := simulate.Handlers()
	doWork := handlers[demo.DoWorkPackage]
	handlers[demo.DoWorkPackage] = func(fn template.Function, env stack.HandlerEnv) (lambdafn.Handler, error) {
		h, err := doWork(fn, env)
		if err != nil {
			return nil, err
		}
		return meter.wrap(h), nil
	}
	opts.Seed, opts.Handlers, opts.DynamoDB = 5, handlers, database.Local
	st, err := stack.Start(context.Background(), dir, opts)
	if err != nil {
		t.Fatalf("start the stack: %v", err)
	}
	t.Cleanup(func() { closeHeld(st, "") })
	return st
}

// semaphoreArn is the demo semaphore's state machine.
func semaphoreArn(st *stack.Stack) string {
	for _, sm := range st.Template.StateMachines {
		if strings.HasPrefix(sm.LogicalID, demo.SemaphoreID+"StateMachine") {
			return sm.ARN
		}
	}
	return ""
}

// lockClient reads the stack's lock table.
func lockClient(t *testing.T, st *stack.Stack) *lock.Client {
	t.Helper()
	ddb, err := st.DynamoDBClient(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var table string
	for _, tb := range st.Template.Tables {
		table = tb.Name
	}
	locks, err := lock.New(table, ddb, nil)
	if err != nil {
		t.Fatal(err)
	}
	return locks
}

// TestSeveralLocksRandomCombinations: 80 executions under Callback and 30 under Poll (200 and
// 60 with -large, make bench; Poll's polling costs a minute of real time at 200), each holding
// one to three of three locks (limit 2 each) named in random order, 10 % of the works failing.
// Every execution ends (none with Turnstile.AcquireTimeout: no deadlock), no lock ever runs
// more than 2 works at once, and every lock ends with no holder and no waiter. Run with -v for
// the figures.
func TestSeveralLocksRandomCombinations(t *testing.T) {
	for strategy, executions := range map[semaphore.WaitStrategy]int{semaphore.WaitCallback: sized(80, 200), semaphore.WaitPoll: sized(30, 60)} {
		t.Run(string(strategy), func(t *testing.T) { randomCombinations(t, strategy, executions) })
	}
}

// randomCombinations is TestSeveralLocksRandomCombinations under one wait strategy.
func randomCombinations(t *testing.T, strategy semaphore.WaitStrategy, executions int) {
	const limit = 2
	cfg := demo.DefaultConfig()
	cfg.Limit, cfg.WorkDuration, cfg.FailureRate, cfg.WaitStrategy, cfg.Locks = limit, 5*time.Second, 0.1, strategy, multiLocks
	meter := newWorkMeter(limit)
	st := startMultiStack(t, cfg, meter, stack.Options{})
	ctx := context.Background()
	arn := semaphoreArn(st)
	start := st.Clock().Now()
	var end time.Time

	rng := rand.New(rand.NewPCG(1, 2))
	pick := func() string { return multiLockNames[rng.IntN(len(multiLockNames))] }
	sizes := map[int]int{}
	var arns []string
	for range executions {
		in := multiInput{First: pick(), Second: pick(), Third: pick()}
		sizes[len(in.locks())]++
		input, _ := json.Marshal(in)
		started, err := st.Emulator.StartExecution(ctx, arn, "", string(input))
		if err != nil {
			t.Fatalf("StartExecution: %v", err)
		}
		arns = append(arns, started.ExecutionArn)
	}
	statuses := map[string]int{}
	transitions := 0
	for _, a := range arns {
		done, err := st.Emulator.Wait(ctx, a)
		if err != nil {
			t.Fatalf("wait for %s: %v", a, err)
		}
		if done.StopDate != nil && done.StopDate.After(end) {
			end = *done.StopDate
		}
		key := string(done.Status)
		if done.Status != emulator.StatusSucceeded {
			key += " " + deref(done.Error)
			if deref(done.Error) != work.ErrorNameWorkFailed {
				t.Errorf("%s: %s %s: %s", a, done.Status, deref(done.Error), deref(done.Cause))
			}
		}
		statuses[key]++
		events, err := runner.History(ctx, st.StepFunctionsClient(), a)
		if err != nil {
			t.Fatal(err)
		}
		transitions += runner.Transitions(events)
	}
	perExecution := st.DynamoDBStats().Capacity().PerExecution(executions)

	locks := lockClient(t, st)
	leaked := 0
	for _, name := range multiLockNames {
		state, err := locks.Read(ctx, name)
		if err != nil {
			t.Fatalf("read %s: %v", name, err)
		}
		if state.Count != 0 || len(state.Holders) != 0 || len(state.Waiters) != 0 {
			leaked += state.Count + len(state.Waiters)
			t.Errorf("lock %s leaked: count %d, holders %v, waiters %v", name, state.Count, state.Holders, state.Waiters)
		}
	}
	for _, v := range meter.violations {
		t.Error(v)
	}
	t.Logf("several locks, %s: %d executions (by number of locks: %v), outcomes %v, most works at once per lock %v (limit %d), over the limit %d times, leaked %d, virtual makespan %s; per execution: %.1f write units, %.1f read units, %.1f state transitions of the semaphore",
		strategy, executions, sizes, statuses, meter.max, limit, len(meter.violations), leaked, end.Sub(start).Truncate(time.Second),
		perExecution.WriteUnitsPerExecution, perExecution.ReadUnitsPerExecution, float64(transitions)/float64(executions))
}

// TestSeveralLocksCleanupFreesEveryHeldLock: limit 1; H holds region; X names region, queue and
// db, takes db and queue (in name order) and waits for region (Callback, or Poll). X is aborted:
// its cleanup (or, with every event lost, the reconciler) frees db and queue. H is aborted: region comes back
// free, with nobody left waiting (X's place in the queue is skipped as dead). Every read keeps
// counter == holders <= 1 on every lock.
func TestSeveralLocksCleanupFreesEveryHeldLock(t *testing.T) {
	for _, tc := range []struct {
		name string
		// lost drops every status-change event, so that only the reconciler frees slots.
		lost     bool
		strategy semaphore.WaitStrategy
	}{{"cleanup", false, semaphore.WaitCallback}, {"reconciler", true, semaphore.WaitCallback}, {"cleanup, Poll", false, semaphore.WaitPoll}} {
		t.Run(tc.name, func(t *testing.T) { abortHolderOfTwoOfThree(t, tc.lost, tc.strategy) })
	}
}

// abortHolderOfTwoOfThree is TestSeveralLocksCleanupFreesEveryHeldLock under strategy (under Poll,
// X polls for region instead of waiting in its queue), with every status-change event lost when
// lost.
func abortHolderOfTwoOfThree(t *testing.T, lost bool, strategy semaphore.WaitStrategy) {
	cfg := demo.DefaultConfig()
	cfg.Limit, cfg.WorkDuration, cfg.FailureRate, cfg.WaitStrategy, cfg.Locks = 1, 20*time.Minute, 0, strategy, multiLocks
	policy := eventbus.DeliveryPolicyFunc(func(d eventbus.Delivery) []time.Duration {
		if lost && d.Event.DetailType != eventbus.DetailTypeScheduled {
			return nil
		}
		return []time.Duration{0}
	})
	st := startMultiStack(t, cfg, newWorkMeter(1), stack.Options{Held: true, EventPolicy: policy})
	locks := lockClient(t, st)
	arn := semaphoreArn(st)
	start := func(in multiInput) string {
		input, _ := json.Marshal(in)
		started, err := st.Emulator.StartExecution(context.Background(), arn, "", string(input))
		if err != nil {
			t.Fatalf("StartExecution: %v", err)
		}
		return started.ExecutionArn
	}
	read := func() map[string]lock.State {
		states := map[string]lock.State{}
		for _, name := range multiLockNames {
			s, err := locks.Read(context.Background(), name)
			if err != nil {
				t.Fatalf("read %s: %v", name, err)
			}
			if s.Count != len(s.Holders) || s.Count > 1 {
				t.Fatalf("invariant broken on %s: count %d, holders %v (limit 1)", name, s.Count, s.Holders)
			}
			states[name] = s
		}
		return states
	}
	holds := func(s lock.State, arn string) bool { return len(s.Holders) == 1 && s.Holders[0].Execution == arn }
	waits := func(s lock.State, arn string) bool {
		return slices.ContainsFunc(s.Waiters, func(w lock.Waiter) bool { return w.Execution == arn })
	}
	until := func(what string, done func(map[string]lock.State) bool) {
		waitVirtual(t, st, what, func() (bool, string) {
			s := read()
			return done(s), fmt.Sprintf("locks: %+v", s)
		})
	}

	h := start(multiInput{First: "region", Second: "region", Third: "region"})
	until("H to hold region", func(s map[string]lock.State) bool { return holds(s["region"], h) })
	x := start(multiInput{First: "region", Second: "queue", Third: "db"})
	until("X to hold db and queue and wait for region", func(s map[string]lock.State) bool {
		return holds(s["db"], x) && holds(s["queue"], x) && (strategy == semaphore.WaitPoll || waits(s["region"], x))
	})

	stop(t, st, x)
	until("X's db and queue to be freed", func(s map[string]lock.State) bool {
		return s["db"].Count == 0 && s["queue"].Count == 0 && holds(s["region"], h)
	})
	stop(t, st, h)
	until("every lock to be free with nobody waiting", func(s map[string]lock.State) bool {
		for _, l := range s {
			if l.Count != 0 || len(l.Waiters) != 0 {
				return false
			}
		}
		return true
	})
}
