package test

import (
	"context"
	"sync"

	"github.com/turnstile-sfn/turnstile/cmd/app/demo"
	"github.com/turnstile-sfn/turnstile/emulator/lambdafn"
	"github.com/turnstile-sfn/turnstile/emulator/stack"
	"github.com/turnstile-sfn/turnstile/emulator/template"
	"github.com/turnstile-sfn/turnstile/internal/simulate"
	"github.com/turnstile-sfn/turnstile/lambdas/dowork/work"
	"github.com/turnstile-sfn/turnstile/slot"
)

// workRecord counts, by execution, the dowork invocations that got past the slot check: those
// that worked.
type workRecord struct {
	mu      sync.Mutex
	started map[string]int // by execution ARN
}

func newWorkRecord() *workRecord { return &workRecord{started: map[string]int{}} }

// startedBy is how many invocations of the execution got past the slot check.
func (w *workRecord) startedBy(arn string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.started[arn]
}

// handlers are simulate.Handlers with the demo's dowork built as simulate builds it, its slot
// check recording what it lets through.
func (w *workRecord) handlers() map[string]stack.HandlerFactory {
	hs := simulate.Handlers()
	hs[demo.DoWorkPackage] = func(fn template.Function, env stack.HandlerEnv) (lambdafn.Handler, error) {
		check := func(ctx context.Context) error {
			if err := slot.Verify(ctx, env.DynamoDB); err != nil {
				return err
			}
			c, err := slot.FromContext(ctx)
			if err != nil {
				return err
			}
			w.mu.Lock()
			defer w.mu.Unlock()
			w.started[c.Execution]++
			return nil
		}
		lookup := func(name string) (string, bool) { v, ok := fn.Environment[name]; return v, ok }
		h, err := work.NewFromEnv(lookup, work.WithSleeper(env.Clock), work.WithRand(env.Rand), work.WithSlotCheck(check))
		if err != nil {
			return nil, err
		}
		return lambdafn.FromLambdaHandler(h.Handle), nil
	}
	return hs
}
