package emulator

import (
	"context"
	"errors"
	"time"

	"github.com/turnstile-sfn/turnstile/emulator/sfnapi"
)

// checkpoint is where a redrive resumes a graph: the state that did not complete, with the raw
// input it was entered with, and for a Parallel or Map state how each branch or iteration ended.
type checkpoint struct {
	state    string
	input    any
	branches []*branchCheckpoint
}

// branchCheckpoint is how a branch or iteration ended: done with its output, or stopped at a
// checkpoint of its own graph. A nil *branchCheckpoint is a flow that never started.
type branchCheckpoint struct {
	done   bool
	output any
	resume *checkpoint
}

// resumeOf returns the checkpoint carried by a flow's error.
func resumeOf(err error) *checkpoint {
	var f *failure
	if errors.As(err, &f) {
		return f.resume
	}
	var i *interruption
	if errors.As(err, &i) {
		return i.resume
	}
	return nil
}

// RedriveExecution restarts a FAILED, TIMED_OUT or ABORTED execution that stopped less than 14
// days ago (virtual time), with the same ARN: it resumes from the state that did not complete,
// with that state's input, without running the states that completed again; in a Parallel or Map
// state only the branches and iterations that did not complete run again. The redrive count
// increments, an ExecutionRedriven event is recorded and listeners see RUNNING again. Errors:
// ExecutionDoesNotExist, ExecutionNotRedrivable.
func (em *Emulator) RedriveExecution(ctx context.Context, executionArn string) (time.Time, error) {
	ex, err := em.execution(executionArn)
	if err != nil {
		return time.Time{}, err
	}
	if !em.begin() {
		return time.Time{}, ErrClosed
	}
	started := false
	defer func() {
		if !started {
			em.wg.Done()
		}
	}()
	ex.mu.Lock()
	run := ex.run
	ex.mu.Unlock()
	// The previous run records its checkpoint when its goroutine ends.
	select {
	case <-run.done:
	case <-ctx.Done():
		return time.Time{}, ctx.Err()
	}
	ex.mu.Lock()
	if status, reason := ex.redriveStatusLocked(); status != RedriveStatusRedrivable {
		ex.mu.Unlock()
		return time.Time{}, apiError(ErrExecutionNotRedrivable, "Execution is not redrivable: %s", reason)
	}
	if ex.run != run {
		ex.mu.Unlock()
		return time.Time{}, apiError(ErrExecutionNotRedrivable, "Execution is not redrivable: Execution is RUNNING and cannot be redriven")
	}
	ex.redriveCount++
	ex.status = StatusRunning
	ex.stopDate, ex.output, ex.errName, ex.cause = time.Time{}, nil, nil, nil
	ex.sealed = false
	resume := ex.resume
	ex.resume = nil
	ex.startRunLocked(resume)
	started = true
	ex.redriveDate = ex.em.clock.Now()
	ex.appendLocked(int64(len(ex.events)), ex.redriveDate, sfnapi.EventExecutionRedriven, func(e *HistoryEvent) {
		e.ExecutionRedrivenEventDetails = &sfnapi.ExecutionRedrivenEventDetails{RedriveCount: int32(ex.redriveCount)}
	})
	// Publishing under ex.mu keeps the changes of one execution in order: its run cannot end
	// (and publish) before this RUNNING change is queued.
	em.status.publish(ex.statusChangeLocked())
	date := ex.redriveDate
	ex.mu.Unlock()
	return date, nil
}
