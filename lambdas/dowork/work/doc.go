// Package work is the demo work of Turnstile: the body of the dowork Lambda function that the
// semaphore protects. Each invocation works for a configured duration and then fails at a
// configured rate, as the original AWS demo did (defaults: 15 s and 10 %).
//
// Configuration comes from the environment (WORK_DURATION, a Go duration such as "15s";
// WORK_FAILURE_RATE, a fraction between 0 and 1) or from a Config value. Invalid configuration is
// an *InvalidConfig error.
//
// A simulated failure is a *WorkFailed error. aws-lambda-go reports the Go type name of the
// returned error as the errorType, so Step Functions sees the error name "WorkFailed"
// (ErrorNameWorkFailed) and a state machine can match it in ErrorEquals.
//
// The sleep and the randomness are injectable (WithSleeper, WithRand), so the local emulator can
// run the handler on a scaled clock with a seeded generator:
//
//	h, err := work.New(work.Config{Duration: 15 * time.Second, FailureRate: 0.1},
//		work.WithRand(rand.New(rand.NewPCG(1, 2))),
//		work.WithSleeper(work.SleeperFunc(func(ctx context.Context, d time.Duration) error {
//			return nil // a test clock: no real waiting
//		})))
//	if err != nil {
//		return err
//	}
//	result, err := h.Handle(ctx, json.RawMessage(`{"lock":"MySemaphore"}`))
//	var failed *work.WorkFailed
//	if errors.As(err, &failed) {
//		// the simulated failure
//	}
package work
