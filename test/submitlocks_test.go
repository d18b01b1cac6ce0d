package test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/cmd/app/demo"
	"github.com/turnstile-sfn/turnstile/constructs/semaphore"
	"github.com/turnstile-sfn/turnstile/emulator"
	"github.com/turnstile-sfn/turnstile/emulator/lambdafn"
	"github.com/turnstile-sfn/turnstile/emulator/stack"
	"github.com/turnstile-sfn/turnstile/lambdas/dowork/work"
	"github.com/turnstile-sfn/turnstile/lambdas/testrunner/runner"
	"github.com/turnstile-sfn/turnstile/lock"
)

// firstLockSubmitter submits inputs to a stack's semaphore with several locks or a total cap as
// `turnstile submit` and the submit function do: each to the first lock its execution takes,
// read from the machine's definition (machines.SemaphoreInputLocks).
type firstLockSubmitter struct {
	t       *testing.T
	st      *stack.Stack
	locks   *lock.Client
	first   machines.InputLocks
	machine string
	subs    []lock.Submission
}

func newFirstLockSubmitter(t *testing.T, st *stack.Stack) *firstLockSubmitter {
	t.Helper()
	s := &firstLockSubmitter{t: t, st: st, machine: semaphoreArn(st)}
	for _, sm := range st.Template.StateMachines {
		if sm.ARN != s.machine {
			continue
		}
		def, err := asl.Parse([]byte(sm.Definition))
		if err != nil {
			t.Fatal(err)
		}
		var ok bool
		if s.first, ok = machines.SemaphoreInputLocks(def); !ok {
			t.Fatalf("%s has no several locks or total cap", sm.LogicalID)
		}
	}
	ddb, err := st.DynamoDBClient(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var table string
	for _, tb := range st.Template.Tables {
		table = tb.Name
	}
	clock := st.Clock()
	if s.locks, err = lock.New(table, ddb, st.StepFunctionsClient(), lock.WithNow(clock.Now), lock.WithSleep(clock.Sleep)); err != nil {
		t.Fatal(err)
	}
	return s
}

// submit submits input to its first lock.
func (s *firstLockSubmitter) submit(input string) lock.Submission {
	s.t.Helper()
	name, limit, err := s.first.For(input)
	if err != nil {
		s.t.Fatalf("the first lock of %s: %v", input, err)
	}
	sub, err := s.locks.Submit(context.Background(), lock.SubmitRequest{Lock: name, Limit: limit, StateMachine: s.machine, Input: input})
	if err != nil {
		s.t.Fatalf("submit %s: %v", input, err)
	}
	s.subs = append(s.subs, sub)
	return sub
}

// submissionRun is what waitAll measured of the submissions' executions.
type submissionRun struct {
	outcomes    map[lock.Outcome]int // the submissions' outcomes
	statuses    map[string]int       // the executions' statuses (and errors)
	executions  int                  // the machine's executions named as submissions
	transitions int                  // their state transitions
	end         time.Time            // when the last one ended
}

// waitAll waits until every submission has left the queue and its execution has ended; a
// failure other than the demo work's is an error.
func (s *firstLockSubmitter) waitAll() submissionRun {
	s.t.Helper()
	ctx := context.Background()
	r := submissionRun{outcomes: map[lock.Outcome]int{}, statuses: map[string]int{}}
	for _, sub := range s.subs {
		var st lock.SubmissionStatus
		waitVirtual(s.t, s.st, "submission "+sub.ID+" to leave the queue", func() (bool, string) {
			var err error
			if st, err = s.locks.Status(ctx, sub.Lock, sub.ID); err != nil {
				s.t.Fatalf("status of %s: %v", sub.ID, err)
			}
			return st.Outcome != lock.OutcomeQueued, fmt.Sprintf("%+v", st)
		})
		r.outcomes[st.Outcome]++
		if st.Outcome != lock.OutcomeStarted {
			s.t.Errorf("submission %s on %s: %s (%s), want started", sub.ID, sub.Lock, st.Outcome, st.Reason)
			continue
		}
		done, err := s.st.Emulator.Wait(ctx, sub.Execution)
		if err != nil {
			s.t.Fatalf("wait for %s: %v", sub.Execution, err)
		}
		key := string(done.Status)
		if done.Status != emulator.StatusSucceeded {
			key += " " + deref(done.Error)
			if deref(done.Error) != work.ErrorNameWorkFailed {
				s.t.Errorf("%s: %s %s: %s", sub.Execution, done.Status, deref(done.Error), deref(done.Cause))
			}
		}
		r.statuses[key]++
		if done.StopDate != nil && done.StopDate.After(r.end) {
			r.end = *done.StopDate
		}
		events, err := runner.History(ctx, s.st.StepFunctionsClient(), sub.Execution)
		if err != nil {
			s.t.Fatal(err)
		}
		r.transitions += runner.Transitions(events)
	}
	list := sfn.NewListExecutionsPaginator(s.st.StepFunctionsClient(), &sfn.ListExecutionsInput{StateMachineArn: aws.String(s.machine)})
	for list.HasMorePages() {
		page, err := list.NextPage(ctx)
		if err != nil {
			s.t.Fatal(err)
		}
		for _, ex := range page.Executions {
			if lock.IsSubmitted(aws.ToString(ex.ExecutionArn)) {
				r.executions++
			}
		}
	}
	if r.executions != len(s.subs) {
		s.t.Errorf("%d submissions started %d executions, want one each", len(s.subs), r.executions)
	}
	return r
}

// checkFree fails the test unless every named lock has no holder and no waiter.
func (s *firstLockSubmitter) checkFree(names []string) {
	s.t.Helper()
	for _, name := range names {
		state, err := s.locks.Read(context.Background(), name)
		if err != nil {
			s.t.Fatalf("read %s: %v", name, err)
		}
		if state.Count != 0 || len(state.Holders) != 0 || len(state.Waiters) != 0 {
			s.t.Errorf("lock %s leaked: count %d, holders %v, waiters %v", name, state.Count, state.Holders, state.Waiters)
		}
	}
}

// TestSubmissionsThroughSeveralLocks: 150 inputs, each naming one to three of three locks (limit
// 2 each) in random order, 10 % of the works failing, are submitted (not started) to a
// semaphore with several locks: each waits for its first lock by name. Every submission starts
// exactly once, no lock ever runs more than 2 works at once, every lock ends with no holder and
// no waiter, and no submission is left queued. Run with -v for the figures per submission.
func TestSubmissionsThroughSeveralLocks(t *testing.T) {
	const limit, submissions = 2, 150
	cfg := demo.DefaultConfig()
	cfg.Limit, cfg.WorkDuration, cfg.FailureRate, cfg.WaitStrategy, cfg.Locks = limit, 5*time.Second, 0.1, semaphore.WaitCallback, multiLocks
	meter := newWorkMeter(limit)
	// The clock stands still until every input is submitted, as under `turnstile simulate`.
	st := startMultiStack(t, cfg, meter, stack.Options{Held: true})
	s := newFirstLockSubmitter(t, st)
	start := st.Clock().Now()

	rng := rand.New(rand.NewPCG(5, 6))
	pick := func() string { return multiLockNames[rng.IntN(len(multiLockNames))] }
	byFirst := map[string]int{}
	for range submissions {
		in := multiInput{First: pick(), Second: pick(), Third: pick()}
		input, _ := json.Marshal(in)
		sub := s.submit(string(input))
		if want := in.locks()[0]; sub.Lock != want {
			t.Fatalf("%s was submitted to %q, want its first lock by name %q", input, sub.Lock, want)
		}
		byFirst[sub.Lock]++
	}
	st.ReleaseHold()
	run := s.waitAll()
	perSubmission := st.DynamoDBStats().Capacity().PerExecution(submissions)
	s.checkFree(multiLockNames)
	for _, v := range meter.violations {
		t.Error(v)
	}
	t.Logf("submissions through several locks: %d submitted (by first lock %v), outcomes %v, executions %d (%v), most works at once per lock %v (limit %d), virtual makespan %s; "+
		"per submission: %.1f write units, %.1f read units, %.1f state transitions of the semaphore",
		submissions, byFirst, run.outcomes, run.executions, run.statuses, meter.max, limit, run.end.Sub(start).Truncate(time.Second),
		perSubmission.WriteUnitsPerExecution, perSubmission.ReadUnitsPerExecution, float64(run.transitions)/float64(submissions))
}

// TestSubmissionsThroughATotalCap: the total cap scenario (10 tenants, at most 3 works of one
// and 12 in all, t0 with ten times the load of each other) with every input submitted instead
// of started: each waits for its tenant's lock. Every submission starts exactly once, no tenant
// exceeds 3 and the total 12, every lock (the tenants', their turns, the total) ends free, and
// no submission is left queued. Run with -v for the figures per submission.
func TestSubmissionsThroughATotalCap(t *testing.T) {
	cfg := demo.DefaultConfig()
	cfg.Limit, cfg.WorkDuration, cfg.FailureRate, cfg.WaitStrategy = capPerKey, 5*time.Second, 0, semaphore.WaitCallback
	cfg.LockNamePath, cfg.TotalLimit = "$.tenant", capTotal
	tenants, log, st := startTotalCap(t, cfg, true)
	t.Cleanup(func() { closeHeld(st, "") })
	s := newFirstLockSubmitter(t, st)
	start := st.Clock().Now()
	for _, tenant := range tenants {
		if sub := s.submit(fmt.Sprintf(`{"tenant":%q}`, tenant)); sub.Lock != tenant {
			t.Fatalf("tenant %s's input was submitted to %q, want its own lock", tenant, sub.Lock)
		}
	}
	st.ReleaseHold()
	run := s.waitAll()
	perSubmission := st.DynamoDBStats().Capacity().PerExecution(len(tenants))
	names := []string{machines.DefaultTotalLockName}
	for key := range log.pending {
		names = append(names, key, machines.DefaultTotalLockName+"#"+key)
	}
	slices.Sort(names)
	s.checkFree(names)
	for _, v := range log.violations {
		t.Error(v)
	}
	t.Logf("submissions through a total cap: %d submitted (t0: %d, t1-t%d: %d each), outcomes %v, executions %d (%v), most at once %d in all (cap %d) and per tenant %v (limit %d); "+
		"while a tenant waited for the total cap, another was admitted at most %v times; virtual makespan %s; "+
		"per submission: %.1f write units, %.1f read units, %.1f state transitions of the semaphore",
		len(tenants), capLightLoad()*capNoisyFactor, capKeys-1, capLightLoad(), run.outcomes, run.executions, run.statuses, log.maxTotal, capTotal, log.maxPerKey, capPerKey,
		log.passed, run.end.Sub(start).Truncate(time.Second), perSubmission.WriteUnitsPerExecution, perSubmission.ReadUnitsPerExecution, float64(run.transitions)/float64(len(tenants)))
}

// TestSubmittedExecutionWaitsForItsOtherLocks: limit 1 on each of three locks. H holds region.
// S names region, queue and db and is submitted: its first lock by name, db, is free, so it is
// granted at once and its execution starts holding db. Inside the acquire Map, its park for db
// goes straight on (it finds its holder item: no waiter on db, no second slot), queue is taken as
// any execution takes it, and it parks in region's queue behind H. S2, submitted with db as its
// first lock, waits in db's queue. H is aborted: S takes region, runs and gives every lock back,
// which starts S2; in the end every lock is free with nobody waiting. Every read keeps
// counter == holders <= 1 on every lock.
func TestSubmittedExecutionWaitsForItsOtherLocks(t *testing.T) {
	cfg := demo.DefaultConfig()
	cfg.Limit, cfg.WorkDuration, cfg.FailureRate, cfg.WaitStrategy, cfg.Locks = 1, 10*time.Minute, 0, semaphore.WaitCallback, multiLocks
	st := startMultiStack(t, cfg, newWorkMeter(1), stack.Options{Held: true})
	s := newFirstLockSubmitter(t, st)
	read, until, holds := watchOneSlotLocks(t, st, s.locks, multiLockNames)
	waits := func(l lock.State, arn string) bool {
		return slices.ContainsFunc(l.Waiters, func(w lock.Waiter) bool { return w.Execution == arn })
	}

	started, err := st.Emulator.StartExecution(context.Background(), s.machine, "", `{"first":"region","second":"region","third":"region"}`)
	if err != nil {
		t.Fatal(err)
	}
	h := started.ExecutionArn
	until("H to hold region", func(l map[string]lock.State) bool { return holds(l["region"], h) })
	sub := s.submit(`{"first":"region","second":"queue","third":"db"}`)
	if sub.Lock != "db" {
		t.Fatalf("S was submitted to %q, want db, its first lock by name", sub.Lock)
	}
	until("S to hold db and queue and wait for region", func(l map[string]lock.State) bool {
		return holds(l["db"], sub.Execution) && holds(l["queue"], sub.Execution) && waits(l["region"], sub.Execution)
	})
	if l := read()["db"]; len(l.Waiters) != 0 {
		t.Fatalf("db's waiters %+v, want none: S's park for db goes straight on", l.Waiters)
	}
	second := s.submit(`{"first":"db","second":"db","third":"db"}`)
	until("S2 to wait in db's queue", func(l map[string]lock.State) bool {
		return holds(l["db"], sub.Execution) && slices.ContainsFunc(l["db"].Waiters, func(w lock.Waiter) bool { return w.Submission == second.ID })
	})
	if st, err := s.locks.Status(context.Background(), second.Lock, second.ID); err != nil || st.Outcome != lock.OutcomeQueued {
		t.Fatalf("S2 = %+v, %v; want queued on db", st, err)
	}
	stop(t, st, h)
	until("S and then S2 to run, and every lock to be free with nobody waiting", func(l map[string]lock.State) bool {
		for _, name := range multiLockNames {
			if l[name].Count != 0 || len(l[name].Waiters) != 0 {
				return false
			}
		}
		status, err := s.locks.Status(context.Background(), second.Lock, second.ID)
		return err == nil && status.Outcome == lock.OutcomeStarted
	})
	// The executions may still have states to run after the locks are free: give the hold on the
	// clock back, or Wait (which does not sleep on the clock) would keep virtual time still and
	// wait for ever.
	st.ReleaseHold()
	for _, arn := range []string{sub.Execution, second.Execution} {
		done, err := st.Emulator.Wait(context.Background(), arn)
		if err != nil || done.Status != emulator.StatusSucceeded {
			t.Errorf("%s: %v; want SUCCEEDED", arn, err)
			if err == nil {
				t.Errorf("%s: %s: %s", done.Status, deref(done.Error), deref(done.Cause))
			}
		}
	}
}

// TestSubmitFunctionWithATotalCap: the submit function the construct deploys on a semaphore with
// a total cap reads the machine's definition on its first invocation and submits each input to
// its tenant's lock, where its execution starts and succeeds; an input whose tenant begins with
// the total lock's name is refused (machines.ErrInputLockName), as the machine would refuse it.
func TestSubmitFunctionWithATotalCap(t *testing.T) {
	cfg := demo.DefaultConfig()
	cfg.Limit, cfg.WorkDuration, cfg.FailureRate, cfg.WaitStrategy = 1, 5*time.Second, 0, semaphore.WaitCallback
	cfg.LockNamePath, cfg.TotalLimit, cfg.Submissions = "$.tenant", 2, true
	st := startMultiStack(t, cfg, newWorkMeter(1), stack.Options{})
	var fn string
	for _, f := range st.Template.Functions {
		if strings.Contains(f.LogicalID, semaphore.SubmitID) {
			fn = f.ARN
		}
	}
	if fn == "" {
		t.Fatal("the stack has no submit function")
	}
	// Invoked as the stack's own callers invoke functions: from a goroutine of the clock, so
	// that virtual time does not run ahead of the invocation.
	invoke := func(payload string) (*lambdafn.InvokeOutput, error) {
		type result struct {
			out *lambdafn.InvokeOutput
			err error
		}
		done := make(chan result, 1)
		st.Clock().Go(func() {
			out, err := st.Lambda.Invoke(context.Background(), &lambdafn.InvokeInput{FunctionName: fn, InvocationType: lambdafn.RequestResponse, Payload: []byte(payload)})
			done <- result{out, err}
		})
		r := <-done
		return r.out, r.err
	}
	var subs []lock.Submission
	for _, tenant := range []string{"b", "a", "b"} {
		out, err := invoke(fmt.Sprintf(`{"tenant":%q}`, tenant))
		if err != nil || out.FunctionError != "" {
			t.Fatalf("invoke for %s: %v, %+v", tenant, err, out)
		}
		var res struct {
			Submissions []lock.Submission `json:"submissions"`
		}
		if err := json.Unmarshal(out.Payload, &res); err != nil || len(res.Submissions) != 1 || res.Submissions[0].Lock != tenant {
			t.Fatalf("invoke for %s: %s, %v; want one submission on %s", tenant, out.Payload, err, tenant)
		}
		subs = append(subs, res.Submissions[0])
	}
	out, err := invoke(`{"tenant":"#total#b"}`)
	if err != nil || out.FunctionError == "" || !strings.Contains(string(out.Payload), machines.ErrInputLockName.Error()) {
		t.Errorf("a tenant named after the total lock: %v, %+v %s; want the function's error", err, out, out.Payload)
	}
	s := newFirstLockSubmitter(t, st)
	s.subs = subs
	run := s.waitAll()
	if run.statuses[string(emulator.StatusSucceeded)] != len(subs) {
		t.Errorf("executions %v, want %d succeeded", run.statuses, len(subs))
	}
	s.checkFree([]string{"a", "b", machines.DefaultTotalLockName, machines.DefaultTotalLockName + "#a", machines.DefaultTotalLockName + "#b"})
}
