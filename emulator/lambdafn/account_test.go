package lambdafn_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/turnstile-sfn/turnstile/emulator/lambdafn"
)

// TestAccountConcurrencyThrottles: functions without a reserved concurrency share the account's
// quota, less what others reserve; an invoke beyond it is throttled, and the quota comes back
// when an execution ends.
func TestAccountConcurrencyThrottles(t *testing.T) {
	reg, err := lambdafn.NewRegistry(lambdafn.WithAccountConcurrency(3))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = reg.Close(context.Background()) }()
	release := make(chan struct{})
	var started sync.WaitGroup
	blocking := func(context.Context, []byte) ([]byte, error) { started.Done(); <-release; return []byte(`{}`), nil }
	if err := reg.Register("a", blocking); err != nil {
		t.Fatal(err)
	}
	if err := reg.Register("reserved", blocking, lambdafn.ReservedConcurrency(1)); err != nil {
		t.Fatal(err)
	}
	// 3 - 1 reserved = 2 unreserved executions.
	var done sync.WaitGroup
	started.Add(2)
	for range 2 {
		done.Go(func() {
			if _, err := reg.Invoke(context.Background(), &lambdafn.InvokeInput{FunctionName: "a"}); err != nil {
				t.Error(err)
			}
		})
	}
	started.Wait()
	_, err = reg.Invoke(context.Background(), &lambdafn.InvokeInput{FunctionName: "a"})
	var se *lambdafn.ServiceError
	if !errors.As(err, &se) || se.Code != lambdafn.CodeTooManyRequests {
		t.Fatalf("a third invoke: %v, want TooManyRequests", err)
	}
	close(release)
	done.Wait()
	started.Add(1)
	if _, err := reg.Invoke(context.Background(), &lambdafn.InvokeInput{FunctionName: "a"}); err != nil {
		t.Fatalf("an invoke after the others ended: %v", err)
	}
	if _, err := lambdafn.NewRegistry(lambdafn.WithAccountConcurrency(0)); !errors.Is(err, lambdafn.ErrInvalidRegistry) {
		t.Errorf("account concurrency 0: %v, want ErrInvalidRegistry", err)
	}
}
