package work_test

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/lambdas/dowork/work"
)

// recordingSleeper returns at once and records the durations it was asked to wait.
type recordingSleeper struct {
	mu    sync.Mutex
	slept []time.Duration
}

func (s *recordingSleeper) Sleep(_ context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.slept = append(s.slept, d)
	return nil
}

func (s *recordingSleeper) calls() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.slept...)
}

func seeded(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed)) }

func TestHandle(t *testing.T) {
	interrupted := work.SleeperFunc(func(context.Context, time.Duration) error { return context.DeadlineExceeded })
	tests := []struct {
		name      string
		cfg       work.Config
		sleeper   work.Sleeper // nil: a recordingSleeper
		input     string
		want      work.Result
		wantErr   any // nil, or a pointer to the wanted error type for errors.As
		wantSleep bool
	}{
		{name: "success", cfg: work.Config{Duration: 15 * time.Second}, input: `{"lock":"MySemaphore"}`,
			want: work.Result{WorkedMillis: 15000}, wantSleep: true},
		{name: "empty object", cfg: work.Config{Duration: time.Millisecond}, input: ` {} `,
			want: work.Result{WorkedMillis: 1}, wantSleep: true},
		{name: "always fails after working", cfg: work.Config{Duration: time.Second, FailureRate: 1}, input: `{}`,
			wantErr: new(*work.WorkFailed), wantSleep: true},
		{name: "array input", cfg: work.DefaultConfig(), input: `[1,2]`, wantErr: new(*work.InvalidInput)},
		{name: "null input", cfg: work.DefaultConfig(), input: `null`, wantErr: new(*work.InvalidInput)},
		{name: "string input", cfg: work.DefaultConfig(), input: `"go"`, wantErr: new(*work.InvalidInput)},
		{name: "truncated object", cfg: work.DefaultConfig(), input: `{"a":`, wantErr: new(*work.InvalidInput)},
		{name: "empty input", cfg: work.DefaultConfig(), input: ``, wantErr: new(*work.InvalidInput)},
		{name: "deadline first", cfg: work.DefaultConfig(), sleeper: interrupted, input: `{}`,
			wantErr: new(*work.WorkInterrupted)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recorder := &recordingSleeper{}
			sleeper := tt.sleeper
			if sleeper == nil {
				sleeper = recorder
			}
			h, err := work.New(tt.cfg, work.WithSleeper(sleeper), work.WithRand(seeded(1)))
			if err != nil {
				t.Fatalf("New() error = %v", err)
			}
			got, err := h.Handle(context.Background(), json.RawMessage(tt.input))
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("Handle() error = %v, want nil", err)
				}
				if got != tt.want {
					t.Errorf("Handle() = %+v, want %+v", got, tt.want)
				}
			} else if !errors.As(err, tt.wantErr) {
				t.Fatalf("Handle() error = %v (%T), want %T", err, err, tt.wantErr)
			}
			slept := recorder.calls()
			if tt.wantSleep {
				if len(slept) != 1 || slept[0] != tt.cfg.Duration {
					t.Errorf("slept %v, want [%v]", slept, tt.cfg.Duration)
				}
			} else if len(slept) != 0 {
				t.Errorf("slept %v, want no work", slept)
			}
		})
	}
}

func TestHandleErrorCauses(t *testing.T) {
	h, err := work.New(work.DefaultConfig(), work.WithSleeper(work.SleeperFunc(
		func(context.Context, time.Duration) error { return context.Canceled })))
	if err != nil {
		t.Fatalf("New() error = %v", err)
	}
	_, err = h.Handle(context.Background(), json.RawMessage(`{}`))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Handle() error = %v, want it to wrap context.Canceled", err)
	}
	_, err = h.Handle(context.Background(), json.RawMessage(`[]`))
	if !errors.Is(err, work.ErrInputNotObject) {
		t.Errorf("Handle() error = %v, want it to wrap ErrInputNotObject", err)
	}
}

func TestNewRejectsInvalidConfig(t *testing.T) {
	tests := []struct {
		name  string
		cfg   work.Config
		cause error
	}{
		{name: "negative duration", cfg: work.Config{Duration: -time.Second}, cause: work.ErrNegativeDuration},
		{name: "rate above one", cfg: work.Config{FailureRate: 1.5}, cause: work.ErrFailureRateOutOfRange},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := work.New(tt.cfg)
			if h != nil || !errors.Is(err, tt.cause) {
				t.Errorf("New() = %v, %v; want nil, an error wrapping %v", h, err, tt.cause)
			}
		})
	}
}

// outcomes runs n invocations and returns true for each one that failed.
func outcomes(t *testing.T, h *work.Handler, n int) []bool {
	t.Helper()
	failed := make([]bool, n)
	for i := range failed {
		_, err := h.Handle(context.Background(), json.RawMessage(`{}`))
		var workFailed *work.WorkFailed
		switch {
		case errors.As(err, &workFailed):
			failed[i] = true
		case err != nil:
			t.Fatalf("invocation %d: unexpected error %v", i, err)
		}
	}
	return failed
}

func TestSeededRunsReplay(t *testing.T) {
	const n = 1000
	newHandler := func(seed uint64) *work.Handler {
		h, err := work.New(work.DefaultConfig(), work.WithSleeper(&recordingSleeper{}), work.WithRand(seeded(seed)))
		if err != nil {
			t.Fatalf("New() error = %v", err)
		}
		return h
	}
	first := outcomes(t, newHandler(42), n)
	second := outcomes(t, newHandler(42), n)
	failures := 0
	for i := range first {
		if first[i] != second[i] {
			t.Fatalf("invocation %d: outcome %v, then %v with the same seed", i, first[i], second[i])
		}
		if first[i] {
			failures++
		}
	}
	// Seeded, so this count is fixed; the bounds only say it is near 10 %.
	if failures < n/20 || failures > n*3/20 {
		t.Errorf("%d failures in %d invocations at rate 0.1, want between %d and %d", failures, n, n/20, n*3/20)
	}
}

func TestHandleConcurrently(t *testing.T) {
	h, err := work.New(work.Config{Duration: time.Second, FailureRate: 0.5},
		work.WithSleeper(&recordingSleeper{}), work.WithRand(seeded(7)))
	if err != nil {
		t.Fatalf("New() error = %v", err)
	}
	const n = 64
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			_, errs[i] = h.Handle(context.Background(), json.RawMessage(`{}`))
		})
	}
	wg.Wait()
	for i, err := range errs {
		var failed *work.WorkFailed
		if err != nil && !errors.As(err, &failed) {
			t.Errorf("invocation %d: error %v, want nil or *WorkFailed", i, err)
		}
	}
}

func TestWallClock(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		d    time.Duration
		want error
	}{
		{name: "no wait", ctx: context.Background(), d: 0, want: nil},
		{name: "context ended", ctx: cancelled, d: time.Hour, want: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (work.WallClock{}).Sleep(tt.ctx, tt.d); !errors.Is(got, tt.want) {
				t.Errorf("Sleep() = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestSlotCheckComesFirst: a failing slot check fails the invocation with its error and no
// work; a passing one lets the work run.
func TestSlotCheckComesFirst(t *testing.T) {
	refused := errors.New("not a holder")
	for _, tt := range []struct {
		name  string
		check error
		works int
	}{{"refused", refused, 0}, {"admitted", nil, 1}} {
		t.Run(tt.name, func(t *testing.T) {
			recorder := &recordingSleeper{}
			cfg := work.DefaultConfig()
			cfg.FailureRate = 0
			h, err := work.New(cfg, work.WithSleeper(recorder), work.WithSlotCheck(func(context.Context) error { return tt.check }))
			if err != nil {
				t.Fatal(err)
			}
			_, err = h.Handle(context.Background(), json.RawMessage(`{}`))
			if !errors.Is(err, tt.check) || (tt.check == nil && err != nil) {
				t.Errorf("Handle = %v, want %v", err, tt.check)
			}
			if got := len(recorder.calls()); got != tt.works {
				t.Errorf("worked %d times, want %d", got, tt.works)
			}
		})
	}
}
