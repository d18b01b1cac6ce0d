package lambdafn

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/turnstile-sfn/turnstile/emulator"
)

// Defaults of a Registry.
const (
	// DefaultRegion is the region a Registry places functions named without an ARN in.
	DefaultRegion = "us-east-1"
	// DefaultAccount is the account a Registry places functions named without an ARN in.
	DefaultAccount = "000000000000"
	// DefaultMinTimeout is the shortest wall-clock timeout a function gets on a registry's own
	// time-scaled clock (WithTimeScale), so that a handler's unscaled work (CPU, network) does
	// not time out when the scale is small.
	DefaultMinTimeout = 100 * time.Millisecond
)

// Registry is the emulated Lambda service: Go handlers registered per function, invoked the way
// Lambda invokes them, with per-function timeouts, reserved concurrency and asynchronous
// invocation. It is safe for concurrent use.
type Registry struct {
	region, account string
	timeScale       float64
	minTimeout      time.Duration
	now             func() time.Time
	nowSet          bool              // WithNow was given (nil is then invalid)
	clock           emulator.Clock    // every wait and timeout of the registry
	minVirtual      time.Duration     // the minimum timeout, in virtual time
	latency         *emulator.Latency // of each invoke; nil: none
	ids             *idSource
	base            context.Context // parent of every handler's context; done once closed
	stop            context.CancelFunc

	// accountConcurrency is the Region's concurrency quota, shared by the functions without a
	// reserved concurrency (less what the others reserve).
	accountConcurrency int

	mu        sync.Mutex
	functions map[string]*function // by functionKey
	closed    bool
	// unreservedInFlight counts the executions of functions without a reserved concurrency.
	unreservedInFlight int

	work    tracker // every goroutine the registry started
	pending tracker // asynchronous invocations not yet finished
}

// function is a registered handler and its configuration. Its mutable fields are guarded by the
// Registry's mutex.
type function struct {
	ref      FunctionRef // fully resolved, unqualified
	handler  Handler
	config   functionConfig
	inFlight int
}

// RegistryOption configures a Registry.
type RegistryOption func(*Registry)

// WithRegion sets the region of functions referenced by name or partial ARN.
// Default: DefaultRegion.
func WithRegion(region string) RegistryOption {
	return func(r *Registry) { r.region = region }
}

// WithAccount sets the account of functions referenced by name. Default: DefaultAccount.
func WithAccount(account string) RegistryOption {
	return func(r *Registry) { r.account = account }
}

// WithTimeScale runs the registry on a clock of its own, an emulator.ScaledClock of that scale
// (> 0): every duration it waits for (function timeouts, the delays between asynchronous
// retries, the age limit of asynchronous events) takes scale times as long in real time, so
// that 0.01 turns a 3 s timeout into 30 ms. Timeouts never go below the minimum timeout (see
// WithMinTimeout). Ignored with WithClock. Default: 1.
func WithTimeScale(scale float64) RegistryOption {
	return func(r *Registry) { r.timeScale = scale }
}

// WithClock puts the registry on the emulator's clock: function timeouts are virtual deadlines,
// the delays between asynchronous retries and the age of asynchronous events are virtual, the
// clock stamps responses (unless WithNow comes after it), and each invocation holds a busy token
// (see emulator.Clock). Default: a clock of the registry's own (see WithTimeScale).
func WithClock(c emulator.Clock) RegistryOption {
	return func(r *Registry) { r.clock, r.now, r.nowSet = c, nil, false }
}

// WithLatency makes every invoke last a draw of emulator.LatencyLambdaInvoke on the clock
// before its handler runs. Default: none.
func WithLatency(l *emulator.Latency) RegistryOption {
	return func(r *Registry) { r.latency = l }
}

// WithMinTimeout sets the shortest wall-clock timeout a function gets on the registry's own
// time-scaled clock. Ignored with WithClock. Default: DefaultMinTimeout.
func WithMinTimeout(d time.Duration) RegistryOption {
	return func(r *Registry) { r.minTimeout = d }
}

// WithNow sets the clock that timestamps responses (the Date header, the timeout message).
// Default: the registry's clock.
func WithNow(now func() time.Time) RegistryOption {
	return func(r *Registry) { r.now, r.nowSet = now, true }
}

// WithRandom sets the random source of request and trace ids, so that a seeded source replays
// the same ids. Default: a randomly seeded source.
func WithRandom(rng *rand.Rand) RegistryOption {
	return func(r *Registry) { r.ids.rng = rng }
}

// DefaultAccountConcurrency is Lambda's default concurrency quota of an account in a Region
// ("Lambda quotas": 1,000 concurrent executions).
const DefaultAccountConcurrency = 1000

// WithAccountConcurrency sets the account's concurrency quota in the Region: the functions
// without a reserved concurrency share it, less what the others reserve, and an invoke beyond
// it is throttled (TooManyRequestsException), as on AWS. Default: DefaultAccountConcurrency.
func WithAccountConcurrency(n int) RegistryOption {
	return func(r *Registry) { r.accountConcurrency = n }
}

// WithBaseContext sets the parent of every handler's context: its values reach the handlers, and
// its cancellation cancels them. Default: context.Background().
func WithBaseContext(ctx context.Context) RegistryOption {
	return func(r *Registry) { r.base = ctx }
}

// NewRegistry returns an empty Registry.
func NewRegistry(opts ...RegistryOption) (*Registry, error) {
	r := &Registry{
		region:     DefaultRegion,
		account:    DefaultAccount,
		timeScale:  1,
		minTimeout: DefaultMinTimeout,
		ids:        &idSource{rng: rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))},
		base:       context.Background(),
		functions:  map[string]*function{},

		accountConcurrency: DefaultAccountConcurrency,
	}
	for _, opt := range opts {
		opt(r)
	}
	switch {
	case r.accountConcurrency < 1:
		return nil, fmt.Errorf("%w: account concurrency must be >= 1, got %d", ErrInvalidRegistry, r.accountConcurrency)
	case !regionPattern.MatchString(r.region):
		return nil, fmt.Errorf("%w: region %q is not a region name", ErrInvalidRegistry, r.region)
	case !accountPattern.MatchString(r.account):
		return nil, fmt.Errorf("%w: account %q must be 12 digits", ErrInvalidRegistry, r.account)
	case r.clock == nil && r.timeScale <= 0:
		return nil, fmt.Errorf("%w: time scale must be > 0 (for a clock that skips time, use WithClock), got %g", ErrInvalidRegistry, r.timeScale)
	case r.minTimeout < 0:
		return nil, fmt.Errorf("%w: minimum timeout must be >= 0, got %s", ErrInvalidRegistry, r.minTimeout)
	case (r.nowSet && r.now == nil) || r.ids.rng == nil || r.base == nil:
		return nil, fmt.Errorf("%w: nil clock, random source or base context", ErrInvalidRegistry)
	}
	if r.clock == nil {
		r.clock = emulator.NewScaledClock(time.Time{}, r.timeScale)
		r.minVirtual = time.Duration(float64(r.minTimeout) / r.timeScale)
	}
	if r.now == nil {
		r.now = r.clock.Now
	}
	r.base, r.stop = context.WithCancel(r.base)
	return r, nil
}

// Register registers h as the handler of the function name, a function name, partial ARN or ARN
// (see ParseFunctionName) without a qualifier: every version and alias of the function invokes
// h. A name or partial ARN is placed in the registry's region and account.
func (r *Registry) Register(name string, h Handler, opts ...FunctionOption) error {
	ref, err := r.resolve(name)
	if err != nil {
		return err
	}
	if ref.Qualifier != "" {
		return fmt.Errorf("%w: %q: register the function without a qualifier; its versions and aliases share the handler", ErrInvalidFunctionName, name)
	}
	if h == nil {
		return fmt.Errorf("%w: nil handler for %q", ErrInvalidOption, name)
	}
	cfg := defaultConfig()
	for _, opt := range opts {
		opt(&cfg)
	}
	if err := cfg.validate(); err != nil {
		return fmt.Errorf("function %q: %w", name, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return ErrClosed
	}
	key := functionKey(ref)
	if _, ok := r.functions[key]; ok {
		return fmt.Errorf("%w: %s", ErrAlreadyRegistered, ref.ARN())
	}
	r.functions[key] = &function{ref: ref, handler: h, config: cfg}
	return nil
}

// Configure changes the configuration of a registered function, for example to apply the
// Timeout and ReservedConcurrentExecutions of a template. Options not given keep their values.
func (r *Registry) Configure(name string, opts ...FunctionOption) error {
	ref, err := r.resolve(name)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	fn, ok := r.functions[functionKey(ref)]
	if !ok {
		return fmt.Errorf("%w: %s", ErrNotRegistered, ref.Unqualified().ARN())
	}
	cfg := fn.config
	for _, opt := range opts {
		opt(&cfg)
	}
	if err := cfg.validate(); err != nil {
		return fmt.Errorf("function %q: %w", name, err)
	}
	fn.config = cfg
	return nil
}

// Resolve returns the full, unqualified reference of the registered function name refers to,
// or an error wrapping ErrNotRegistered (or ErrInvalidFunctionName).
func (r *Registry) Resolve(name string) (FunctionRef, error) {
	ref, err := r.resolve(name)
	if err != nil {
		return FunctionRef{}, err
	}
	if _, ok := r.lookup(ref); !ok {
		return FunctionRef{}, fmt.Errorf("%w: %s", ErrNotRegistered, ref.Unqualified().ARN())
	}
	return ref.Unqualified(), nil
}

// Drain waits until every asynchronous invocation accepted so far has finished, retries
// included, or ctx is done.
func (r *Registry) Drain(ctx context.Context) error {
	return r.pending.wait(ctx)
}

// Close stops the registry: it refuses new invocations, cancels the context of running handlers
// and waits for them to return, or for ctx to be done. Queued asynchronous invocations that have
// not started are dropped.
func (r *Registry) Close(ctx context.Context) error {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.stop()
	return r.work.wait(ctx)
}

// resolve parses name and fills in the registry's region, account and partition.
func (r *Registry) resolve(name string) (FunctionRef, error) {
	ref, err := ParseFunctionName(name)
	if err != nil {
		return FunctionRef{}, err
	}
	if ref.Region == "" {
		ref.Region = r.region
	}
	if ref.Account == "" {
		ref.Account = r.account
	}
	if ref.Partition == "" {
		ref.Partition = partitionOf(ref.Region)
	}
	return ref, nil
}

// lookup finds the registered function ref refers to.
func (r *Registry) lookup(ref FunctionRef) (*function, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fn, ok := r.functions[functionKey(ref)]
	return fn, ok
}

// functionKey identifies a function: its region, account and name (the partition follows from
// the region).
func functionKey(ref FunctionRef) string {
	return ref.Region + "/" + ref.Account + "/" + ref.Name
}

// partitionOf returns the AWS partition a region belongs to.
func partitionOf(region string) string {
	switch {
	case strings.HasPrefix(region, "cn-"):
		return "aws-cn"
	case strings.HasPrefix(region, "us-gov-"):
		return "aws-us-gov"
	default:
		return "aws"
	}
}
