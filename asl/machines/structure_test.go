package machines_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/asl/machines"
)

// TestNoLoopWithoutWait checks that every cycle of every golden machine passes through a state
// that waits (a Wait state, or a callback task that waits for its token until a timeout): with
// those removed, the graph must be acyclic.
func TestNoLoopWithoutWait(t *testing.T) {
	for _, tc := range goldenCases() {
		m, err := machines.Semaphore(tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		if cycle := cycleAvoidingWaits(m.Graph()); cycle != nil {
			t.Errorf("%s: a loop without a Wait state: %v", tc.name, cycle)
		}
	}
}

// waits reports whether s pauses the execution: a Wait state, or a Task that waits for its task
// token with a timeout.
func waits(s asl.State) bool {
	if s.Type() == asl.TypeWait {
		return true
	}
	task, ok := s.(*asl.Task)
	return ok && strings.HasSuffix(task.Resource, ".waitForTaskToken") && task.TimeoutSeconds != nil
}

// cycleAvoidingWaits returns a cycle of g that contains no Wait state, or nil.
func cycleAvoidingWaits(g *asl.Graph) []string {
	const (
		unvisited = iota
		onPath
		done
	)
	state := map[string]int{}
	var path []string
	var visit func(name string) []string
	visit = func(name string) []string {
		s := g.States.Get(name)
		if s == nil || waits(s) {
			return nil
		}
		switch state[name] {
		case onPath:
			return append(slices.Clone(path[slices.Index(path, name):]), name)
		case done:
			return nil
		}
		state[name] = onPath
		path = append(path, name)
		for _, next := range asl.Successors(s) {
			if c := visit(next); c != nil {
				return c
			}
		}
		path = path[:len(path)-1]
		state[name] = done
		return nil
	}
	for _, n := range g.States {
		if c := visit(n.Name); c != nil {
			return c
		}
	}
	return nil
}

// TestCycleDetectorFindsBusyLoop makes sure the detector above can fail: a retry loop without a
// Wait is reported.
func TestCycleDetectorFindsBusyLoop(t *testing.T) {
	g := &asl.Graph{StartAt: "Try", States: asl.States{
		{Name: "Try", State: &asl.Pass{Transition: asl.Next("Again?")}},
		{Name: "Again?", State: &asl.Choice{
			Choices: []*asl.ChoiceRule{{Variable: "$.done", Operator: "BooleanEquals", Value: false, Next: "Try"}},
			Default: "End",
		}},
		{Name: "End", State: &asl.Succeed{}},
	}}
	if got, want := cycleAvoidingWaits(g), []string{"Try", "Again?", "Try"}; !slices.Equal(got, want) {
		t.Errorf("cycleAvoidingWaits = %v, want %v", got, want)
	}
}

// dynamoDBTasks returns the top-level tasks of m that call DynamoDB, by name.
func dynamoDBTasks(m *asl.StateMachine) map[string]*asl.Task {
	out := map[string]*asl.Task{}
	for _, n := range m.States {
		if task, ok := n.State.(*asl.Task); ok && (task.Resource == machines.ResourceUpdateItem || task.Resource == machines.ResourceTransactWriteItems || task.Resource == machines.ResourceQuery) {
			out[n.Name] = task
		}
	}
	return out
}

// TestDynamoDBTasksRetryAndFailFast checks every lock table call: transient errors are retried
// with full jitter and a bounded delay, and the errors no retry can fix are caught.
func TestDynamoDBTasksRetryAndFailFast(t *testing.T) {
	m, err := machines.Semaphore(goldenCases()[0].opts)
	if err != nil {
		t.Fatal(err)
	}
	tasks := dynamoDBTasks(m)
	if got := len(tasks); got != 5 {
		t.Fatalf("got %d DynamoDB tasks, want 5 (acquire, check, two releases, check released)", got)
	}
	for name, task := range tasks {
		if len(task.Retry) != 1 {
			t.Errorf("%s: got %d retriers, want 1", name, len(task.Retry))
			continue
		}
		r := task.Retry[0]
		if !slices.Equal(r.ErrorEquals, machines.TransientDynamoDBErrors()) {
			t.Errorf("%s: retries %v, want the transient errors", name, r.ErrorEquals)
		}
		if r.JitterStrategy != asl.JitterFull || r.MaxDelaySeconds == nil {
			t.Errorf("%s: retry without full jitter or a delay cap: %+v", name, r)
		}
		if slices.ContainsFunc(task.Retry, func(r *asl.Retrier) bool { return slices.Contains(r.ErrorEquals, machines.ErrorConditionalCheckFailed) }) {
			t.Errorf("%s: retries ConditionalCheckFailed blindly", name)
		}
		if !catches(task, machines.FatalDynamoDBErrors()[0]) {
			t.Errorf("%s: does not catch %s", name, machines.FatalDynamoDBErrors()[0])
		}
	}
	for _, name := range []string{machines.StateReleaseSlot, machines.StateReleaseAfterFailure} {
		if !catches(tasks[name], machines.ErrorTransactionCanceled) {
			t.Errorf("%s: a second release (a cancelled transaction) is not caught", name)
		}
	}
}

// catches reports whether one of task's catchers matches errorName, by name or by States.ALL.
func catches(task *asl.Task, errorName string) bool {
	return slices.ContainsFunc(task.Catch, func(c *asl.Catcher) bool {
		return slices.Contains(c.ErrorEquals, errorName) || slices.Contains(c.ErrorEquals, asl.ErrorAll)
	})
}

// TestCatchersKeepData checks that no catcher replaces the execution's data: the lock name must
// survive every caught error, or the release could not find the lock.
func TestCatchersKeepData(t *testing.T) {
	for _, tc := range goldenCases() {
		m, err := machines.Semaphore(tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range m.States {
			var catchers []*asl.Catcher
			switch s := n.State.(type) {
			case *asl.Task:
				catchers = s.Catch
			case *asl.Parallel:
				catchers = s.Catch
			}
			for i, c := range catchers {
				if c.ResultPath == nil || (!c.ResultPath.Null && c.ResultPath.Value == "$") {
					t.Errorf("%s: %s Catch[%d] replaces the data (ResultPath %v)", tc.name, n.Name, i, c.ResultPath)
				}
			}
		}
	}
}

// TestRunWorkSeesExecutionInput checks that the work receives the execution input and that its
// failures are caught for the release.
func TestRunWorkSeesExecutionInput(t *testing.T) {
	m, err := machines.Semaphore(goldenCases()[0].opts)
	if err != nil {
		t.Fatal(err)
	}
	run, ok := m.States.Get(machines.StateRunWork).(*asl.Parallel)
	if !ok {
		t.Fatalf("%s is not a Parallel state", machines.StateRunWork)
	}
	if run.InputPath == nil || run.InputPath.Value != "$$.Execution.Input" {
		t.Errorf("InputPath = %v, want $$.Execution.Input", run.InputPath)
	}
	if len(run.Catch) != 1 || !slices.Equal(run.Catch[0].ErrorEquals, []string{asl.ErrorAll}) || run.Catch[0].Next != machines.StateReleaseAfterFailure {
		t.Errorf("Catch = %+v, want States.ALL to %s", run.Catch, machines.StateReleaseAfterFailure)
	}
}
