package simulate

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/emulator/jsonpath"
	"github.com/turnstile-sfn/turnstile/emulator/jsonvalue"
	"github.com/turnstile-sfn/turnstile/emulator/stack"
	"github.com/turnstile-sfn/turnstile/lambdas/testrunner/runner"
	"github.com/turnstile-sfn/turnstile/lock"
)

// submitOrderTolerance is how much later than a younger submission an older one may be granted
// its slot without counting as out of order: the grant's time is taken just before its
// transaction, and two releases at nearly the same moment land theirs in either order (the
// runner's tolerance for parked waiters).
const submitOrderTolerance = time.Second

// SubmissionFigures are what a run in submission mode (Scenario.Submit) measured.
type SubmissionFigures struct {
	// Submitted is the number of submissions made (lock.Client.Submit).
	Submitted int `json:"submitted"`
	// ByOutcome counts the submissions by their outcome once the run settled: every one
	// should be "started".
	ByOutcome map[lock.Outcome]int `json:"byOutcome"`
	// Executions is the number of executions the submissions started (names "sub-…" of the
	// semaphore machine): Submitted when each was started exactly once.
	Executions int `json:"executions"`
	// OutOfOrder counts the submissions granted their slot more than a second after a younger
	// one (a later place in the queue: a higher ticket, or with priorities a higher
	// lock.Place) of the same lock that was granted after the older one had queued: 0 when
	// the queue keeps its order. The grant's time is the status's (lock.SubmissionStatus.At):
	// a start that a lost reply delayed keeps its place.
	OutOfOrder int `json:"outOfOrder"`
	// FreedSlotToStart is, in virtual seconds, the time from the end of a work (its slot
	// freed) to the start of the submission the slot went to, pairing the k-th work end with
	// the (limit+k)-th start of each lock (the first limit starts took free slots).
	FreedSlotToStart runner.Stats `json:"freedSlotToStartSeconds"`
	// WaitByPriority is, on a semaphore with priorities, each priority's wait in virtual
	// seconds from the submission's queueing to its grant; nil without priorities.
	WaitByPriority map[int]runner.Stats `json:"waitByPrioritySeconds,omitempty"`
}

// violations lists what the submissions broke: one not started, or started more than once (or
// an execution of a submission's name that no submission made), or out of order.
func (f *SubmissionFigures) violations() []string {
	var out []string
	if n := f.ByOutcome[lock.OutcomeStarted]; n != f.Submitted {
		out = append(out, fmt.Sprintf("%d of %d submissions were started (outcomes %v)", n, f.Submitted, f.ByOutcome))
	}
	if f.Executions != f.Submitted {
		out = append(out, fmt.Sprintf("%d submissions started %d executions", f.Submitted, f.Executions))
	}
	if f.OutOfOrder > 0 {
		out = append(out, fmt.Sprintf("%d submissions were granted their slot after a younger one", f.OutOfOrder))
	}
	return out
}

// newSubmitter returns the submitter of the semaphore machine def, whose lock table is table
// and limit limit, on the stack st; loss loses its StartExecution replies.
func newSubmitter(st *stack.Stack, ddb lock.DynamoDBAPI, loss *startLoss, def *asl.StateMachine, table string, limit int) (*submitter, error) {
	if def.States.Get(machines.StateWaitInQueue) == nil {
		return nil, fmt.Errorf("%w: submissions need a semaphore that parks its waiters (--wait Callback): its releases start them", ErrInvalidScenario)
	}
	clock := st.Clock()
	locks, err := lock.New(table, ddb, loss.client(st.StepFunctionsClient()), lock.WithNow(clock.Now), lock.WithSleep(clock.Sleep))
	if err != nil {
		return nil, err
	}
	s := &submitter{StepFunctions: st.StepFunctionsClient(), locks: locks, limit: limit, lockName: machines.SemaphoreLockName(def),
		order: machines.SemaphoreInputOrder(def), paths: map[string]*jsonpath.Path{}, clock: clock.Now, queued: map[string]time.Time{}, priority: map[string]int{}}
	for _, p := range []string{s.order.PriorityPath, s.order.WeightPath} {
		if p != "" {
			if s.paths[p], err = jsonpath.Compile(p); err != nil {
				return nil, err
			}
		}
	}
	if p := machines.SemaphoreLockNamePath(def); p != "" {
		if s.path, err = jsonpath.Compile(p); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// submitter stands in for StartExecution: it submits the execution input instead of starting
// it, and answers with the ARN the execution will have. The runner then waits for that
// execution like any other.
type submitter struct {
	runner.StepFunctions
	locks *lock.Client
	limit int
	// lockName is the machine's fixed lock name, or "" when it reads it at path.
	lockName string
	path     *jsonpath.Path
	// order reads each input's priority and weight at their compiled paths.
	order machines.InputOrder
	paths map[string]*jsonpath.Path
	clock func() time.Time

	mu          sync.Mutex
	submissions []lock.Submission
	// queued is when each submission (by id) was queued, priority its priority.
	queued   map[string]time.Time
	priority map[string]int
}

// StartExecution submits in.Input to the lock the machine would take.
func (s *submitter) StartExecution(ctx context.Context, in *sfn.StartExecutionInput, _ ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error) {
	input := aws.ToString(in.Input)
	doc, err := jsonvalue.Decode([]byte(input))
	if err != nil {
		return nil, fmt.Errorf("simulate: the input of %s: %w", aws.ToString(in.Name), err)
	}
	r := lock.SubmitRequest{Lock: s.lockName, Limit: s.limit, StateMachine: aws.ToString(in.StateMachineArn), Input: input, PriorityAgeing: s.order.PriorityAgeing}
	if s.path != nil {
		v, _ := s.path.Get(doc, doc)
		r.Lock, _ = v.(string)
	}
	if r.Priority, r.Weight, err = s.order.Read(func(path string) (any, bool) { return s.paths[path].Get(doc, doc) }); err != nil {
		return nil, fmt.Errorf("simulate: the input of %s: %w", aws.ToString(in.Name), err)
	}
	sub, err := s.locks.Submit(ctx, r)
	if err != nil && sub.ID == "" {
		return nil, err
	}
	// An error after the submission was queued is its start's: the reconciler finishes it.
	s.mu.Lock()
	s.submissions = append(s.submissions, sub)
	s.queued[sub.ID] = s.clock()
	s.priority[sub.ID] = r.Priority
	s.mu.Unlock()
	return &sfn.StartExecutionOutput{ExecutionArn: aws.String(sub.Execution)}, nil
}

// figures reads every submission's outcome and measures the run's traces.
func (s *submitter) figures(ctx context.Context, client *sfn.Client, machineArn string, traces []*runner.Trace) (*SubmissionFigures, error) {
	f := &SubmissionFigures{Submitted: len(s.submissions), ByOutcome: map[lock.Outcome]int{}}
	granted := map[string]time.Time{}
	for _, sub := range s.submissions {
		st, err := s.locks.Status(ctx, sub.Lock, sub.ID)
		if err != nil {
			return nil, err
		}
		f.ByOutcome[st.Outcome]++
		if at, err := time.Parse(lock.SinceLayout, st.At); err == nil && st.Outcome == lock.OutcomeStarted {
			granted[sub.ID] = at
		}
	}
	if s.order.PriorityPath != "" {
		waits := map[int][]time.Duration{}
		for id, at := range granted {
			waits[s.priority[id]] = append(waits[s.priority[id]], at.Sub(s.queued[id]))
		}
		f.WaitByPriority = map[int]runner.Stats{}
		for p, ws := range waits {
			f.WaitByPriority[p] = runner.StatsOf(ws)
		}
	}
	list := sfn.NewListExecutionsPaginator(client, &sfn.ListExecutionsInput{StateMachineArn: aws.String(machineArn)})
	for list.HasMorePages() {
		page, err := list.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("simulate: list the executions: %w", err)
		}
		for _, ex := range page.Executions {
			if lock.IsSubmitted(aws.ToString(ex.ExecutionArn)) {
				f.Executions++
			}
		}
	}
	started := map[string]*runner.Trace{}
	for _, t := range traces {
		started[t.ExecutionArn] = t
	}
	byLock := map[string][]lock.Submission{}
	for _, sub := range s.submissions {
		byLock[sub.Lock] = append(byLock[sub.Lock], sub)
	}
	var gaps []time.Duration
	for _, subs := range byLock {
		sort.Slice(subs, func(i, j int) bool { return subs[i].Ticket < subs[j].Ticket })
		var starts, freed []time.Time
		for i, older := range subs {
			t := started[older.Execution]
			if t == nil {
				continue
			}
			starts = append(starts, t.Started)
			if t.Worked() {
				freed = append(freed, t.WorkEnded)
			}
			at, ok := granted[older.ID]
			queued := s.queued[older.ID]
			for _, younger := range subs[i+1:] {
				// A younger one granted before the older one queued took a slot nobody older
				// waited for (a higher priority arriving later queues ahead of it).
				if y, yok := granted[younger.ID]; ok && yok && y.Add(submitOrderTolerance).Before(at) && queued.Add(submitOrderTolerance).Before(y) {
					f.OutOfOrder++
					break
				}
			}
		}
		slices.SortFunc(starts, time.Time.Compare)
		slices.SortFunc(freed, time.Time.Compare)
		for k, at := range freed {
			if s.limit+k < len(starts) {
				gaps = append(gaps, starts[s.limit+k].Sub(at))
			}
		}
	}
	f.FreedSlotToStart = runner.StatsOf(gaps)
	return f, nil
}
