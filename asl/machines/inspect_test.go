package machines_test

import (
	"testing"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/asl/machines"
)

// deployed returns the semaphore machine of opts as a deployed definition reads back: rendered,
// then parsed.
func deployed(t *testing.T, opts machines.SemaphoreOptions) *asl.StateMachine {
	t.Helper()
	opts.TableName, opts.Work = "T", machines.LambdaWork("arn:aws:lambda:us-east-1:1:function:f")
	m, err := machines.Semaphore(opts)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := m.Render()
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := asl.Parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	return parsed
}

func TestSemaphoreLimit(t *testing.T) {
	for _, strategy := range []machines.WaitStrategy{machines.WaitPoll, machines.WaitCallback} {
		parsed := deployed(t, machines.SemaphoreOptions{LockName: "L", Limit: 7, WaitStrategy: strategy})
		if got, ok := machines.SemaphoreLimit(parsed); !ok || got != 7 {
			t.Errorf("%s: SemaphoreLimit = %d, %v; want 7, true", strategy, got, ok)
		}
	}
	other := &asl.StateMachine{StartAt: "A", States: asl.States{{Name: "A", State: &asl.Succeed{}}}}
	if got, ok := machines.SemaphoreLimit(other); ok {
		t.Errorf("SemaphoreLimit of a non-semaphore machine = %d, true; want false", got)
	}
}

func TestSemaphoreTableName(t *testing.T) {
	for _, strategy := range []machines.WaitStrategy{machines.WaitPoll, machines.WaitCallback} {
		if got := machines.SemaphoreTableName(deployed(t, machines.SemaphoreOptions{LockName: "L", Limit: 2, WaitStrategy: strategy})); got != "T" {
			t.Errorf("%s: SemaphoreTableName = %q, want T", strategy, got)
		}
		locks := []machines.LockSpec{{LockName: "a"}, {LockNamePath: "$.k"}}
		if got := machines.SemaphoreTableName(deployed(t, machines.SemaphoreOptions{Locks: locks, Limit: 2, WaitStrategy: strategy})); got != "T" {
			t.Errorf("%s, several locks: SemaphoreTableName = %q, want T", strategy, got)
		}
	}
	if got := machines.SemaphoreTableName(deployed(t, machines.SemaphoreOptions{LockNamePath: "$.k", TotalLimit: 4, Limit: 2, WaitStrategy: machines.WaitCallback})); got != "T" {
		t.Errorf("total cap: SemaphoreTableName = %q, want T", got)
	}
	other := &asl.StateMachine{StartAt: "A", States: asl.States{{Name: "A", State: &asl.Succeed{}}}}
	if got := machines.SemaphoreTableName(other); got != "" {
		t.Errorf("SemaphoreTableName of a non-semaphore machine = %q, want none", got)
	}
}

func TestSemaphoreLockNamePath(t *testing.T) {
	for _, opts := range []machines.SemaphoreOptions{
		{LockNamePath: "$.job.tenant", Limit: 2},
		{LockName: "L", Limit: 2},
	} {
		if got := machines.SemaphoreLockNamePath(deployed(t, opts)); got != opts.LockNamePath {
			t.Errorf("SemaphoreLockNamePath = %q, want %q", got, opts.LockNamePath)
		}
		if got := machines.SemaphoreLockName(deployed(t, opts)); got != opts.LockName {
			t.Errorf("SemaphoreLockName = %q, want %q", got, opts.LockName)
		}
	}
}

func TestSemaphorePriorityPath(t *testing.T) {
	for _, opts := range []machines.SemaphoreOptions{
		{LockName: "L", Limit: 2, WaitStrategy: machines.WaitCallback, PriorityPath: "$.job.priority"},
		{LockName: "L", Limit: 2, WaitStrategy: machines.WaitCallback},
	} {
		if got := machines.SemaphorePriorityPath(deployed(t, opts)); got != opts.PriorityPath {
			t.Errorf("SemaphorePriorityPath = %q, want %q", got, opts.PriorityPath)
		}
		opts.WeightPath, opts.PriorityPath = opts.PriorityPath, ""
		if got := machines.SemaphoreWeightPath(deployed(t, opts)); got != opts.WeightPath {
			t.Errorf("SemaphoreWeightPath = %q, want %q", got, opts.WeightPath)
		}
	}
}
