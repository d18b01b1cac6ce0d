// Command soak runs the reliability soak of issue 6 (package internal/soak) against a DynamoDB Local
// it starts and prints its figures: seeds, operations, faults injected by kind, histories
// failing the checker, the largest number of holders seen, reads where counter ≠ holders,
// negative counts and slots leaked after quiescence and one reconciler pass; with --strategy
// callback, the queue soak (lock.Client's Park, Release and Leave, checked against a FIFO
// counting semaphore) adds admissions out of order, stranded waiters and the waiters seen.
// Both report the write units the requests consumed.
//
// Exit status: 0 when every failure figure is 0, 1 when one is not, 2 for bad flags or a soak
// that could not run.
//
//	go run ./cmd/soak                        # 20 seeds × 2,500 pairs, 5 % reply lost
//	go run ./cmd/soak --reply-lost 0.2       # 20 % reply lost, 10 % lost before
//	go run ./cmd/soak --seeds 3 --pairs 300 --json
//	go run ./cmd/soak --strategy callback    # the queue: 10 clients on 3 slots
//	go run ./cmd/soak --strategy callback --keep-failing soak-failures  # keep failing histories
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/turnstile-sfn/turnstile/emulator/ddblocal"
	"github.com/turnstile-sfn/turnstile/internal/soak"
)

// Exit codes.
const (
	exitOK       = 0
	exitFailures = 1
	exitError    = 2
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run runs the command and returns its exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseOptions(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err == nil {
		err = o.config.Validate()
	}
	if err != nil {
		fmt.Fprintln(stderr, "soak:", err)
		return exitError
	}
	report, elapsed, err := soakOnDynamoDBLocal(ctx, o.config)
	if err != nil {
		fmt.Fprintln(stderr, "soak:", err)
		return exitError
	}
	if err := printReport(stdout, o, report, elapsed); err != nil {
		fmt.Fprintln(stderr, "soak:", err)
		return exitError
	}
	if report.Failures() > 0 {
		return exitFailures
	}
	return exitOK
}

// soakOnDynamoDBLocal starts DynamoDB Local, runs the soak against it and stops it.
func soakOnDynamoDBLocal(ctx context.Context, c soak.Config) (report soak.Report, elapsed time.Duration, err error) {
	srv, err := ddblocal.Start(ctx, ddblocal.Options{})
	if err != nil {
		return soak.Report{}, 0, err
	}
	defer func() { err = errors.Join(err, srv.Close()) }()
	start := time.Now()
	report, err = soak.Run(ctx, srv.Endpoint(), c)
	return report, time.Since(start), err
}
