package stack

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/turnstile-sfn/turnstile/emulator"
)

// lentTokenHeader marks a request to the stack's Step Functions API whose caller holds a busy
// token of the clock and lends it to the request while blocked on it.
const lentTokenHeader = "X-Turnstile-Busy-Token"

// newClock returns the stack's clock: skipping time at TimeScale 0 (its start the current hour,
// so that schedules fall at the same offsets in every run), else scaled.
func newClock(opts Options) *emulator.ScaledClock {
	if opts.TimeScale == 0 {
		return emulator.NewSkippingClock(time.Now().UTC().Truncate(time.Hour), opts.Seed)
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

// requestKey names an AWS API request for the latency model: its operation and its JSON body
// with object keys sorted (clients may write them in map order). It reads the body and puts it
// back.
func requestKey(r *http.Request) string {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return r.Header.Get("X-Amz-Target")
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var v any
	if json.Unmarshal(body, &v) == nil {
		if canonical, err := json.Marshal(v); err == nil {
			body = canonical
		}
	}
	return r.Header.Get("X-Amz-Target") + "\x00" + string(body)
}

// lendingClient is the HTTP client of the handlers' Step Functions client: it marks each request
// with lentTokenHeader.
type lendingClient struct{}

// Do sends the request marked.
func (lendingClient) Do(r *http.Request) (*http.Response, error) {
	r.Header.Set(lentTokenHeader, "1")
	return http.DefaultClient.Do(r)
}
