package lambdafn_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/turnstile-sfn/turnstile/emulator/lambdafn"
)

func TestRegisterRejects(t *testing.T) {
	tests := []struct {
		name    string
		fn      string
		handler lambdafn.Handler
		opts    []lambdafn.FunctionOption
		want    error
	}{
		{"a duplicate", "taken", echo, nil, lambdafn.ErrAlreadyRegistered},
		{"a duplicate by ARN", fnARN("taken"), echo, nil, lambdafn.ErrAlreadyRegistered},
		{"a qualified name", "fn:prod", echo, nil, lambdafn.ErrInvalidFunctionName},
		{"an invalid name", "fn name", echo, nil, lambdafn.ErrInvalidFunctionName},
		{"a nil handler", "fn", nil, nil, lambdafn.ErrInvalidOption},
		{"a zero timeout", "fn", echo, []lambdafn.FunctionOption{lambdafn.Timeout(0)}, lambdafn.ErrInvalidOption},
		{"a timeout above 900 s", "fn", echo, []lambdafn.FunctionOption{lambdafn.Timeout(901 * time.Second)}, lambdafn.ErrInvalidOption},
		{"a fractional timeout", "fn", echo, []lambdafn.FunctionOption{lambdafn.Timeout(1500 * time.Millisecond)}, lambdafn.ErrInvalidOption},
		{"negative reserved concurrency", "fn", echo, []lambdafn.FunctionOption{lambdafn.ReservedConcurrency(-1)}, lambdafn.ErrInvalidOption},
		{"three async retries", "fn", echo, []lambdafn.FunctionOption{lambdafn.AsyncRetryAttempts(3)}, lambdafn.ErrInvalidOption},
		{"an event age under a minute", "fn", echo, []lambdafn.FunctionOption{lambdafn.MaxEventAge(time.Second)}, lambdafn.ErrInvalidOption},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := newRegistry(t)
			if err := reg.Register("taken", echo); err != nil {
				t.Fatal(err)
			}
			if err := reg.Register(tt.fn, tt.handler, tt.opts...); !errors.Is(err, tt.want) {
				t.Errorf("Register(%q) error = %v, want %v", tt.fn, err, tt.want)
			}
		})
	}
}

func TestNewRegistryRejects(t *testing.T) {
	tests := []struct {
		name string
		opt  lambdafn.RegistryOption
	}{
		{"a malformed region", lambdafn.WithRegion("moon")},
		{"a short account", lambdafn.WithAccount("1234")},
		{"a negative time scale", lambdafn.WithTimeScale(-1)},
		{"a negative minimum timeout", lambdafn.WithMinTimeout(-time.Second)},
		{"a nil clock", lambdafn.WithNow(nil)},
	}
	for _, tt := range tests {
		if _, err := lambdafn.NewRegistry(tt.opt); !errors.Is(err, lambdafn.ErrInvalidRegistry) {
			t.Errorf("%s: NewRegistry error = %v, want ErrInvalidRegistry", tt.name, err)
		}
	}
}

func TestConfigure(t *testing.T) {
	reg := newRegistry(t, lambdafn.WithTimeScale(0.001), lambdafn.WithMinTimeout(0))
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	if err := reg.Register("slow", blockUntil(release), lambdafn.Timeout(900*time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := reg.Configure("slow", lambdafn.Timeout(time.Second)); err != nil {
		t.Fatalf("Configure: %v", err)
	}
	_, err := lambdafn.NewIntegration(reg).Invoke(context.Background(), fnARN("slow"), map[string]any{})
	if got := asStatesError(t, err).Name; got != lambdafn.ErrorUnknown {
		t.Errorf("after Configure(Timeout(1s)) the error is %q, want the timeout's %q", got, lambdafn.ErrorUnknown)
	}
	if err := reg.Configure("missing", lambdafn.Timeout(time.Second)); !errors.Is(err, lambdafn.ErrNotRegistered) {
		t.Errorf("Configure(missing) error = %v, want ErrNotRegistered", err)
	}
	if err := reg.Configure("slow", lambdafn.Timeout(0)); !errors.Is(err, lambdafn.ErrInvalidOption) {
		t.Errorf("Configure(Timeout(0)) error = %v, want ErrInvalidOption", err)
	}
}

// blockUntil returns a handler that ignores its context and returns once release is closed.
func blockUntil(release <-chan struct{}) lambdafn.Handler {
	return func(context.Context, []byte) ([]byte, error) {
		<-release
		return []byte(`"released"`), nil
	}
}

func TestTimeout(t *testing.T) {
	reg := newRegistry(t, lambdafn.WithTimeScale(0.001), lambdafn.WithMinTimeout(0))
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	var sawDeadline atomic.Bool
	stuck := func(ctx context.Context, _ []byte) ([]byte, error) {
		_, ok := ctx.Deadline()
		sawDeadline.Store(ok)
		<-release
		return nil, nil
	}
	if err := reg.Register("stuck", stuck, lambdafn.Timeout(2*time.Second), lambdafn.ReservedConcurrency(1)); err != nil {
		t.Fatal(err)
	}
	lambda := lambdafn.NewIntegration(reg)
	// The second invocation finds the slot free again: a timed-out invocation gives its
	// concurrency back even though its goroutine is still running.
	for attempt := 1; attempt <= 2; attempt++ {
		_, err := lambda.Invoke(context.Background(), invokeResource, map[string]any{"FunctionName": "stuck"})
		got := asStatesError(t, err)
		want := regexp.MustCompile(`^The cause could not be determined because Lambda did not return an error type\. Returned payload: ` +
			`\{"errorMessage":"2026-03-14T15:09:26\.535Z [0-9a-f-]{36} Task timed out after 2\.00 seconds"\}$`)
		if got.Name != lambdafn.ErrorUnknown || !want.MatchString(got.Cause) {
			t.Errorf("attempt %d: error = %q / %s, want %s / match of %s", attempt, got.Name, got.Cause, lambdafn.ErrorUnknown, want)
		}
	}
	if !sawDeadline.Load() {
		t.Error("the handler's context had no deadline")
	}
}

func TestHandlerThatHonoursItsDeadline(t *testing.T) {
	reg := newRegistry(t, lambdafn.WithTimeScale(0.001), lambdafn.WithMinTimeout(0))
	patient := lambdafn.FromLambdaHandler(func(ctx context.Context) error {
		<-ctx.Done()
		return ctx.Err()
	})
	if err := reg.Register("patient", patient, lambdafn.Timeout(time.Second)); err != nil {
		t.Fatal(err)
	}
	_, err := lambdafn.NewIntegration(reg).Invoke(context.Background(), fnARN("patient"), map[string]any{})
	got := asStatesError(t, err)
	// Either the handler's own error or the timeout wins the race; both are what Lambda can
	// report for a function that returns as its deadline passes.
	if got.Name != lambdafn.ErrorUnknown && got.Name != "deadlineExceededError" {
		t.Errorf("error name = %q, want %s or deadlineExceededError", got.Name, lambdafn.ErrorUnknown)
	}
}

func TestReservedConcurrencyThrottles(t *testing.T) {
	const limit = 2
	reg := newRegistry(t)
	release := make(chan struct{})
	started := make(chan struct{}, limit)
	held := func(context.Context, []byte) ([]byte, error) {
		started <- struct{}{}
		<-release
		return []byte(`"done"`), nil
	}
	if err := reg.Register("limited", held, lambdafn.ReservedConcurrency(limit)); err != nil {
		t.Fatal(err)
	}
	lambda := lambdafn.NewIntegration(reg)
	var wg sync.WaitGroup
	results := make(chan error, limit)
	for range limit {
		wg.Go(func() {
			_, err := lambda.Invoke(context.Background(), fnARN("limited"), map[string]any{})
			results <- err
		})
	}
	for range limit {
		<-started
	}
	_, err := lambda.Invoke(context.Background(), invokeResource, map[string]any{"FunctionName": "limited"})
	got := asStatesError(t, err)
	wantCause := regexp.MustCompile(`^Rate Exceeded\. \(Service: AWSLambda; Status Code: 429; Error Code: TooManyRequestsException; Request ID: [0-9a-f-]{36}; Proxy: null\)$`)
	if got.Name != "Lambda.TooManyRequestsException" || !wantCause.MatchString(got.Cause) {
		t.Errorf("invocation beyond the limit: %q / %s, want Lambda.TooManyRequestsException / match of %s", got.Name, got.Cause, wantCause)
	}
	close(release)
	wg.Wait()
	close(results)
	for err := range results {
		if err != nil {
			t.Errorf("invocation within the limit failed: %v", err)
		}
	}
	// Once the running invocations return, their concurrency is free again.
	out, err := lambda.Invoke(context.Background(), fnARN("limited"), map[string]any{})
	if err != nil || out != "done" {
		t.Errorf("invocation after release = %v, %v; want done", out, err)
	}
}

func TestReservedConcurrencyZeroThrottlesEverything(t *testing.T) {
	reg := newRegistry(t)
	if err := reg.Register("off", echo, lambdafn.ReservedConcurrency(0)); err != nil {
		t.Fatal(err)
	}
	_, err := lambdafn.NewIntegration(reg).Invoke(context.Background(), fnARN("off"), map[string]any{})
	if got := asStatesError(t, err).Name; got != "Lambda.TooManyRequestsException" {
		t.Errorf("error name = %q, want Lambda.TooManyRequestsException", got)
	}
}

func TestLambdaContext(t *testing.T) {
	reg := newRegistry(t)
	seen := make(chan *lambdacontext.LambdaContext, 1)
	h := lambdafn.FromLambdaHandler(func(ctx context.Context) error {
		lc, _ := lambdacontext.FromContext(ctx)
		seen <- lc
		return nil
	})
	if err := reg.Register("ctx", h); err != nil {
		t.Fatal(err)
	}
	clientContext := base64.StdEncoding.EncodeToString([]byte(`{"custom":{"tenant":"blue"},"env":{"STAGE":"test"}}`))
	out, err := lambdafn.NewIntegration(reg).Invoke(context.Background(), invokeResource, map[string]any{
		"FunctionName":  "ctx:prod",
		"ClientContext": clientContext,
	})
	if err != nil {
		t.Fatalf("Invoke: %v", err)
	}
	lc := <-seen
	if lc == nil {
		t.Fatal("the handler's context carries no LambdaContext")
	}
	requestID := out.(map[string]any)["SdkResponseMetadata"].(map[string]any)["RequestId"]
	if lc.AwsRequestID != requestID {
		t.Errorf("AwsRequestID = %q, want the response's RequestId %q", lc.AwsRequestID, requestID)
	}
	if want := fnARN("ctx") + ":prod"; lc.InvokedFunctionArn != want {
		t.Errorf("InvokedFunctionArn = %q, want %q", lc.InvokedFunctionArn, want)
	}
	if lc.ClientContext.Custom["tenant"] != "blue" || lc.ClientContext.Env["STAGE"] != "test" {
		t.Errorf("ClientContext = %+v, want custom tenant=blue and env STAGE=test", lc.ClientContext)
	}
}

// greeter implements aws-lambda-go's lambda.Handler interface.
type greeter struct{}

func (greeter) Invoke(_ context.Context, payload []byte) ([]byte, error) {
	return append([]byte(`{"hello":`), append(payload, '}')...), nil
}

func TestFromLambdaHandlerSignatures(t *testing.T) {
	tests := []struct {
		name    string
		handler any
		payload string
		want    string
	}{
		{"func()", func() {}, `{}`, `null`},
		{"func() error", func() error { return nil }, `{}`, `null`},
		{"func(ctx) error", func(context.Context) error { return nil }, `{}`, `null`},
		{"func(event) (out, error)", func(in workInput) (workOutput, error) { return workOutput{Job: in.Job}, nil }, `{"job":2}`, `{"job":2,"done":false}`},
		{"func(ctx, event) (out, error)", doWork, `{"job":3}`, `{"job":3,"done":true}`},
		{"func(ctx, event) error", func(context.Context, workInput) error { return nil }, `{"job":4}`, `null`},
		{"func(ctx, raw) (raw, error)", func(_ context.Context, in json.RawMessage) (json.RawMessage, error) { return in, nil }, `[1,2]`, `[1,2]`},
		{"func(ctx, map) (string, error)", func(_ context.Context, in map[string]any) (string, error) { return fmt.Sprint(in["n"]), nil }, `{"n":5}`, `"5"`},
		{"a lambda.Handler", greeter{}, `"you"`, `{"hello":"you"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := newRegistry(t)
			if err := reg.Register("fn", lambdafn.FromLambdaHandler(tt.handler)); err != nil {
				t.Fatal(err)
			}
			out, err := reg.Invoke(context.Background(), &lambdafn.InvokeInput{FunctionName: "fn", Payload: []byte(tt.payload)})
			if err != nil {
				t.Fatalf("Invoke: %v", err)
			}
			if out.FunctionError != "" || string(out.Payload) != tt.want {
				t.Errorf("Invoke = %q (FunctionError %q), want %q", out.Payload, out.FunctionError, tt.want)
			}
		})
	}
}

func TestFromLambdaHandlerRejectsInvalidHandlers(t *testing.T) {
	reg := newRegistry(t)
	if err := reg.Register("bad", lambdafn.FromLambdaHandler(func(int, int) {})); err != nil {
		t.Fatal(err)
	}
	out, err := reg.Invoke(context.Background(), &lambdafn.InvokeInput{FunctionName: "bad"})
	if err != nil {
		t.Fatalf("Invoke: %v", err)
	}
	want := `{"errorMessage":"handler takes two arguments, but the first is not Context. got int","errorType":"errorString"}`
	if out.FunctionError != lambdafn.FunctionErrorUnhandled || string(out.Payload) != want {
		t.Errorf("Invoke = %s (FunctionError %q), want %s (Unhandled)", out.Payload, out.FunctionError, want)
	}
}

func TestConcurrentInvocationsKeepTheirOwnResponses(t *testing.T) {
	reg := newRegistry(t)
	if err := reg.Register("work", lambdafn.FromLambdaHandler(doWork)); err != nil {
		t.Fatal(err)
	}
	lambda := lambdafn.NewIntegration(reg)
	const n = 64
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for job := range n {
		wg.Go(func() {
			out, err := lambda.Invoke(context.Background(), fnARN("work"), map[string]any{"job": int64(job)})
			want := map[string]any{"job": int64(job), "done": true}
			if err != nil || fmt.Sprint(out) != fmt.Sprint(want) {
				errs <- fmt.Errorf("job %d: got %v, %v; want %v", job, out, err, want)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestAsyncInvocation(t *testing.T) {
	reg := newRegistry(t)
	got := make(chan string, 1)
	h := func(_ context.Context, payload []byte) ([]byte, error) {
		got <- string(payload)
		return nil, nil
	}
	if err := reg.Register("async", h); err != nil {
		t.Fatal(err)
	}
	out, err := reg.Invoke(context.Background(), &lambdafn.InvokeInput{FunctionName: "async", InvocationType: lambdafn.Event, Payload: []byte(`{"n":1}`)})
	if err != nil {
		t.Fatalf("Invoke: %v", err)
	}
	if out.StatusCode != 202 || len(out.Payload) != 0 || out.ExecutedVersion != "" {
		t.Errorf("Event output = %+v, want status 202, no payload, no executed version", out)
	}
	if err := reg.Drain(context.Background()); err != nil {
		t.Fatalf("Drain: %v", err)
	}
	if payload := <-got; payload != `{"n":1}` {
		t.Errorf("the handler got %s, want {\"n\":1}", payload)
	}
}

func TestAsyncRetries(t *testing.T) {
	tests := []struct {
		name         string
		opts         []lambdafn.FunctionOption
		handler      func(attempt int32) error
		wantAttempts int32
	}{
		{"a success is not retried", nil, func(int32) error { return nil }, 1},
		{"a failure is retried twice", nil, func(int32) error { return errors.New("no") }, 3},
		{"a failure is retried as configured", []lambdafn.FunctionOption{lambdafn.AsyncRetryAttempts(1)}, func(int32) error { return errors.New("no") }, 2},
		{"a retry can succeed", nil, func(attempt int32) error {
			if attempt < 2 {
				return errors.New("not yet")
			}
			return nil
		}, 2},
		{"a service fault is retried", nil, func(int32) error { return lambdafn.NewServiceError(lambdafn.CodeService, "down") }, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := newRegistry(t, lambdafn.WithTimeScale(1e-6))
			var attempts atomic.Int32
			h := func(context.Context, []byte) ([]byte, error) {
				return nil, tt.handler(attempts.Add(1))
			}
			if err := reg.Register("flaky", h, tt.opts...); err != nil {
				t.Fatal(err)
			}
			if _, err := reg.Invoke(context.Background(), &lambdafn.InvokeInput{FunctionName: "flaky", InvocationType: lambdafn.Event}); err != nil {
				t.Fatalf("Invoke: %v", err)
			}
			if err := reg.Drain(context.Background()); err != nil {
				t.Fatalf("Drain: %v", err)
			}
			if got := attempts.Load(); got != tt.wantAttempts {
				t.Errorf("attempts = %d, want %d", got, tt.wantAttempts)
			}
		})
	}
}

func TestAsyncInvocationWaitsOutThrottling(t *testing.T) {
	reg := newRegistry(t, lambdafn.WithTimeScale(1e-3))
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	var runs atomic.Int32
	h := func(_ context.Context, payload []byte) ([]byte, error) {
		runs.Add(1)
		if string(payload) == `"hold"` {
			started <- struct{}{}
			<-release
		}
		return nil, nil
	}
	if err := reg.Register("single", h, lambdafn.ReservedConcurrency(1)); err != nil {
		t.Fatal(err)
	}
	holder := make(chan error, 1)
	go func() {
		_, err := reg.Invoke(context.Background(), &lambdafn.InvokeInput{FunctionName: "single", Payload: []byte(`"hold"`)})
		holder <- err
	}()
	<-started
	if _, err := reg.Invoke(context.Background(), &lambdafn.InvokeInput{FunctionName: "single", InvocationType: lambdafn.Event, Payload: []byte(`"queued"`)}); err != nil {
		t.Fatalf("an Event invocation is accepted even when throttled: %v", err)
	}
	close(release)
	if err := <-holder; err != nil {
		t.Fatalf("holding invocation: %v", err)
	}
	if err := reg.Drain(context.Background()); err != nil {
		t.Fatalf("Drain: %v", err)
	}
	if got := runs.Load(); got != 2 {
		t.Errorf("runs = %d, want 2: the throttled event runs once the slot is free", got)
	}
}

func TestAsyncInvocationExpires(t *testing.T) {
	reg := newRegistry(t, lambdafn.WithTimeScale(1e-6))
	var runs atomic.Int32
	h := func(context.Context, []byte) ([]byte, error) {
		runs.Add(1)
		return nil, nil
	}
	if err := reg.Register("off", h, lambdafn.ReservedConcurrency(0), lambdafn.MaxEventAge(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Invoke(context.Background(), &lambdafn.InvokeInput{FunctionName: "off", InvocationType: lambdafn.Event}); err != nil {
		t.Fatalf("Invoke: %v", err)
	}
	if err := reg.Drain(context.Background()); err != nil {
		t.Fatalf("Drain: %v", err)
	}
	if got := runs.Load(); got != 0 {
		t.Errorf("runs = %d, want 0: a function with no concurrency never runs and the event expires", got)
	}
}

func TestAsyncInvocationOfUnknownFunction(t *testing.T) {
	reg := newRegistry(t)
	_, err := reg.Invoke(context.Background(), &lambdafn.InvokeInput{FunctionName: "ghost", InvocationType: lambdafn.Event})
	var se *lambdafn.ServiceError
	if !errors.As(err, &se) || se.Code != lambdafn.CodeResourceNotFound || se.HTTPStatus() != 404 {
		t.Errorf("Event invocation of an unknown function: error = %v, want ResourceNotFoundException (404)", err)
	}
	if !errors.Is(err, lambdafn.ErrNotRegistered) {
		t.Errorf("error %v does not wrap ErrNotRegistered", err)
	}
}

func TestClose(t *testing.T) {
	reg, err := lambdafn.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	started, cancelled := make(chan struct{}), make(chan struct{})
	patient := func(ctx context.Context, _ []byte) ([]byte, error) {
		close(started)
		<-ctx.Done()
		close(cancelled)
		return nil, ctx.Err()
	}
	if err := reg.Register("patient", patient, lambdafn.Timeout(900*time.Second)); err != nil {
		t.Fatal(err)
	}
	running := make(chan error, 1)
	go func() {
		_, err := reg.Invoke(context.Background(), &lambdafn.InvokeInput{FunctionName: "patient"})
		running <- err
	}()
	<-started
	if err := reg.Close(context.Background()); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case <-cancelled:
	default:
		t.Error("Close returned before the running handler saw its context cancelled")
	}
	var se *lambdafn.ServiceError
	if err := <-running; !errors.As(err, &se) || se.Code != lambdafn.CodeService || !errors.Is(err, lambdafn.ErrClosed) {
		t.Errorf("the invocation Close interrupted: error = %v, want a ServiceException wrapping ErrClosed", err)
	}
	_, err = reg.Invoke(context.Background(), &lambdafn.InvokeInput{FunctionName: "patient"})
	if !errors.Is(err, lambdafn.ErrClosed) {
		t.Errorf("Invoke after Close: error = %v, want ErrClosed", err)
	}
	_, err = reg.Invoke(context.Background(), &lambdafn.InvokeInput{FunctionName: "patient", InvocationType: lambdafn.Event})
	if !errors.Is(err, lambdafn.ErrClosed) {
		t.Errorf("Event invocation after Close: error = %v, want ErrClosed", err)
	}
	if err := reg.Register("late", echo); !errors.Is(err, lambdafn.ErrClosed) {
		t.Errorf("Register after Close: error = %v, want ErrClosed", err)
	}
}
