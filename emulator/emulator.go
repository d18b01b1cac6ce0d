package emulator

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"
)

// Defaults of Options.
const (
	DefaultRegion              = "us-east-1"
	DefaultAccount             = "123456789012"
	DefaultMaxHistoryEvents    = 25000
	DefaultMaxClosedExecutions = 10000
)

// Options configures an Emulator. The zero value runs in real time with region us-east-1.
type Options struct {
	// Clock is the time source of every execution. Default: NewScaledClock(time.Now(), 1), real
	// time. Use a skipping clock (NewScaledClock(start, 0) or NewSkippingClock) for tests and
	// benchmarks that must not sleep.
	Clock *ScaledClock
	// Seed seeds all randomness (generated names, task tokens, jitter, States.UUID,
	// States.MathRandom), so that a run can be replayed. Default: 0, itself a fixed seed.
	Seed uint64
	// Region is the region in ARNs and TaskScheduled events. Default: DefaultRegion.
	Region string
	// Account is the account ID in ARNs. Default: DefaultAccount.
	Account string
	// MaxHistoryEvents caps the events of one execution's history; as on AWS, an execution
	// whose next event would be the last allowed one and is not ExecutionSucceeded fails.
	// Default: DefaultMaxHistoryEvents (25,000, AWS's hard quota).
	MaxHistoryEvents int
	// MaxClosedExecutions bounds memory: beyond it, the oldest closed executions are forgotten.
	// Default: DefaultMaxClosedExecutions.
	MaxClosedExecutions int
	// Latency, when set, makes every state transition last a draw of LatencyStateTransition.
	// Default: nil, transitions take no time.
	Latency *Latency
	// CrashAfter, a fault control for tests, is asked after every state of a flow completes
	// (its exited event recorded), before the next state is entered; when it returns true the
	// execution dies there: it ends ABORTED with ErrorCrash, publishes its status change like
	// any other, and a redrive resumes it at the next state. It is called from the executions'
	// goroutines. Default: nil, no crash.
	CrashAfter func(executionArn, state string) bool
}

// ErrorCrash is the error of an execution that CrashAfter made die between two states.
const ErrorCrash = "Emulator.Crash"

// Emulator runs Standard state machines locally. It is safe for concurrent use.
type Emulator struct {
	opts      Options
	clock     *ScaledClock
	baseCtx   context.Context
	cancelAll context.CancelCauseFunc
	status    *statusDispatcher
	wg        sync.WaitGroup // one per running execution goroutine

	mu           sync.Mutex
	closed       bool
	rng          *rand.Rand
	machines     map[string]*stateMachine // by ARN
	executions   map[string]*execution    // by ARN
	closedOrder  []string                 // ARNs of closed executions, oldest first
	integrations []Integration
	tokens       map[string]*callbackWait // active task tokens
}

// New returns a running Emulator with the built-in Step Functions integration registered.
// Call Close to stop it.
func New(opts Options) *Emulator {
	if opts.Clock == nil {
		opts.Clock = NewScaledClock(time.Now(), 1)
	}
	if opts.Region == "" {
		opts.Region = DefaultRegion
	}
	if opts.Account == "" {
		opts.Account = DefaultAccount
	}
	if opts.MaxHistoryEvents <= 0 {
		opts.MaxHistoryEvents = DefaultMaxHistoryEvents
	}
	if opts.MaxClosedExecutions <= 0 {
		opts.MaxClosedExecutions = DefaultMaxClosedExecutions
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	em := &Emulator{
		opts:       opts,
		clock:      opts.Clock,
		baseCtx:    ctx,
		cancelAll:  cancel,
		status:     newStatusDispatcher(opts.Clock.Hold),
		rng:        rand.New(rand.NewPCG(opts.Seed, 0x7475726e7374696c)),
		machines:   map[string]*stateMachine{},
		executions: map[string]*execution{},
		tokens:     map[string]*callbackWait{},
	}
	em.integrations = []Integration{&stepFunctionsIntegration{em: em}}
	return em
}

// Clock returns the emulator's clock, for registered handlers that must sleep in virtual time.
func (em *Emulator) Clock() Clock { return em.clock }

// RegisterIntegration adds an integration for Task states. Integrations registered later take
// precedence over earlier ones for the resources they both support. Register integrations
// before creating the state machines that use them.
func (em *Emulator) RegisterIntegration(i Integration) {
	em.mu.Lock()
	defer em.mu.Unlock()
	em.integrations = append([]Integration{i}, em.integrations...)
}

// OnStatusChange registers a listener called, in order and on a separate goroutine, each time an
// execution starts, is redriven or ends. A listener must not block for long.
func (em *Emulator) OnStatusChange(listener func(StatusChange)) {
	em.status.subscribe(listener)
}

// Close aborts the running executions (without status-change notifications), waits for every
// goroutine of the emulator to end, and stops it. Later calls return ErrClosed.
func (em *Emulator) Close() error {
	em.mu.Lock()
	if em.closed {
		em.mu.Unlock()
		return ErrClosed
	}
	em.closed = true
	var running []*execution
	for _, ex := range em.executions {
		running = append(running, ex)
	}
	em.mu.Unlock()
	for _, ex := range running {
		ex.finish(terminal{status: StatusAborted, errName: "Emulator.Closed", cause: errClosed.Error(), reason: errClosed, silent: true})
	}
	em.cancelAll(errClosed)
	em.wg.Wait()
	em.status.close()
	return nil
}

// newUUID returns a version-4 UUID drawn from the emulator's seeded source.
func (em *Emulator) newUUID() string {
	em.mu.Lock()
	defer em.mu.Unlock()
	return uuidFrom(em.rng)
}
