package runtimeapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/turnstile-sfn/turnstile/emulator/lambdafn"
	"github.com/turnstile-sfn/turnstile/golambda/gobuild"
)

// DefaultMaxConcurrency is how many processes a Function runs at most when Config.MaxConcurrency
// is 0.
const DefaultMaxConcurrency = 32

// ErrClosed is returned by Invoke once the Function is closed.
var ErrClosed = errors.New("runtimeapi: function closed")

// Endpoints are the URLs of local AWS APIs a function's AWS SDK clients are sent to, through the
// AWS_ENDPOINT_URL_<SERVICE> variables that aws-sdk-go-v2's config.LoadDefaultConfig reads. An
// empty URL sets no variable.
type Endpoints struct {
	// DynamoDB is the DynamoDB API (AWS_ENDPOINT_URL_DYNAMODB).
	DynamoDB string
	// StepFunctions is the Step Functions API (AWS_ENDPOINT_URL_SFN).
	StepFunctions string
	// Lambda is the Lambda API (AWS_ENDPOINT_URL_LAMBDA).
	Lambda string
}

// Config describes one function to run.
type Config struct {
	// Binary is the function's bootstrap executable, e.g. from Build. Required.
	Binary string
	// FunctionName is the function's name (AWS_LAMBDA_FUNCTION_NAME, the log prefix). Required.
	FunctionName string
	// Handler is the handler setting (_HANDLER). Default: "bootstrap".
	Handler string
	// Region is the function's region (AWS_REGION, AWS_DEFAULT_REGION). Default: us-east-1.
	Region string
	// AccessKeyID is the dummy access key ID the function's process gets (AWS_ACCESS_KEY_ID):
	// a DynamoDB Local that keeps a database per access key shows the function the database of
	// this key. Default: the constant AccessKeyID.
	AccessKeyID string
	// MemoryMB is the function's memory (AWS_LAMBDA_FUNCTION_MEMORY_SIZE). Default: 128.
	MemoryMB int
	// Environment is the function's own environment variables, from its configuration. The
	// variables Lambda defines take precedence, as Lambda does not let a function set them.
	Environment map[string]string
	// Endpoints are the local APIs the function's AWS SDK clients talk to.
	Endpoints Endpoints
	// MaxConcurrency is how many processes (execution environments) run at most; an invocation
	// waits for a free one beyond that. Default: DefaultMaxConcurrency.
	MaxConcurrency int
	// Log receives the processes' standard output and error, each line prefixed with the
	// function's name in brackets. Default: os.Stderr.
	Log io.Writer
}

// Function runs a Go Lambda function's bootstrap binary the way Lambda does: a pool of
// processes, each with its own Runtime API endpoint, started on demand, reused between
// invocations and given one invocation at a time. It is safe for concurrent use.
type Function struct {
	cfg   Config
	log   *syncWriter
	slots chan struct{} // one token per running process, up to MaxConcurrency
	freed chan struct{} // signalled when an instance becomes idle

	mu      sync.Mutex
	idle    []*instance // warm, waiting for an invocation; the most recently used last
	all     map[*instance]struct{}
	closed  bool
	started int

	watchers sync.WaitGroup
}

// Stats counts a Function's processes.
type Stats struct {
	// Started is how many processes were started (cold starts).
	Started int
	// Running is how many processes are running now.
	Running int
	// Idle is how many of them wait for an invocation.
	Idle int
}

// New returns a Function for cfg. It starts no process: the first invocation does.
func New(cfg Config) (*Function, error) {
	if cfg.Binary == "" || cfg.FunctionName == "" {
		return nil, errors.New("runtimeapi: Config.Binary and Config.FunctionName are required")
	}
	if _, err := os.Stat(cfg.Binary); err != nil {
		return nil, fmt.Errorf("runtimeapi: the function's binary: %w (build it with Build)", err)
	}
	if cfg.MaxConcurrency < 0 {
		return nil, fmt.Errorf("runtimeapi: MaxConcurrency must be >= 0, got %d", cfg.MaxConcurrency)
	}
	if cfg.MaxConcurrency == 0 {
		cfg.MaxConcurrency = DefaultMaxConcurrency
	}
	if cfg.Handler == "" {
		cfg.Handler = gobuild.BinaryName
	}
	if cfg.Region == "" {
		cfg.Region = lambdafn.DefaultRegion
	}
	if cfg.AccessKeyID == "" {
		cfg.AccessKeyID = AccessKeyID
	}
	if cfg.MemoryMB == 0 {
		cfg.MemoryMB = 128
	}
	if cfg.Log == nil {
		cfg.Log = os.Stderr
	}
	return &Function{
		cfg:   cfg,
		log:   &syncWriter{w: cfg.Log},
		slots: make(chan struct{}, cfg.MaxConcurrency),
		freed: make(chan struct{}, 1),
		all:   map[*instance]struct{}{},
	}, nil
}

// Handler returns f.Invoke as a lambdafn.Handler, to register with a lambdafn.Registry.
func (f *Function) Handler() lambdafn.Handler { return f.Invoke }

// Invoke runs one invocation in a warm process, or in a new one when none is free. The request
// id, the invoked function ARN and the client context come from the lambdacontext.LambdaContext
// in ctx (lambdafn puts one there), the deadline from ctx's deadline. A function error is
// returned as a lambdafn.FunctionError; a process that exits during the invocation gives a
// Runtime.ExitError function error, as Lambda reports it, and is replaced by the next
// invocation. When ctx ends first the process is killed (Lambda resets the execution
// environment after a timeout) and ctx.Err() is returned.
func (f *Function) Invoke(ctx context.Context, payload []byte) ([]byte, error) {
	inv := f.newInvocation(ctx, payload)
	for {
		in, err := f.acquire(ctx)
		if err != nil {
			return nil, err
		}
		out, retry, err := in.invoke(ctx, inv)
		if !retry {
			return out, err
		}
		// The warm process exited before it took the invocation (after a fatal error of the
		// previous one): Lambda would have started a new one for it.
	}
}

// newInvocation gathers what the Runtime API tells the process about an invocation.
func (f *Function) newInvocation(ctx context.Context, payload []byte) *invocation {
	inv := &invocation{payload: payload, done: make(chan outcome, 1), traceID: newTraceID()}
	if lc, ok := lambdacontext.FromContext(ctx); ok {
		inv.requestID, inv.functionARN = lc.AwsRequestID, lc.InvokedFunctionArn
		inv.clientContext, inv.identity = lc.ClientContext, lc.Identity
	}
	if inv.requestID == "" {
		inv.requestID = newRequestID()
	}
	if inv.functionARN == "" {
		inv.functionARN = fmt.Sprintf("arn:aws:lambda:%s:%s:function:%s", f.cfg.Region, lambdafn.DefaultAccount, f.cfg.FunctionName)
	}
	if d, ok := ctx.Deadline(); ok {
		inv.deadline = d
	} else {
		inv.deadline = time.Now().Add(maxTimeout)
	}
	return inv
}

// maxTimeout is Lambda's longest function timeout, the deadline of an invocation without one.
const maxTimeout = 15 * time.Minute

// acquire returns an idle instance, or starts one when fewer than MaxConcurrency run, or waits.
func (f *Function) acquire(ctx context.Context) (*instance, error) {
	for {
		if in, err := f.takeIdle(); in != nil || err != nil {
			return in, err
		}
		select {
		case f.slots <- struct{}{}:
			return f.start() // frees the slot when it fails
		case <-f.freed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// takeIdle pops the most recently used idle instance, if any.
func (f *Function) takeIdle() (*instance, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, ErrClosed
	}
	n := len(f.idle)
	if n == 0 {
		return nil, nil
	}
	in := f.idle[n-1]
	f.idle = f.idle[:n-1]
	if n > 1 {
		f.signalFreed() // another waiter may take the next one
	}
	return in, nil
}

// release puts an instance that finished an invocation back in the pool.
func (f *Function) release(in *instance) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, alive := f.all[in]; !alive || f.closed {
		return
	}
	f.idle = append(f.idle, in)
	f.signalFreed()
}

// signalFreed wakes one waiter of acquire; f.mu is held.
func (f *Function) signalFreed() {
	select {
	case f.freed <- struct{}{}:
	default:
	}
}

// remove forgets an instance whose process exited and frees its slot.
func (f *Function) remove(in *instance) {
	f.mu.Lock()
	delete(f.all, in)
	for i, x := range f.idle {
		if x == in {
			f.idle = append(f.idle[:i], f.idle[i+1:]...)
			break
		}
	}
	f.mu.Unlock()
	<-f.slots
}

// isClosed reports whether Close was called.
func (f *Function) isClosed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closed
}

// Stats returns the current process counts.
func (f *Function) Stats() Stats {
	f.mu.Lock()
	defer f.mu.Unlock()
	return Stats{Started: f.started, Running: len(f.all), Idle: len(f.idle)}
}

// Close kills every process (with its process group), closes their Runtime API listeners and
// waits until all are gone. Invocations under way fail with ErrClosed.
func (f *Function) Close() error {
	f.mu.Lock()
	f.closed = true
	all := make([]*instance, 0, len(f.all))
	for in := range f.all {
		all = append(all, in)
	}
	f.idle = nil
	f.mu.Unlock()
	for _, in := range all {
		in.kill()
	}
	f.watchers.Wait()
	return nil
}
