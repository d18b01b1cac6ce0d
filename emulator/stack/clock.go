package stack

import (
	"bytes"
	"context"
	"encoding/json"
	"hash/fnv"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/turnstile-sfn/turnstile/emulator"
)

// lentTokenHeader marks a request to the stack's Step Functions API whose caller holds a busy
// token of the clock and lends it to the request while blocked on it.
const lentTokenHeader = "X-Turnstile-Busy-Token"

// SkippingStart is the first instant of a stack's skipping clock (TimeScale 0): a fixed one, not
// the current time, since the machines write timestamps into their requests ($$.State.EnteredTime
// into the lock's holder items, for one) and the latency model draws from what a request says:
// two runs of a seed replay only when they begin at the same instant.
var SkippingStart = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// newClock returns the stack's clock: skipping time at TimeScale 0 (from SkippingStart), else
// scaled.
func newClock(opts Options) *emulator.ScaledClock {
	if opts.TimeScale == 0 {
		return emulator.NewSkippingClock(SkippingStart, opts.Seed)
	}
	return emulator.NewScaledClock(time.Time{}, opts.TimeScale)
}

// onClock wraps the Step Functions API so that the clock sees its requests: a request from a
// handler (lentTokenHeader) first takes the latency of a Step Functions API call, on the token
// its caller lends; a request from outside that acts (StartExecution, StopExecution, SendTask*,
// ...) holds a token of its own while it is served, and one that only reads (Describe*, List*,
// Get*) none, so that an observer polling does not hold time still.
func onClock(clock emulator.Clock, latency *emulator.Latency) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get(lentTokenHeader) == "" {
				if !readOnly(r) {
					release := clock.Hold()
					defer release()
				}
			} else if err := clock.Sleep(r.Context(), latency.Draw(emulator.LatencyStepFunctionsAPI, requestKey(r))); err != nil {
				http.Error(w, err.Error(), http.StatusServiceUnavailable)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// readOnly reports whether a Step Functions API request only reads (Describe*, List*, Get*).
func readOnly(r *http.Request) bool {
	_, op, _ := strings.Cut(r.Header.Get("X-Amz-Target"), ".")
	return strings.HasPrefix(op, "Describe") || strings.HasPrefix(op, "List") || strings.HasPrefix(op, "Get")
}

// callerHeader carries, on a handler's DynamoDB request, a hash of the call the handler serves
// (emulator.CallerOf), so that requestKey tells apart the same request sent by two handlers.
const callerHeader = "X-Turnstile-Caller"

// markCaller adds callerHeader to the requests of a handler's AWS SDK client.
func markCaller(stack *middleware.Stack) error {
	return stack.Build.Add(middleware.BuildMiddlewareFunc("TurnstileCaller", func(ctx context.Context, in middleware.BuildInput, next middleware.BuildHandler) (middleware.BuildOutput, middleware.Metadata, error) {
		if req, ok := in.Request.(*smithyhttp.Request); ok {
			if caller := emulator.CallerOf(ctx); caller != "" {
				h := fnv.New64a()
				h.Write([]byte(caller))
				req.Header.Set(callerHeader, strconv.FormatUint(h.Sum64(), 16))
			}
		}
		return next.HandleBuild(ctx, in)
	}), middleware.After)
}

// requestKey names an AWS API request for the latency model: its operation, its JSON body
// with object keys sorted (clients may write them in map order) and without its idempotency
// token (ClientRequestToken), and the caller a handler's request is marked with
// (callerHeader). It reads the body and puts it back.
func requestKey(r *http.Request) string {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return r.Header.Get("X-Amz-Target")
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var v any
	if json.Unmarshal(body, &v) == nil {
		if fields, ok := v.(map[string]any); ok {
			// An idempotency token is random by nature (the SDK draws one per call): a request
			// is the same request whatever its token.
			delete(fields, "ClientRequestToken")
		}
		if canonical, err := json.Marshal(v); err == nil {
			body = canonical
		}
	}
	return r.Header.Get("X-Amz-Target") + "\x00" + string(body) + "\x00" + r.Header.Get(callerHeader)
}

// lendingClient is the HTTP client of the handlers' Step Functions client: it marks each request
// with lentTokenHeader.
type lendingClient struct{}

// Do sends the request marked.
func (lendingClient) Do(r *http.Request) (*http.Response, error) {
	r.Header.Set(lentTokenHeader, "1")
	return http.DefaultClient.Do(r)
}
