package simulate

import (
	"context"
	"sync"

	"github.com/turnstile-sfn/turnstile/cmd/app/demo"
	"github.com/turnstile-sfn/turnstile/constructs/cleanup"
	"github.com/turnstile-sfn/turnstile/constructs/semaphore"
	"github.com/turnstile-sfn/turnstile/emulator/lambdafn"
	"github.com/turnstile-sfn/turnstile/emulator/stack"
	"github.com/turnstile-sfn/turnstile/emulator/template"
	"github.com/turnstile-sfn/turnstile/lambdas/dowork/work"
	"github.com/turnstile-sfn/turnstile/lambdas/handoff/handoff"
	"github.com/turnstile-sfn/turnstile/lambdas/reconciler/reconcile"
	"github.com/turnstile-sfn/turnstile/lambdas/submit/submit"
	"github.com/turnstile-sfn/turnstile/lock"
	"github.com/turnstile-sfn/turnstile/metrics"
	"github.com/turnstile-sfn/turnstile/slot"
)

// Handlers returns the handler factories of the demo's functions, keyed by Go package: dowork
// reads its configuration from the function's environment in the template, and sleeps on the
// emulator's clock with the stack's seeded randomness; the cleanup's reconciler and the submit
// function read their table and state machine from the environment and talk to the stack's own
// APIs. The hand-off
// function and the reconciler write their metrics to the function's log, where the stack
// captures them (stack.Stack.Metrics).
func Handlers() map[string]stack.HandlerFactory { return handlers(nil) }

// handlers are the Handlers whose StartExecution replies are lost at loss's fraction (nil:
// none).
func handlers(loss *startLoss) map[string]stack.HandlerFactory {
	return map[string]stack.HandlerFactory{
		demo.DoWorkPackage: func(fn template.Function, env stack.HandlerEnv) (lambdafn.Handler, error) {
			verify := func(ctx context.Context) error { return slot.Verify(ctx, env.DynamoDB) }
			h, err := work.NewFromEnv(lookupIn(fn), work.WithSleeper(env.Clock), work.WithRand(env.Rand), work.WithSlotCheck(verify))
			if err != nil {
				return nil, err
			}
			return lambdafn.FromLambdaHandler(h.Handle), nil
		},
		semaphore.HandOffPackage: func(fn template.Function, env stack.HandlerEnv) (lambdafn.Handler, error) {
			table, err := handoff.TableFromEnv(lookupIn(fn))
			if err != nil {
				return nil, err
			}
			m := metrics.NewLoggerFromEnv(env.Log, lookupIn(fn), env.Clock.Now)
			locks, err := lock.New(table, env.DynamoDB, loss.client(env.StepFunctions), lock.WithNow(env.Clock.Now), lock.WithSleep(env.Clock.Sleep), handoff.WaitTimes(m))
			if err != nil {
				return nil, err
			}
			return lambdafn.FromLambdaHandler(handoff.New(locks, handoff.WithMetrics(m)).Handle), nil
		},
		semaphore.SubmitPackage: func(fn template.Function, env stack.HandlerEnv) (lambdafn.Handler, error) {
			cfg, err := submit.ConfigFromEnv(lookupIn(fn))
			if err != nil {
				return nil, err
			}
			locks, err := lock.New(cfg.TableName, env.DynamoDB, loss.client(env.StepFunctions), lock.WithNow(env.Clock.Now), lock.WithSleep(env.Clock.Sleep))
			if err != nil {
				return nil, err
			}
			if !cfg.SeveralLocks {
				h, err := submit.New(cfg, locks)
				if err != nil {
					return nil, err
				}
				return lambdafn.FromLambdaHandler(h.Handle), nil
			}
			// The function reads the machine's definition at its cold start: here at its first
			// invocation, since the stack creates its state machines after its functions.
			var mu sync.Mutex
			var handle lambdafn.Handler
			return func(ctx context.Context, payload []byte) ([]byte, error) {
				mu.Lock()
				if handle == nil {
					loaded, err := submit.LoadInputLocks(ctx, env.StepFunctions, cfg)
					var h *submit.Handler
					if err == nil {
						h, err = submit.New(loaded, locks)
					}
					if err != nil {
						mu.Unlock()
						return nil, err
					}
					handle = lambdafn.FromLambdaHandler(h.Handle)
				}
				mu.Unlock()
				return handle(ctx, payload)
			}, nil
		},
		cleanup.ReconcilerPackage: func(fn template.Function, env stack.HandlerEnv) (lambdafn.Handler, error) {
			cfg, err := reconcile.ConfigFromEnv(lookupIn(fn))
			if err != nil {
				return nil, err
			}
			m := metrics.NewLoggerFromEnv(env.Log, lookupIn(fn), env.Clock.Now)
			r, err := reconcile.New(cfg, loss.client(env.StepFunctions), env.DynamoDB, reconcile.WithNow(env.Clock.Now), reconcile.WithMetrics(m))
			if err != nil {
				return nil, err
			}
			return lambdafn.FromLambdaHandler(r.Handle), nil
		},
	}
}

// lookupIn looks names up in the function's environment in the template.
func lookupIn(fn template.Function) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := fn.Environment[name]
		return v, ok
	}
}
