package work_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/turnstile-sfn/turnstile/lambdas/dowork/work"
)

// A handler on a test clock with a seeded generator: no real waiting, a reproducible outcome.
func ExampleHandler_Handle() {
	noWait := work.SleeperFunc(func(context.Context, time.Duration) error { return nil })
	h, err := work.New(work.Config{Duration: 15 * time.Second, FailureRate: 0},
		work.WithSleeper(noWait), work.WithRand(rand.New(rand.NewPCG(1, 2))))
	if err != nil {
		fmt.Println(err)
		return
	}
	result, err := h.Handle(context.Background(), json.RawMessage(`{"lock":"MySemaphore"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	out, _ := json.Marshal(result)
	fmt.Println(string(out))
	// Output: {"workedMillis":15000}
}

// A failed invocation is a *WorkFailed, reported to Step Functions as "WorkFailed".
func ExampleWorkFailed() {
	noWait := work.SleeperFunc(func(context.Context, time.Duration) error { return nil })
	h, err := work.New(work.Config{Duration: time.Second, FailureRate: 1}, work.WithSleeper(noWait))
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = h.Handle(context.Background(), json.RawMessage(`{}`))
	var failed *work.WorkFailed
	fmt.Println(errors.As(err, &failed), work.ErrorNameWorkFailed)
	fmt.Println(err)
	// Output:
	// true WorkFailed
	// dowork: simulated failure after 1s of work (failure rate 1)
}

func ExampleConfigFromEnv() {
	environment := map[string]string{work.EnvDuration: "150ms", work.EnvFailureRate: "0.1"}
	cfg, err := work.ConfigFromEnv(func(name string) (string, bool) {
		value, ok := environment[name]
		return value, ok
	})
	fmt.Println(cfg, err)
	// Output: 150ms of work, 10% failures <nil>
}
