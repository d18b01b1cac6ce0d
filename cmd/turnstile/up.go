package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/turnstile-sfn/turnstile/cmd/app/demo"
	"github.com/turnstile-sfn/turnstile/emulator/ddblocal"
	"github.com/turnstile-sfn/turnstile/emulator/stack"
	"github.com/turnstile-sfn/turnstile/internal/simulate"
)

// DefaultUpTimeScale is `turnstile up`'s clock: real time, since outside clients drive the stack.
const DefaultUpTimeScale = 1

// errUpTimeScale: `up` cannot skip time, since the stack does not know when its outside clients
// are done acting.
var errUpTimeScale = errors.New("--time-scale must be above 0 (1 is real time): clients outside the stack drive it, so it cannot skip time")

// errPort: a port flag out of range.
var errPort = errors.New("must be a TCP port from 1 to 65535, or 0 for a free one")

// upFlags are the flags of `turnstile up`.
type upFlags struct {
	cdkOut    string
	portSFN   int
	portDDB   int
	timeScale float64
	json      bool
	// demo is the demo app to synthesize when cdkOut is "".
	demo demo.Config
}

func parseUpFlags(args []string, stderr io.Writer) (upFlags, error) {
	f := upFlags{demo: demo.DefaultConfig()}
	fs := flag.NewFlagSet("turnstile up", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.cdkOut, "cdk-out", "", "run this cloud assembly instead of synthesizing the demo app")
	fs.IntVar(&f.portSFN, "port-sfn", 0, "loopback port of the Step Functions API (0: a free port)")
	fs.IntVar(&f.portDDB, "port-dynamodb", 0, "loopback port of DynamoDB (0: a free port)")
	fs.Float64Var(&f.timeScale, "time-scale", DefaultUpTimeScale, "real seconds per virtual second: 1 is real time, 0.1 runs ten times faster")
	fs.BoolVar(&f.json, "json", false, "print the endpoints and resources as one JSON object")
	fs.IntVar(&f.demo.Limit, "limit", f.demo.Limit, "the semaphore's limit (demo app only)")
	fs.StringVar(&f.demo.LockName, "lock-name", f.demo.LockName, "the lock's name (demo app only)")
	fs.DurationVar(&f.demo.WorkDuration, "work-time", f.demo.WorkDuration, "time each execution works (demo app only)")
	fs.Float64Var(&f.demo.FailureRate, "failure-rate", f.demo.FailureRate, "fraction of work that fails, 0 to 1 (demo app only)")
	if err := parseFlags(fs, args); err != nil {
		return f, err
	}
	if fs.NArg() > 0 {
		return f, fmt.Errorf("up takes no arguments, got %q", fs.Args())
	}
	demoOnly := map[string]bool{"limit": true, "lock-name": true, "work-time": true, "failure-rate": true}
	var conflict error
	fs.Visit(func(fl *flag.Flag) {
		if f.cdkOut != "" && demoOnly[fl.Name] && conflict == nil {
			conflict = fmt.Errorf("--%s configures the demo app and cannot be used with --cdk-out", fl.Name)
		}
	})
	switch {
	case conflict != nil:
		return f, conflict
	case !(f.timeScale > 0):
		return f, fmt.Errorf("%w, got %g", errUpTimeScale, f.timeScale)
	case f.portSFN < 0 || f.portSFN > 65535:
		return f, fmt.Errorf("--port-sfn %w, got %d", errPort, f.portSFN)
	case f.portDDB < 0 || f.portDDB > 65535:
		return f, fmt.Errorf("--port-dynamodb %w, got %d", errPort, f.portDDB)
	case f.portSFN != 0 && f.portSFN == f.portDDB:
		return f, fmt.Errorf("--port-sfn and --port-dynamodb must differ, both are %d", f.portSFN)
	}
	if f.cdkOut == "" {
		if err := f.demo.Validate(); err != nil {
			var ce *demo.ContextError
			if errors.As(err, &ce) {
				return f, fmt.Errorf("--%s: %s, got %v", flagOfContextKey[ce.Key], ce.Problem, ce.Value)
			}
			return f, err
		}
	}
	return f, nil
}

// localStack is a stack `turnstile up` runs, with what it prints about it.
type localStack struct {
	*stack.Stack
	// Resources are the endpoints and resources printed.
	Resources upResources
	// remove deletes the synthesized cloud assembly, if any.
	remove func()
}

// Close stops the stack and deletes what it synthesized.
func (l *localStack) Close() error {
	err := l.Stack.Close()
	l.remove()
	return err
}

// upResources are what `turnstile up` prints: where to reach the stack and what it holds.
type upResources struct {
	// Stack is the stack's name.
	Stack string `json:"stack"`
	// Region is the stack's region: the region of its ARNs.
	Region string `json:"region"`
	// Endpoints are the APIs' loopback URLs.
	Endpoints upEndpoints `json:"endpoints"`
	// Environment are the variables that point the AWS CLI and SDKs at the stack.
	Environment map[string]string `json:"environment"`
	// StateMachines are the stack's state machines.
	StateMachines []upResource `json:"stateMachines"`
	// Tables are the stack's DynamoDB tables.
	Tables []upResource `json:"tables"`
	// Functions are the stack's Lambda functions.
	Functions []upResource `json:"functions"`
}

// upEndpoints are the loopback URLs of the stack's APIs.
type upEndpoints struct {
	// StepFunctions is the Step Functions API.
	StepFunctions string `json:"stepFunctions"`
	// DynamoDB is the DynamoDB API.
	DynamoDB string `json:"dynamodb"`
}

// upResource is one resource of the stack.
type upResource struct {
	// LogicalID is its logical ID in the template.
	LogicalID string `json:"logicalId"`
	// Name is its physical name.
	Name string `json:"name"`
	// ARN is its ARN.
	ARN string `json:"arn,omitempty"`
}

// startLocal synthesizes the demo app (unless f names a cloud assembly) and starts it.
func startLocal(ctx context.Context, f upFlags) (_ *localStack, err error) {
	cdkOut, remove := f.cdkOut, func() {}
	if cdkOut == "" {
		dir, err := os.MkdirTemp("", "turnstile-up-*.out")
		if err != nil {
			return nil, err
		}
		remove = func() { os.RemoveAll(dir) }
		if err := simulate.Synthesize(dir, f.demo); err != nil {
			remove()
			return nil, err
		}
		cdkOut = dir
	}
	st, err := stack.Start(ctx, cdkOut, stack.Options{
		TimeScale: f.timeScale, Handlers: simulate.Handlers(),
		StepFunctionsPort: f.portSFN, DynamoDBLocal: ddblocal.Options{Port: f.portDDB},
	})
	if err != nil {
		remove()
		if f.cdkOut != "" {
			return nil, fmt.Errorf("%w\n(--cdk-out names the cloud assembly `cdk synth` writes, cdk.out by default)", err)
		}
		return nil, err
	}
	return &localStack{Stack: st, Resources: resourcesOf(st), remove: remove}, nil
}

// resourcesOf lists what `turnstile up` prints about st.
func resourcesOf(st *stack.Stack) upResources {
	t := st.Template
	r := upResources{
		Stack: t.StackName, Region: t.Region,
		Endpoints: upEndpoints{StepFunctions: st.APIURL(), DynamoDB: st.DynamoDBEndpoint()},
		Environment: map[string]string{
			"AWS_ENDPOINT_URL_SFN":      st.APIURL(),
			"AWS_ENDPOINT_URL_DYNAMODB": st.DynamoDBEndpoint(),
			"AWS_ACCESS_KEY_ID":         "local",
			"AWS_SECRET_ACCESS_KEY":     "local",
			"AWS_REGION":                t.Region,
			"AWS_DEFAULT_REGION":        t.Region,
		},
		StateMachines: []upResource{}, Tables: []upResource{}, Functions: []upResource{},
	}
	for _, sm := range t.StateMachines {
		r.StateMachines = append(r.StateMachines, upResource{LogicalID: sm.LogicalID, Name: sm.Name, ARN: sm.ARN})
	}
	for _, tb := range t.Tables {
		r.Tables = append(r.Tables, upResource{LogicalID: tb.LogicalID, Name: tb.Name, ARN: tb.ARN})
	}
	for _, fn := range t.Functions {
		r.Functions = append(r.Functions, upResource{LogicalID: fn.LogicalID, Name: fn.Name, ARN: fn.ARN})
	}
	return r
}

// envOrder is the order the environment is printed in.
var envOrder = []string{"AWS_ENDPOINT_URL_SFN", "AWS_ENDPOINT_URL_DYNAMODB", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION", "AWS_DEFAULT_REGION"}

// printResources writes r as text.
func printResources(w io.Writer, r upResources) {
	fmt.Fprintf(w, "Stack %s is up in region %s; Ctrl-C stops it.\n\n", r.Stack, r.Region)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "Step Functions API\t%s\n", r.Endpoints.StepFunctions)
	fmt.Fprintf(tw, "DynamoDB\t%s\n", r.Endpoints.DynamoDB)
	for _, group := range []struct {
		title string
		items []upResource
	}{{"State machines", r.StateMachines}, {"Tables", r.Tables}, {"Functions", r.Functions}} {
		fmt.Fprintf(tw, "\n%s\n", group.title)
		for _, it := range group.items {
			id := it.Name
			if it.ARN != "" && group.title == "State machines" {
				id = it.ARN
			}
			fmt.Fprintf(tw, "  %s\t%s\n", it.LogicalID, id)
		}
	}
	tw.Flush()
	fmt.Fprintln(w, "\nPoint the AWS CLI, the AWS SDKs and turnstile's commands at it:")
	for _, k := range envOrder {
		fmt.Fprintf(w, "  export %s=%s\n", k, r.Environment[k])
	}
}

func upCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseUpFlags(args, stderr)
	if err != nil {
		return err
	}
	began := time.Now()
	st, err := startLocal(ctx, f)
	if err != nil {
		return err
	}
	if f.json {
		if err := writeJSON(stdout, st.Resources); err != nil {
			return errors.Join(err, st.Close())
		}
	} else {
		printResources(stdout, st.Resources)
		fmt.Fprintf(stdout, "\n(started in %.1f s)\n", time.Since(began).Seconds())
	}
	<-ctx.Done()
	fmt.Fprintln(stderr, "turnstile: stopping the stack")
	return st.Close()
}
