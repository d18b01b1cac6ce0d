package work

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync"
)

// Result is the output of a successful invocation.
type Result struct {
	// WorkedMillis is how long the invocation worked, in milliseconds.
	WorkedMillis int64 `json:"workedMillis"`
}

// Handler runs the demo work. It is safe for concurrent use.
type Handler struct {
	config  Config
	sleeper Sleeper

	mu  sync.Mutex // guards rng, which is not safe for concurrent use
	rng *rand.Rand

	slotCheck func(ctx context.Context) error
}

// Option customises a Handler.
type Option func(*Handler)

// WithSleeper makes the handler wait with s instead of the wall clock.
func WithSleeper(s Sleeper) Option {
	return func(h *Handler) { h.sleeper = s }
}

// WithRand makes the handler draw its failures from r, e.g. a seeded generator for a
// reproducible run. The handler serialises its use of r.
func WithRand(r *rand.Rand) Option {
	return func(h *Handler) { h.rng = r }
}

// WithSlotCheck makes the handler call check before it works and fail with check's error,
// without working, when check fails: slot.Verify, so that a redriven execution whose slot was
// freed never works beside the slot's new holder.
func WithSlotCheck(check func(ctx context.Context) error) Option {
	return func(h *Handler) { h.slotCheck = check }
}

// New returns a handler for cfg, or an *InvalidConfig when cfg is invalid. Without options it
// waits on the wall clock and draws from a randomly seeded generator.
func New(cfg Config, opts ...Option) (*Handler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	h := &Handler{config: cfg, sleeper: WallClock{}}
	for _, opt := range opts {
		opt(h)
	}
	if h.rng == nil {
		h.rng = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	return h, nil
}

// NewFromEnv returns a handler configured by ConfigFromEnv(lookup).
func NewFromEnv(lookup LookupFunc, opts ...Option) (*Handler, error) {
	cfg, err := ConfigFromEnv(lookup)
	if err != nil {
		return nil, err
	}
	return New(cfg, opts...)
}

// Config returns the handler's configuration.
func (h *Handler) Config() Config { return h.config }

// Handle runs one invocation. input is the payload Step Functions passes (any JSON object; its
// content is not used). It works for the configured duration and then either returns the Result
// or, at the configured rate, a *WorkFailed. With WithSlotCheck, a failed check's error comes
// first, without working. A payload that is not a JSON object gives an
// *InvalidInput without working; a context that ends first gives a *WorkInterrupted.
// The errors are returned unwrapped, so that Lambda reports their type names.
func (h *Handler) Handle(ctx context.Context, input json.RawMessage) (Result, error) {
	if err := checkObject(input); err != nil {
		return Result{}, err
	}
	if h.slotCheck != nil {
		if err := h.slotCheck(ctx); err != nil {
			return Result{}, err
		}
	}
	fails := h.drawFailure()
	if err := h.sleeper.Sleep(ctx, h.config.Duration); err != nil {
		return Result{}, &WorkInterrupted{Err: err}
	}
	if fails {
		return Result{}, &WorkFailed{FailureRate: h.config.FailureRate, WorkedFor: h.config.Duration}
	}
	return Result{WorkedMillis: h.config.Duration.Milliseconds()}, nil
}

// drawFailure decides, before the work starts, whether this invocation fails. Drawing first
// keeps a seeded run's sequence of outcomes independent of how long each sleep takes.
func (h *Handler) drawFailure() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.rng.Float64() < h.config.FailureRate
}

// checkObject returns an *InvalidInput unless input is a JSON object.
func checkObject(input json.RawMessage) error {
	trimmed := bytes.TrimSpace(input)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return &InvalidInput{Err: ErrInputNotObject}
	}
	var object map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &object); err != nil {
		return &InvalidInput{Err: fmt.Errorf("%w: %w", ErrInputNotObject, err)}
	}
	return nil
}
