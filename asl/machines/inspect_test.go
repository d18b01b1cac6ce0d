package machines_test

import (
	"testing"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/asl/machines"
)

func TestSemaphoreLimit(t *testing.T) {
	m, err := machines.Semaphore(machines.SemaphoreOptions{LockName: "L", Limit: 7, TableName: "T", Work: machines.LambdaWork("arn:aws:lambda:us-east-1:1:function:f")})
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
	if got, ok := machines.SemaphoreLimit(parsed); !ok || got != 7 {
		t.Errorf("SemaphoreLimit = %d, %v; want 7, true", got, ok)
	}
	other := &asl.StateMachine{StartAt: "A", States: asl.States{{Name: "A", State: &asl.Succeed{}}}}
	if got, ok := machines.SemaphoreLimit(other); ok {
		t.Errorf("SemaphoreLimit of a non-semaphore machine = %d, true; want false", got)
	}
}

func TestSemaphoreLockNamePath(t *testing.T) {
	for _, tt := range []struct{ opts machines.SemaphoreOptions }{
		{machines.SemaphoreOptions{LockNamePath: "$.job.tenant", Limit: 2}},
		{machines.SemaphoreOptions{LockName: "L", Limit: 2}},
	} {
		tt.opts.TableName, tt.opts.Work = "T", machines.LambdaWork("arn:aws:lambda:us-east-1:1:function:f")
		m, err := machines.Semaphore(tt.opts)
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
		if got := machines.SemaphoreLockNamePath(parsed); got != tt.opts.LockNamePath {
			t.Errorf("SemaphoreLockNamePath = %q, want %q", got, tt.opts.LockNamePath)
		}
	}
}
