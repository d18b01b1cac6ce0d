// Command sidebyside runs the same workloads in Turnstile's emulator and in
// aws-local-stepfunctions (pinned in .cdk) and prints the executions per second of each and
// their ratio, medians over several runs: the semaphore machine (Poll strategy, its work a Pass
// state) against one lock in DynamoDB Local, and a Pass/Choice/Map/Parallel machine without
// I/O, both at time scale 0. See package internal/sidebyside.
//
//	go run ./cmd/sidebyside [--executions 1000] [--concurrency 10] [--runs 5] [--limit 5]
//
// Columns: executions per second of wall-clock time (ours, theirs, ratio); executions per CPU
// second of the interpreter's process (the emulator's in-process DynamoDB client and the Node
// process's AWS SDK included, DynamoDB Local not), which a machine busy with other work
// disturbs much less; the DynamoDB requests per execution of each side.
//
// It needs make setup (the Node tooling and DynamoDB Local). Exit status 1 on any error.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/turnstile-sfn/turnstile/emulator/ddblocal"
	"github.com/turnstile-sfn/turnstile/internal/sidebyside"
)

// warmUpExecutions is the number of acquire/release pairs sent to DynamoDB Local before measuring.
const warmUpExecutions = 5000

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "sidebyside:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("sidebyside", flag.ContinueOnError)
	executions := fs.Int("executions", 1000, "executions per run")
	concurrency := fs.Int("concurrency", 10, "executions in flight at a time")
	runs := fs.Int("runs", 5, "runs per workload and interpreter; the table shows the medians")
	limit := fs.Int("limit", 5, "the semaphore's limit")
	if err := fs.Parse(args); err != nil {
		return err
	}
	load := sidebyside.Load{Executions: *executions, Concurrency: *concurrency}
	if *runs < 1 {
		return fmt.Errorf("--runs must be >= 1, got %d", *runs)
	}
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	root, err := sidebyside.FindRoot(wd)
	if err != nil {
		return err
	}

	srv, err := ddblocal.Start(ctx, ddblocal.Options{})
	if err != nil {
		return err
	}
	defer srv.Close()
	client, err := ddblocal.NewClient(ctx, srv.Endpoint())
	if err != nil {
		return err
	}
	// The semaphore workload runs at most limit executions at a time, so that none waits for a
	// slot: a waiting execution's Check Holder reads $.Item.* from an item without its holder
	// attribute, which Step Functions (Jayway JsonPath) resolves to [] but aws-local-stepfunctions
	// fails with States.Runtime.
	semaphoreLoad := sidebyside.Load{Executions: load.Executions, Concurrency: min(load.Concurrency, *limit)}
	tables := 0
	newTable := func() (string, error) {
		tables++
		table := fmt.Sprintf("sidebyside-locks-%d", tables)
		return table, sidebyside.CreateLockTable(ctx, client, table)
	}
	semaphore := func() (sidebyside.Workload, error) {
		table, err := newTable()
		if err != nil {
			return sidebyside.Workload{}, err
		}
		return sidebyside.Semaphore(srv.Endpoint(), table, *limit)
	}
	flow := func() (sidebyside.Workload, error) { return sidebyside.Flow(), nil }

	// DynamoDB Local runs on the JVM, whose JIT compiler makes its first thousands of requests
	// slower: warm it up before measuring.
	warmUpTable, err := newTable()
	if err != nil {
		return err
	}
	if _, err := sidebyside.RunDynamoDBAlone(ctx, srv.Endpoint(), warmUpTable, *limit, sidebyside.Load{Executions: warmUpExecutions, Concurrency: semaphoreLoad.Concurrency}); err != nil {
		return err
	}

	fmt.Fprintf(out, "%d executions per run, median of %d runs, time scale 0, semaphore limit %d\n\n", load.Executions, *runs, *limit)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workload\tat a time\tours exec/s\ttheirs exec/s\tratio\tours exec/CPU-s\ttheirs exec/CPU-s\tCPU ratio\tDynamoDB req/exec ours\ttheirs\t")
	for _, wl := range []struct {
		name string
		load sidebyside.Load
		make func() (sidebyside.Workload, error)
	}{{sidebyside.SemaphoreName, semaphoreLoad, semaphore}, {sidebyside.FlowName, load, flow}} {
		var ours, theirs []sidebyside.Result
		for range *runs {
			// Each run gets a fresh lock table, so that no run sees another's lock item.
			w, err := wl.make()
			if err != nil {
				return err
			}
			r, err := sidebyside.RunOurs(ctx, w, wl.load)
			if err != nil {
				return err
			}
			ours = append(ours, r)
			if w, err = wl.make(); err != nil {
				return err
			}
			if r, err = sidebyside.RunTheirs(ctx, root, w, wl.load); err != nil {
				return err
			}
			theirs = append(theirs, r)
		}
		oRate, tRate := sidebyside.Median(ours, sidebyside.ExecutionsPerSecond), sidebyside.Median(theirs, sidebyside.ExecutionsPerSecond)
		oCPU, tCPU := sidebyside.Median(ours, sidebyside.Result.ExecutionsPerCPUSecond), sidebyside.Median(theirs, sidebyside.Result.ExecutionsPerCPUSecond)
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.0f\t%.1f×\t%.0f\t%.0f\t%.1f×\t%.1f\t%.1f\t\n", wl.name, wl.load.Concurrency,
			oRate, tRate, oRate/tRate, oCPU, tCPU, oCPU/tCPU,
			sidebyside.Median(ours, sidebyside.DynamoDBRequestsPerExecution), sidebyside.Median(theirs, sidebyside.DynamoDBRequestsPerExecution))
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	var alone []sidebyside.Result
	for range *runs {
		table, err := newTable()
		if err != nil {
			return err
		}
		r, err := sidebyside.RunDynamoDBAlone(ctx, srv.Endpoint(), table, *limit, semaphoreLoad)
		if err != nil {
			return err
		}
		alone = append(alone, r)
	}
	_, err = fmt.Fprintf(out, "\nthe semaphore's ceiling: its 2 updateItem requests per execution sent to DynamoDB Local without an interpreter, %d at a time: %.0f exec/s\n",
		semaphoreLoad.Concurrency, sidebyside.Median(alone, sidebyside.ExecutionsPerSecond))
	return err
}
