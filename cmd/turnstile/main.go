// Command turnstile runs Turnstile's semaphore on this machine and against AWS.
//
//	turnstile simulate [flags]   run the demo, or any synthesized app (--cdk-out), locally
//	turnstile loadtest [flags]   run the same load test against a deployed state machine
//	turnstile up [flags]         run the demo, or any synthesized app, as a local service
//	turnstile inspect [flags]    show a lock table's locks, or one lock's holders and queue
//	turnstile release [flags]    free a holder's slot by hand (it goes to the oldest waiter)
//	turnstile reconcile [flags]  run one pass of the reconciler now
//	turnstile limit [flags]      set a lock's limit, or a semaphore's default, live
//	turnstile pause [flags]      stop admissions to a lock (the queue keeps its order)
//	turnstile resume [flags]     restart admissions to a lock
//	turnstile drain [flags]      end a lock's waiters with a named error
//	turnstile submit [flags]     queue an execution input; it starts when a slot is free
//	turnstile submission [flags] show what became of a submission
//	turnstile cancel [flags]     take a queued submission out of the queue
//	turnstile setup [--dir D]    install AWS's DynamoDB Local, which simulate needs (Java 17+)
//	turnstile version            print the version
//
// Exit status: 0 when the run kept every promise, 1 when it exceeded the limit or leaked a
// slot, 2 for bad flags, a run that could not be carried out or a refused operator command, 3 when
// executions failed with errors the scenario did not ask for.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

// Exit statuses.
const (
	exitOK        = 0
	exitViolation = 1
	exitUsage     = 2
	// exitUnexpectedFailures: the run broke no promise, but executions failed with errors the
	// scenario did not inject.
	exitUnexpectedFailures = 3
)

// version is the module version this binary was built from ("(devel)" for a build inside the
// module), and its VCS revision when the build recorded one.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := info.Main.Version
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" {
			v += " " + s.Value
		}
	}
	return v
}

// errUnexpectedFailures marks a simulation whose executions failed with errors the scenario did
// not inject (a timeout of the emulator's own making, a Turnstile error): not a good run.
var errUnexpectedFailures = errors.New("executions failed with errors the scenario did not ask for")

// errViolation marks a run that broke a promise of the semaphore.
var errViolation = errors.New("the run broke a promise of the semaphore")

// errUsage marks bad command-line input that the flag package has already reported.
var errUsage = errors.New("usage")

// parseFlags parses args, mapping the flag package's outcomes: -h is flag.ErrHelp (exit 0),
// any other error has been printed by the flag set and is errUsage.
func parseFlags(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		return errUsage
	}
	return err
}

const usage = `turnstile: concurrency control for AWS Step Functions

Usage:
  turnstile simulate [flags]   run the demo locally (synthesize, emulate, load-test, chart)
  turnstile loadtest [flags]   run the load test against a deployed semaphore state machine

  turnstile up [flags]         run the demo app (or --cdk-out) locally until interrupted
  turnstile inspect [flags]    list a lock table's locks, or show one lock's holders and queue
  turnstile release [flags]    free a holder's slot by hand; it goes to the oldest waiter
  turnstile reconcile [flags]  free the slots of dead executions now
  turnstile limit [flags]      set a lock's limit (--lock) or a semaphore's default (--default) live
  turnstile pause [flags]      stop admissions to a lock; the queue keeps its order
  turnstile resume [flags]     restart admissions to a lock and admit its oldest waiters
  turnstile drain [flags]      end a lock's waiters with the error Turnstile.Drained
  turnstile submit [flags]     queue an execution input on its lock; it starts when a slot is free
  turnstile submission [flags] show a submission: queued, started, cancelled, expired or failed
  turnstile cancel [flags]     take a queued submission out of the queue

  turnstile setup [--dir D]     install what simulate needs: AWS's DynamoDB Local (Java 17+)
  turnstile version             print the version

Run "turnstile <command> -h" for a command's flags.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one command and returns the process's exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	var err error
	switch args[0] {
	case "simulate":
		err = simulateCommand(ctx, args[1:], stdout, stderr)
	case "loadtest":
		err = loadtestCommand(ctx, args[1:], stdout, stderr)
	case "up":
		err = upCommand(ctx, args[1:], stdout, stderr)
	case "inspect":
		err = inspectCommand(ctx, args[1:], stdout, stderr)
	case "release":
		err = releaseCommand(ctx, args[1:], stdout, stderr)
	case "reconcile":
		err = reconcileCommand(ctx, args[1:], stdout, stderr)
	case "limit", "pause", "resume", "drain":
		err = steerCommand(ctx, args[0], args[1:], stdout, stderr)
	case "submit":
		err = submitCommand(ctx, args[1:], stdout, stderr)
	case "submission", "cancel":
		err = submissionCommand(ctx, args[0], args[1:], stdout, stderr)
	case "setup":
		err = setupCommand(ctx, args[1:], stdout, stderr)
	case "version", "-version", "--version":
		fmt.Fprintln(stdout, "turnstile", version())
		return exitOK
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return exitOK
	default:
		fmt.Fprintf(stderr, "turnstile: unknown command %q\n\n%s", args[0], usage)
		return exitUsage
	}
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.Is(err, errViolation):
		fmt.Fprintln(stderr, "turnstile:", err)
		return exitViolation
	case errors.Is(err, errUnexpectedFailures):
		fmt.Fprintln(stderr, "turnstile:", err)
		return exitUnexpectedFailures
	default:
		if err != errUsage {
			fmt.Fprintln(stderr, "turnstile:", err)
		}
		return exitUsage
	}
}
