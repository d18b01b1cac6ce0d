package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/turnstile-sfn/turnstile/lambdas/testrunner/runner"
	"github.com/turnstile-sfn/turnstile/lock"
)

// errWatch: a negative --watch interval.
var errWatch = errors.New("--watch must be a positive interval such as 2s (0 or absent prints once)")

// clearScreen moves the cursor home and clears a terminal, before each redraw of --watch.
const clearScreen = "\x1b[H\x1b[2J"

// inspectFlags are the flags of `turnstile inspect`.
type inspectFlags struct {
	*lockFlags
	watch time.Duration
}

func parseInspectFlags(args []string, stderr io.Writer) (inspectFlags, error) {
	f := inspectFlags{lockFlags: newLockFlags("inspect", "print JSON (with --watch, one object a line)", stderr)}
	f.addLock("show this lock: its holders with their execution's status, its queue in ticket order (default: list the locks)", nil)
	f.fs.DurationVar(&f.watch, "watch", 0, "redraw every interval until interrupted, e.g. 2s")
	if err := f.parse(args); err != nil {
		return f, err
	}
	if f.watch < 0 {
		return f, fmt.Errorf("%w, got %s", errWatch, f.watch)
	}
	return f, nil
}

// lockSummary is one lock of the table, as `inspect` lists it.
type lockSummary struct {
	// Name is the lock's name.
	Name string `json:"name"`
	// Holders is the number of holder items.
	Holders int `json:"holders"`
	// Count is the counter item's number of holders (equal to Holders unless the lock's
	// invariant is broken).
	Count int `json:"count"`
	// Waiters is the number of executions in the queue.
	Waiters int `json:"waiters"`
	// Limit is the lock's live limit, 0 when it has none (its callers' configured limit
	// applies).
	Limit int `json:"limit,omitempty"`
	// Paused: the lock admits nobody.
	Paused bool `json:"paused,omitempty"`
	// OldestWaitSeconds is how long the first in the queue has waited.
	OldestWaitSeconds float64 `json:"oldestWaitSeconds"`
}

// lockDetail is one lock, as `inspect --lock` shows it.
type lockDetail struct {
	// Name is the lock's name.
	Name string `json:"name"`
	// Count is the counter item's number of holders.
	Count int `json:"count"`
	// Tickets is the number of tickets drawn on the lock.
	Tickets int64 `json:"tickets"`
	// Limit is the lock's live limit, 0 when it has none (its callers' configured limit
	// applies).
	Limit int `json:"limit,omitempty"`
	// LimitOverride: the limit is the lock's own, not its semaphore's default.
	LimitOverride bool `json:"limitOverride,omitempty"`
	// Paused: the lock admits nobody.
	Paused bool `json:"paused,omitempty"`
	// Holders are the holders, in ARN order.
	Holders []holderDetail `json:"holders"`
	// Waiters are the queue, in ticket order.
	Waiters []waiterDetail `json:"waiters"`
}

// holderDetail is a holder with its execution's status.
type holderDetail struct {
	lock.Holder
	// Status is the execution's status, or GONE when Step Functions does not know it.
	Status string `json:"status"`
	// HeldSeconds is how long it has held its slot.
	HeldSeconds float64 `json:"heldSeconds"`
}

// waiterDetail is a waiter with its wait.
type waiterDetail struct {
	lock.Waiter
	// WaitSeconds is how long it has waited.
	WaitSeconds float64 `json:"waitSeconds"`
}

// listLocks reads every lock of the table.
func listLocks(ctx context.Context, c lockClients, table string, now func() time.Time) ([]lockSummary, error) {
	names, err := runner.LockNames(ctx, c.ddb, table)
	if err != nil {
		return nil, err
	}
	out := []lockSummary{}
	for _, name := range names {
		st, err := c.locks.Read(ctx, name)
		if err != nil {
			return nil, err
		}
		s := lockSummary{Name: name, Holders: len(st.Holders), Count: st.Count, Waiters: len(st.Waiters), Limit: st.Limit, Paused: st.Paused}
		if len(st.Waiters) > 0 {
			s.OldestWaitSeconds = age(st.Waiters[0].Since, now()).Seconds()
		}
		out = append(out, s)
	}
	return out, nil
}

// readLock reads one lock with its holders' statuses.
func readLock(ctx context.Context, c lockClients, name string, now func() time.Time) (lockDetail, error) {
	st, err := c.locks.Read(ctx, name)
	if err != nil {
		return lockDetail{}, err
	}
	d := lockDetail{Name: name, Count: st.Count, Tickets: st.Tickets, Limit: st.Limit, LimitOverride: st.LimitOverride, Paused: st.Paused, Holders: []holderDetail{}, Waiters: []waiterDetail{}}
	t := now()
	for _, h := range st.Holders {
		status, err := executionStatus(ctx, c.sfn, h.Execution)
		if err != nil {
			return lockDetail{}, err
		}
		d.Holders = append(d.Holders, holderDetail{Holder: h, Status: status, HeldSeconds: age(h.Since, t).Seconds()})
	}
	for _, w := range st.Waiters {
		d.Waiters = append(d.Waiters, waiterDetail{Waiter: w, WaitSeconds: age(w.Since, t).Seconds()})
	}
	return d, nil
}

// seconds renders a number of seconds as a duration, e.g. 1m2.5s.
func seconds(s float64) string {
	return (time.Duration(s*10) * time.Second / 10).String()
}

// printLocks writes the list of locks as a table.
func printLocks(w io.Writer, table string, locks []lockSummary) {
	if len(locks) == 0 {
		fmt.Fprintf(w, "No locks in table %s.\n", table)
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "LOCK\tHOLDERS\tLIMIT\tWAITERS\tOLDEST WAIT\t")
	for _, l := range locks {
		holders := fmt.Sprint(l.Holders)
		if l.Count != l.Holders {
			holders = fmt.Sprintf("%d (counter %d!)", l.Holders, l.Count)
		}
		oldest := "-"
		if l.Waiters > 0 {
			oldest = seconds(l.OldestWaitSeconds)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t\n", l.Name, holders, limitText(l.Limit, false, l.Paused), l.Waiters, oldest)
	}
	tw.Flush()
}

// printLock writes one lock's holders and queue.
func printLock(w io.Writer, d lockDetail) {
	fmt.Fprintf(w, "Lock %s: %d holders (counter %d), limit %s, %d waiting, %d tickets drawn\n\n", d.Name, len(d.Holders), d.Count, limitText(d.Limit, d.LimitOverride, d.Paused), len(d.Waiters), d.Tickets)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "HOLDER\tSTATUS\tHELD FOR\t")
	for _, h := range d.Holders {
		fmt.Fprintf(tw, "%s\t%s\t%s\t\n", h.Execution, h.Status, seconds(h.HeldSeconds))
	}
	tw.Flush()
	if len(d.Waiters) == 0 {
		fmt.Fprintln(w, "\nNobody waits.")
		return
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TICKET\tWAITER\tWAITING FOR\t")
	for _, wt := range d.Waiters {
		waiter := wt.Execution
		if wt.Submission != "" {
			waiter = "submission " + wt.Submission + " (to start as " + wt.Execution + ")"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t\n", wt.Ticket, waiter, seconds(wt.WaitSeconds))
	}
	tw.Flush()
}

func inspectCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseInspectFlags(args, stderr)
	if err != nil {
		return err
	}
	c, err := f.client(ctx)
	if err != nil {
		return err
	}
	draw := func() error {
		var v any
		if f.lock != "" {
			v, err = readLock(ctx, c, f.lock, time.Now)
		} else {
			v, err = listLocks(ctx, c, f.table, time.Now)
		}
		if err != nil {
			return err
		}
		switch {
		case f.json:
			enc := json.NewEncoder(stdout)
			if f.watch == 0 {
				enc.SetIndent("", "  ")
			}
			return enc.Encode(v)
		case f.watch > 0:
			fmt.Fprintf(stdout, "%s%s  (every %s; Ctrl-C stops)\n\n", clearScreen, time.Now().Format(time.TimeOnly), f.watch)
		}
		if d, ok := v.(lockDetail); ok {
			printLock(stdout, d)
		} else {
			printLocks(stdout, f.table, v.([]lockSummary))
		}
		return nil
	}
	if err := draw(); err != nil || f.watch == 0 {
		return err
	}
	tick := time.NewTicker(f.watch)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
			if err := draw(); err != nil && ctx.Err() == nil {
				return err
			}
		}
	}
}

// limitText renders a lock's live limit: "-" without one (its callers' configured limit
// applies), "(own)" when it is the lock's own, ", paused" when it admits nobody.
func limitText(limit int, own, paused bool) string {
	s := "-"
	if limit > 0 {
		s = fmt.Sprint(limit)
	}
	if own {
		s += " (own)"
	}
	if paused {
		s += ", paused"
	}
	return s
}
