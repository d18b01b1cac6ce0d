package stack

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/turnstile-sfn/turnstile/emulator"
	"github.com/turnstile-sfn/turnstile/emulator/ddblocal"
	"github.com/turnstile-sfn/turnstile/emulator/dynamo"
	"github.com/turnstile-sfn/turnstile/emulator/eventbus"
	"github.com/turnstile-sfn/turnstile/emulator/lambdafn"
	"github.com/turnstile-sfn/turnstile/emulator/runtimeapi"
	"github.com/turnstile-sfn/turnstile/emulator/sfnapi"
	"github.com/turnstile-sfn/turnstile/emulator/template"
	"github.com/turnstile-sfn/turnstile/internal/faultproxy"
)

// Options configure a local stack.
type Options struct {
	// StackName picks the stack of a cdk.out holding several. Default: the only one.
	StackName string
	// TimeScale is real time per virtual second: 0.01 runs 15 s of work in 150 ms, for watching
	// a run. Default: 0, a clock that skips time (see emulator.ScaledClock): virtual time moves
	// only when nothing is in flight, so that a run's timings do not depend on the machine.
	// AWS calls then take the time of the latency model (emulator.Latency).
	TimeScale float64
	// Seed seeds every random choice (names, jitter, the handlers' sources). Default: 0.
	Seed uint64
	// Handlers build the Go handlers of the stack's functions, keyed by the import path of the
	// function's Go package (e.g. "github.com/turnstile-sfn/turnstile/lambdas/dowork") or its
	// logical ID. A function the stack uses without a handler but with a Go package is built from ModuleDir and run through the Lambda Runtime
	// API (see package runtimeapi); one with neither makes Start fail with ErrNoHandler.
	Handlers map[string]HandlerFactory
	// ModuleDir is the directory of the Go module (or workspace) the Go packages of functions
	// without a handler are built from. Default: the working directory.
	ModuleDir string
	// FunctionLog receives the output of the functions run through the Lambda Runtime API, each
	// line prefixed with the function's name. Default: os.Stderr.
	FunctionLog io.Writer
	// DynamoDBLocal configures the DynamoDB Local that holds the stack's tables (where it is
	// installed, the java command). Default: the zero ddblocal.Options.
	DynamoDBLocal ddblocal.Options
	// EventPolicy decides how the bus delivers each event (drop, duplicate, delay), for fault
	// tests. Default: eventbus.DeliverOnce.
	EventPolicy eventbus.DeliveryPolicy
	// CrashAfter makes executions die between two states, for fault tests (see
	// emulator.Options.CrashAfter). Default: nil.
	CrashAfter func(executionArn, state string) bool
	// MaxClosedExecutions is how many closed executions the emulator keeps (their histories
	// included) before it forgets the oldest (emulator.Options.MaxClosedExecutions). Default:
	// emulator.DefaultMaxClosedExecutions.
	MaxClosedExecutions int
	// LambdaConcurrency is the account's Lambda concurrency quota the stack's functions share
	// (lambdafn.WithAccountConcurrency). Default: lambdafn.DefaultAccountConcurrency.
	LambdaConcurrency int
	// DynamoDBFaults are injected into the DynamoDB requests of the stack's state machines and
	// functions (a faultproxy in front of DynamoDB Local), for fault tests. Default: none.
	DynamoDBFaults faultproxy.Config
	// Held makes Start return with the clock held still (see emulator.Clock.Hold) until
	// ReleaseHold: a driver that wants its executions to start at the stack's first virtual
	// instant, however long it takes to start them, sets it; otherwise a skipping clock runs
	// the stack's schedules ahead while nothing else happens. Default: false.
	Held bool
	// StepFunctionsPort is the loopback port the Step Functions API listens on, for clients
	// configured ahead (a long-running local stack); the DynamoDB port is DynamoDBLocal.Port.
	// Default: 0, a free port.
	StepFunctionsPort int
	// Logf receives diagnostics that have no caller to return to (a failed scheduled event).
	// Default: log.Printf.
	Logf func(format string, args ...any)
}

// Stack is a synthesized stack running locally. Its exported fields are the running parts, for
// tests and tools that need to reach behind the APIs.
type Stack struct {
	// Template is the resolved CloudFormation template.
	Template *template.Template
	// Emulator runs the state machines.
	Emulator *emulator.Emulator
	// Lambda holds the functions' handlers.
	Lambda *lambdafn.Registry
	// Bus is the local EventBridge.
	Bus *eventbus.Bus

	database *ddblocal.Server
	proxy    *faultproxy.Proxy
	api      *sfnapi.Server
	runtimes *runtimeFunctions
	ids      *eventbus.IDSource
	logf     func(format string, args ...any)

	ctx         context.Context
	cancel      context.CancelFunc
	background  sync.WaitGroup
	clock       *emulator.ScaledClock
	releaseHold func()

	deadMu      sync.Mutex
	deadLetters []eventbus.DeadLetter

	metrics metricLog
}

// Start loads the stack at path (a cdk.out directory or a template file) and runs it. Close the
// returned Stack to stop everything it started. On error nothing is left running.
func Start(ctx context.Context, path string, opts Options) (_ *Stack, err error) {
	if opts.TimeScale < 0 {
		return nil, fmt.Errorf("stack: TimeScale must be >= 0, got %g", opts.TimeScale)
	}
	tmpl, err := template.Load(path, template.Options{StackName: opts.StackName})
	if err != nil {
		return nil, err
	}
	s := &Stack{Template: tmpl, ids: eventbus.NewIDSource(opts.Seed), logf: opts.Logf}
	if s.logf == nil {
		s.logf = log.Printf
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	defer func() {
		if err != nil {
			err = errors.Join(err, s.Close())
		}
	}()

	if s.database, err = ddblocal.Start(ctx, opts.DynamoDBLocal); err != nil {
		return nil, err
	}
	clock := newClock(opts)
	s.clock = clock
	s.releaseHold = func() {}
	if opts.Held {
		s.releaseHold = clock.Hold()
	}
	latency := emulator.NewLatency(opts.Seed)
	dbFaults := opts.DynamoDBFaults
	dbFaults.Delay = func(r *http.Request) error {
		// The client's goroutine, blocked on this request, lends its busy token.
		// The request's context is the client's for the stack's own clients (they go through
		// the proxy in process), the connection's for others: sleep without the client's
		// virtual deadline either way, as the proxy's listener does.
		return clock.Sleep(emulator.WithoutVirtualDeadline(r.Context()), latency.Draw(emulator.LatencyDynamoDB, requestKey(r)))
	}
	// The stack's own parts reach DynamoDB Local through a proxy that counts their requests (and
	// injects DynamoDBFaults); observers use DynamoDBEndpoint directly.
	if s.proxy, err = faultproxy.Start(s.database.Endpoint(), dbFaults); err != nil {
		return nil, err
	}
	// Set up from this goroutine, which is outside the clock: straight to DynamoDB Local.
	setup, err := ddblocal.NewClient(ctx, s.database.Endpoint())
	if err != nil {
		return nil, err
	}
	if err := createTables(ctx, setup, tmpl.Tables); err != nil {
		return nil, err
	}
	// The stack's own clients reach the proxy in process (one loopback hop fewer per request);
	// functions run as processes of their own use its URL.
	inProcess := &http.Client{Transport: s.proxy.Transport()}
	ddb, err := ddblocal.NewClient(ctx, s.proxy.URL(), func(o *dynamodb.Options) {
		o.HTTPClient = inProcess
		o.Retryer = virtualTimeRetryer(clock)
		o.APIOptions = append(o.APIOptions, markCaller)
	})
	if err != nil {
		return nil, err
	}

	s.Emulator = emulator.New(emulator.Options{Clock: clock, Latency: latency, Seed: opts.Seed, Region: tmpl.Region, Account: tmpl.Account, CrashAfter: opts.CrashAfter, MaxClosedExecutions: opts.MaxClosedExecutions})
	s.Lambda, err = lambdafn.NewRegistry(
		lambdafn.WithRegion(tmpl.Region), lambdafn.WithAccount(tmpl.Account),
		lambdafn.WithClock(clock), lambdafn.WithLatency(latency),
		lambdafn.WithRandom(rand.New(rand.NewPCG(opts.Seed, hashString("lambda")))),
		lambdafn.WithAccountConcurrency(cmp.Or(opts.LambdaConcurrency, lambdafn.DefaultAccountConcurrency)),
	)
	if err != nil {
		return nil, err
	}
	// The API serves from the start, so that handlers can be given clients of it.
	if s.api, err = sfnapi.Serve(s.ctx, newBackend(s.Emulator, tmpl.StateMachines), net.JoinHostPort("127.0.0.1", strconv.Itoa(opts.StepFunctionsPort)), onClock(clock, latency)); err != nil {
		return nil, err
	}
	env := HandlerEnv{Clock: clock, StepFunctions: s.internalStepFunctionsClient(clock), DynamoDB: ddb}
	s.runtimes = &runtimeFunctions{moduleDir: opts.ModuleDir, log: opts.FunctionLog, region: tmpl.Region,
		endpoints: runtimeapi.Endpoints{DynamoDB: s.proxy.URL(), StepFunctions: s.APIURL()}}
	if err := bindFunctions(ctx, s.Lambda, tmpl, opts.Handlers, env, opts.Seed, s.runtimes, &s.metrics); err != nil {
		return nil, err
	}
	ddbIntegration, err := dynamo.New(s.proxy.URL(), dynamo.WithHTTPClient(inProcess))
	if err != nil {
		return nil, err
	}
	s.Emulator.RegisterIntegration(emulator.FromResourceInvoker(ddbIntegration))
	s.Emulator.RegisterIntegration(emulator.FromResourceInvoker(lambdafn.NewIntegration(s.Lambda)))
	for _, sm := range tmpl.StateMachines {
		arn, err := s.Emulator.CreateStateMachine(sm.Name, sm.Definition, emulator.StateMachineOptions{RoleArn: sm.RoleARN, Type: sm.Type})
		if err != nil {
			return nil, fmt.Errorf("stack: state machine %s (%s): %w", sm.Name, sm.LogicalID, err)
		}
		if arn != sm.ARN {
			return nil, fmt.Errorf("stack: state machine %s got ARN %s, the template expects %s", sm.LogicalID, arn, sm.ARN)
		}
	}

	s.Bus = eventbus.New(eventbus.Options{Clock: clock, Latency: func(key string) time.Duration { return latency.Draw(emulator.LatencyEventDelivery, key) }, Seed: opts.Seed, Policy: opts.EventPolicy, DeadLetters: s.recordDeadLetter})
	if err := s.wireRules(); err != nil {
		return nil, err
	}
	return s, nil
}

// DynamoDBStats counts the DynamoDB requests the stack's state machines and functions have sent
// so far (retries included) and the faults injected into them; reads through DynamoDBEndpoint
// are not counted.
func (s *Stack) DynamoDBStats() faultproxy.Stats { return s.proxy.Stats() }

// APIURL is the loopback URL of the Step Functions API.
func (s *Stack) APIURL() string { return s.api.URL() }

// DynamoDBEndpoint is the loopback URL of the DynamoDB API.
func (s *Stack) DynamoDBEndpoint() string { return s.database.Endpoint() }

// StepFunctionsClient returns an AWS SDK client of the stack's Step Functions API, for a caller
// outside the stack (a test, a load driver): each of its requests holds the clock still while the
// API serves it, and takes no modelled latency.
func (s *Stack) StepFunctionsClient() *sfn.Client { return s.stepFunctionsClient(nil) }

// ReleaseHold releases the hold on the clock that Options.Held took; later calls do nothing.
func (s *Stack) ReleaseHold() { s.releaseHold() }

// Clock returns the stack's clock. A driver that must act at one virtual instant (start many
// executions at once) holds it still with Hold meanwhile.
func (s *Stack) Clock() *emulator.ScaledClock { return s.clock }

// internalStepFunctionsClient is the Step Functions client of the stack's handlers: its calls
// take the latency of a Step Functions API call and retry on the clock, and the handler's
// goroutine lends its busy token to the request.
func (s *Stack) internalStepFunctionsClient(clock emulator.Clock) *sfn.Client {
	c := s.stepFunctionsClient(virtualTimeRetryer(clock))
	return sfn.New(c.Options(), func(o *sfn.Options) { o.HTTPClient = lendingClient{} })
}

// stepFunctionsClient is StepFunctionsClient with retryer, or the SDK's default when nil.
func (s *Stack) stepFunctionsClient(retryer aws.Retryer) *sfn.Client {
	return sfn.New(sfn.Options{
		Region:       s.Template.Region,
		BaseEndpoint: aws.String(s.APIURL()),
		Credentials:  credentials.NewStaticCredentialsProvider("local", "local", ""),
		Retryer:      retryer,
	})
}

// DynamoDBClient returns an AWS SDK client of the stack's DynamoDB API.
func (s *Stack) DynamoDBClient(ctx context.Context) (*dynamodb.Client, error) {
	return ddblocal.NewClient(ctx, s.DynamoDBEndpoint())
}

// DeadLetters returns the events the bus could not deliver, oldest first.
func (s *Stack) DeadLetters() []eventbus.DeadLetter {
	s.deadMu.Lock()
	defer s.deadMu.Unlock()
	return append([]eventbus.DeadLetter(nil), s.deadLetters...)
}

func (s *Stack) recordDeadLetter(d eventbus.DeadLetter) {
	s.deadMu.Lock()
	defer s.deadMu.Unlock()
	s.deadLetters = append(s.deadLetters, d)
}

// Close stops the API, the schedules, the executions, the bus, the handlers (and the functions'
// processes) and DynamoDB Local, in that order, and returns what went wrong on the way.
func (s *Stack) Close() error {
	s.cancel()
	var errs []error
	if s.api != nil {
		errs = append(errs, s.api.Close())
	}
	s.background.Wait()
	if s.Emulator != nil {
		if err := s.Emulator.Close(); !errors.Is(err, emulator.ErrClosed) {
			errs = append(errs, err)
		}
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if s.Bus != nil {
		errs = append(errs, s.Bus.Close(shutdown))
	}
	if s.Lambda != nil {
		errs = append(errs, s.Lambda.Close(shutdown))
	}
	if s.runtimes != nil {
		errs = append(errs, s.runtimes.close())
	}
	if s.proxy != nil {
		errs = append(errs, s.proxy.Close())
	}
	if s.database != nil {
		errs = append(errs, s.database.Close())
	}
	return errors.Join(errs...)
}
