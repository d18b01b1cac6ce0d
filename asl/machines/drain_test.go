package machines_test

import (
	"slices"
	"testing"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/asl/machines"
)

// TestDrainedWaiterFailsTheExecution: a drained waiter's task fails with ErrorDrained; Wait In
// Queue neither retries nor catches it (no rule names it or States.ALL), so the execution fails
// with it, before Run Work, holding no slot.
func TestDrainedWaiterFailsTheExecution(t *testing.T) {
	lambda := machines.LambdaWork(machines.Placeholder(machines.SubstitutionWorkFunctionArn))
	for _, opts := range []machines.SemaphoreOptions{
		{LockName: "L", Limit: 5, Work: lambda, WaitStrategy: machines.WaitCallback},
		{LockNamePath: "$.environment", Limit: 2, Work: lambda, WaitStrategy: machines.WaitCallback},
	} {
		m, err := machines.Semaphore(opts)
		if err != nil {
			t.Fatal(err)
		}
		task, ok := m.States.Get(machines.StateWaitInQueue).(*asl.Task)
		if !ok {
			t.Fatalf("%s is not a Task", machines.StateWaitInQueue)
		}
		matches := func(errs []string) bool {
			return slices.Contains(errs, machines.ErrorDrained) || slices.Contains(errs, asl.ErrorAll) || slices.Contains(errs, "States.TaskFailed")
		}
		for _, r := range task.Retry {
			if matches(r.ErrorEquals) {
				t.Errorf("a retrier of %s matches %s: %v", machines.StateWaitInQueue, machines.ErrorDrained, r.ErrorEquals)
			}
		}
		for _, c := range task.Catch {
			if matches(c.ErrorEquals) {
				t.Errorf("a catcher of %s matches %s: %v", machines.StateWaitInQueue, machines.ErrorDrained, c.ErrorEquals)
			}
		}
	}
}
