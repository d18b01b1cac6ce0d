package stack

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"os"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/turnstile-sfn/turnstile/emulator"
	"github.com/turnstile-sfn/turnstile/emulator/lambdafn"
	"github.com/turnstile-sfn/turnstile/emulator/runtimeapi"
	"github.com/turnstile-sfn/turnstile/emulator/template"
	"github.com/turnstile-sfn/turnstile/internal/metadata"
)

// ErrNoHandler is wrapped by the error Start returns when a state machine or a rule of the
// template uses a Lambda function that has neither a registered handler nor a Go package to
// build and run through the Lambda Runtime API.
var ErrNoHandler = errors.New("stack: no handler registered for a function the stack uses")

// HandlerFactory builds the handler of one function of the template from its resolved
// configuration (environment variables, timeout, …) and the stack's clock and randomness.
type HandlerFactory func(fn template.Function, env HandlerEnv) (lambdafn.Handler, error)

// HandlerEnv is what a handler factory gets from the stack besides the function itself.
type HandlerEnv struct {
	// Clock is the emulator's clock; handlers sleep on it so that work takes virtual time.
	Clock emulator.Clock
	// Rand is a source seeded from the stack's seed and the function's logical ID.
	Rand *rand.Rand
	// StepFunctions and DynamoDB are AWS SDK clients of the stack's own APIs, for handlers
	// that call AWS (a reconciler, a load test).
	StepFunctions *sfn.Client
	DynamoDB      *dynamodb.Client
	// Log is the function's standard output, as Lambda sends it to CloudWatch Logs: the stack
	// keeps the embedded metric format lines written to it (Stack.Metrics) and drops the rest.
	Log io.Writer
}

// handlerKey is how a function of the template finds its factory: by the Go package it is built
// from (recorded by Turnstile's Go Lambda construct), else by its logical ID.
func handlerKey(fn template.Function, factories map[string]HandlerFactory) (string, bool) {
	for _, key := range []string{fn.GoPackage, fn.LogicalID} {
		if _, ok := factories[key]; ok && key != "" {
			return key, true
		}
	}
	return "", false
}

// bindFunctions registers a handler for every function that has a factory, with the
// function's timeout and reserved concurrency; a function the stack uses (a state machine's task
// or a rule's target) without a factory runs through the Lambda Runtime API when it has a Go
// package, and fails the binding otherwise.
func bindFunctions(ctx context.Context, reg *lambdafn.Registry, tmpl *template.Template, factories map[string]HandlerFactory, base HandlerEnv, seed uint64, runtimes *runtimeFunctions, metricLog *metricLog) error {
	var unbound []string
	for _, fn := range tmpl.Functions {
		var h lambdafn.Handler
		var err error
		key, ok := handlerKey(fn, factories)
		switch {
		case ok:
			env := base
			env.Rand = rand.New(rand.NewPCG(seed, hashString(fn.LogicalID)))
			env.Log = metricLog.writer(fn.LogicalID, "")
			h, err = factories[key](fn, env)
		case !used(tmpl, fn):
			continue
		case fn.GoPackage != "":
			h, err = runtimes.handler(ctx, fn, metricLog)
		default:
			unbound = append(unbound, describeFunction(fn))
			continue
		}
		if err != nil {
			return fmt.Errorf("stack: build the handler of %s: %w", describeFunction(fn), err)
		}
		opts := []lambdafn.FunctionOption{lambdafn.Timeout(fn.Timeout)}
		if fn.ReservedConcurrency != nil {
			opts = append(opts, lambdafn.ReservedConcurrency(*fn.ReservedConcurrency))
		}
		if err := reg.Register(fn.ARN, h, opts...); err != nil {
			return fmt.Errorf("stack: register %s: %w", describeFunction(fn), err)
		}
	}
	if len(unbound) > 0 {
		sort.Strings(unbound)
		return fmt.Errorf("%w: %s (register a HandlerFactory under the function's Go package or logical ID, "+
			"or record the Go import path of its main package in the %q metadata of the function)", ErrNoHandler, strings.Join(unbound, "; "), metadata.GoPackage)
	}
	return nil
}

// runtimeFunctions builds the Go packages of functions without a handler and runs them through
// the Lambda Runtime API (see package runtimeapi), with the stack's local endpoints.
type runtimeFunctions struct {
	moduleDir string
	log       io.Writer
	region    string
	accessKey string // the functions' AWS_ACCESS_KEY_ID: the stack's database on DynamoDB Local
	endpoints runtimeapi.Endpoints

	outDir    string // where the binaries are built; created by the first build
	builder   *runtimeapi.Builder
	functions []*runtimeapi.Function
}

// handler builds fn's Go package (once per package) and returns a handler that runs it.
func (r *runtimeFunctions) handler(ctx context.Context, fn template.Function, metricLog *metricLog) (lambdafn.Handler, error) {
	if r.builder == nil {
		dir, err := os.MkdirTemp("", "turnstile-functions-")
		if err != nil {
			return nil, err
		}
		r.outDir, r.builder = dir, runtimeapi.NewBuilder(r.moduleDir, dir)
	}
	binary, err := r.builder.Build(ctx, fn.GoPackage)
	if err != nil {
		return nil, err
	}
	maxConcurrency := 0
	if fn.ReservedConcurrency != nil && *fn.ReservedConcurrency > 0 {
		maxConcurrency = *fn.ReservedConcurrency
	}
	log := r.log
	if log == nil {
		log = os.Stderr
	}
	// The log prefixes each line with the function's name, as runtimeapi.Config.Log says.
	log = io.MultiWriter(log, metricLog.writer(fn.LogicalID, "["+fn.Name+"] "))
	f, err := runtimeapi.New(runtimeapi.Config{
		Binary: binary, FunctionName: fn.Name, Handler: fn.Handler, Region: r.region, AccessKeyID: r.accessKey, MemoryMB: fn.MemorySize,
		Environment: fn.Environment, Endpoints: r.endpoints, MaxConcurrency: maxConcurrency, Log: log,
	})
	if err != nil {
		return nil, err
	}
	r.functions = append(r.functions, f)
	return f.Handler(), nil
}

// close stops every function's processes and removes the built binaries.
func (r *runtimeFunctions) close() error {
	var errs []error
	for _, f := range r.functions {
		errs = append(errs, f.Close())
	}
	if r.outDir != "" {
		errs = append(errs, os.RemoveAll(r.outDir))
	}
	return errors.Join(errs...)
}

// used reports whether a state machine definition or a rule target of the template names fn.
func used(tmpl *template.Template, fn template.Function) bool {
	for _, sm := range tmpl.StateMachines {
		if strings.Contains(sm.Definition, fn.ARN) || strings.Contains(sm.Definition, `"`+fn.Name+`"`) {
			return true
		}
	}
	for _, r := range tmpl.Rules {
		for _, t := range r.Targets {
			if t.ARN == fn.ARN {
				return true
			}
		}
	}
	return false
}

func describeFunction(fn template.Function) string {
	d := fmt.Sprintf("function %s (logical ID %s", fn.Name, fn.LogicalID)
	if fn.GoPackage != "" {
		d += ", Go package " + fn.GoPackage
	}
	return d + ")"
}

// hashString derives a per-function seed from a logical ID.
func hashString(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}
