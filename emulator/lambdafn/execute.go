package lambdafn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"

	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/turnstile-sfn/turnstile/emulator"
)

// result is how one run of a handler ended.
type result struct {
	payload    []byte        // the response, or the error document when failed
	failed     bool          // a function error: returned, panicked or timed out
	serviceErr *ServiceError // a simulated Lambda fault, or the registry closing
}

// acquire takes one of the function's concurrent executions, or answers as Lambda does when the
// function's reserved concurrency, or the account's unreserved concurrency, is used up. It
// returns the configuration to run with.
func (r *Registry) acquire(fn *function) (functionConfig, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return functionConfig{}, &ServiceError{Code: CodeService, Message: closedMessage, Err: ErrClosed}
	}
	if fn.config.reserved && fn.inFlight >= fn.config.reservedConcurrency {
		return functionConfig{}, NewServiceError(CodeTooManyRequests, throttleMessage)
	}
	if !fn.config.reserved {
		if r.unreservedInFlight >= r.accountConcurrency-r.reservedLocked() {
			return functionConfig{}, NewServiceError(CodeTooManyRequests, throttleMessage)
		}
		r.unreservedInFlight++
	}
	fn.inFlight++
	return fn.config, nil
}

// release gives back a concurrent execution that acquire took with cfg.
func (r *Registry) release(fn *function, cfg functionConfig) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fn.inFlight--
	if !cfg.reserved {
		r.unreservedInFlight--
	}
}

// reservedLocked is the concurrency the registry's functions reserve.
func (r *Registry) reservedLocked() int {
	n := 0
	for _, fn := range r.functions {
		if fn.config.reserved {
			n += fn.config.reservedConcurrency
		}
	}
	return n
}

// runSync runs an acquired invocation on the registry's clock and waits for how it ended, or
// for ctx. After the invoke's latency the handler runs on a goroutine of its own (holding a busy
// token, see emulator.Clock) with a virtual deadline, and the caller waits for it or for the
// deadline. Like Lambda, it gives the concurrent execution back when the handler returns or
// times out; a handler still running after its timeout is left to finish, its result discarded.
func (r *Registry) runSync(ctx context.Context, inv *invocation, cfg functionConfig) (result, error) {
	defer r.release(inv.fn, cfg)
	if err := r.track(); err != nil {
		return result{}, err
	}
	defer r.work.done()
	if err := r.clock.Sleep(ctx, r.latency.Draw(emulator.LatencyLambdaInvoke, inv.arn+"\x00"+string(inv.payload))); err != nil {
		return result{}, err
	}
	timeout := max(cfg.timeout, r.minVirtual)
	deadline := r.clock.Now().Add(timeout)
	hctx, cancel := r.clock.WithTimeout(ctx, timeout)
	defer cancel()
	stop := context.AfterFunc(r.base, cancel) // the registry closing ends the handler
	defer stop()
	hctx = emulator.WithCaller(hctx, inv.arn+"\x00"+string(inv.payload))
	hctx = lambdacontext.NewContext(hctx, &lambdacontext.LambdaContext{
		AwsRequestID:       inv.requestID,
		InvokedFunctionArn: inv.arn,
		ClientContext:      inv.clientContext,
	})
	done := make(chan result, 1)
	finished := r.clock.NewSignal()
	r.work.add()
	r.clock.Go(func() {
		defer r.work.done()
		done <- run(hctx, inv.fn.handler, inv.payload)
		finished.Fire()
	})
	err := finished.Wait(hctx)
	switch {
	case ctx.Err() != nil:
		return result{}, ctx.Err()
	case r.base.Err() != nil:
		return result{serviceErr: &ServiceError{Code: CodeService, Message: closedMessage, Err: ErrClosed}}, nil
	case err != nil || !r.clock.Now().Before(deadline):
		// What a handler returns at its deadline (a sleep cut short) is lost to the timeout.
		return result{payload: r.timeoutDocument(inv.requestID, cfg), failed: true}, nil
	}
	return <-done, nil
}

// track records one more goroutine of the registry, unless the registry is closed.
func (r *Registry) track() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return &ServiceError{Code: CodeService, Message: closedMessage, Err: ErrClosed}
	}
	r.work.add()
	return nil
}

// run calls the handler and turns what it did into a result, recovering a panic the way
// aws-lambda-go's runtime does.
func run(ctx context.Context, h Handler, payload []byte) (res result) {
	defer func() {
		if v := recover(); v != nil {
			pcs := make([]uintptr, 32)
			n := runtime.Callers(3, pcs) // skip runtime.Callers, this function, runtime.gopanic
			res = result{payload: marshalFunctionError(functionErrorForPanic(v, pcs[:n])), failed: true}
		}
	}()
	response, err := h(ctx, payload)
	var se *ServiceError
	switch {
	case errors.As(err, &se):
		copied := *se
		return result{serviceErr: &copied}
	case err != nil:
		return result{payload: marshalFunctionError(functionErrorFor(err)), failed: true}
	}
	return result{payload: response}
}

// timeoutDocument is the response of a timed-out invocation. Lambda puts no errorType in it,
// which is why Step Functions reports a timeout as Lambda.Unknown.
func (r *Registry) timeoutDocument(requestID string, cfg functionConfig) []byte {
	doc, _ := json.Marshal(struct {
		ErrorMessage string `json:"errorMessage"`
	}{fmt.Sprintf("%s %s Task timed out after %.2f seconds",
		r.now().UTC().Format("2006-01-02T15:04:05.000Z"), requestID, cfg.timeout.Seconds())})
	return doc
}
