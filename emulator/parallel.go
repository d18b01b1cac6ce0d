package emulator

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/turnstile-sfn/turnstile/emulator/sfnapi"
)

// parallel runs a Parallel state: every branch on the same input, concurrently; the result is
// the array of their outputs. The first branch to fail stops the others and fails the state.
func (r *runner) parallel(s *stateRun, input any, resume []*branchCheckpoint) (any, string, error) {
	effective, err := r.applyInputPath(s, input)
	if err != nil {
		return nil, "", err
	}
	branchInput, err := r.applyParameters(s, effective)
	if err != nil {
		return nil, "", err
	}
	return r.withRetry(s, input, func() (any, error) {
		startedID, ok := r.emit(sfnapi.EventParallelStateStarted, nil)
		if !ok {
			return nil, r.interrupted()
		}
		outputs, err := r.runFlows(s, input, flowSet{
			n: len(s.node.branches), parentID: startedID, resume: resume, keyFormat: "/%s#%d",
			run: func(br *runner, i int, resume *checkpoint) (any, error) {
				return br.runGraph(s.node.branches[i], branchInput, resume)
			},
		})
		resume = nil
		if err != nil {
			return nil, err
		}
		// ParallelStateSucceeded follows the branches' last event but, like the other
		// *Succeeded events, does not advance the chain: ParallelStateExited also follows the
		// branches' last event (AWS's recorded test_parallel_state history: Succeeded #18 and
		// Exited #19 both after #17).
		if _, ok := r.ex.emit(r.prev, r.tl.now(), sfnapi.EventParallelStateSucceeded, nil); !ok {
			return nil, r.interrupted()
		}
		selected, err := r.applyResultSelector(s, outputs)
		if err != nil {
			return nil, err
		}
		return r.finishResult(s, input, selected)
	}, func() { r.emit(sfnapi.EventParallelStateFailed, nil) })
}

// branchFunc runs branch (or iteration) i on its own runner, resuming from a checkpoint when
// redriving.
type branchFunc func(br *runner, i int, resume *checkpoint) (any, error)

// flowSet describes the concurrent flows of a Parallel or Map state.
type flowSet struct {
	n         int
	limit     int
	parentID  int64
	resume    []*branchCheckpoint
	run       branchFunc
	keyFormat string // derives each flow's randomness key from the state name and index
}

// flowResult is how one flow ended.
type flowResult struct {
	output any
	err    error
	ran    bool
	end    time.Time
	last   int64 // id of the flow's last event
}

// runFlows runs the flows concurrently (at most fs.limit at once; 0 means no limit) and returns
// their outputs in order. The first failure cancels the other flows and is returned with a
// checkpoint of every flow, so that a redrive reruns only the unfinished ones. Flows already
// done in a previous run (fs.resume) are not run again.
func (r *runner) runFlows(s *stateRun, rawInput any, fs flowSet) ([]any, error) {
	ctx, cancel := context.WithCancelCause(r.ctx)
	defer cancel(errEnded)
	results := make([]flowResult, fs.n)
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first *failure // the first flow to fail
	)
	limit := fs.limit
	if limit <= 0 || limit > fs.n {
		limit = fs.n
	}
	slots := make(chan struct{}, max(limit, 1))
	for i := 0; i < fs.n; i++ {
		var prior *branchCheckpoint
		if i < len(fs.resume) && fs.resume[i] != nil {
			prior = fs.resume[i]
		}
		if prior != nil && prior.done {
			results[i] = flowResult{output: prior.output, ran: true}
			continue
		}
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		br := r.fork(ctx, fmt.Sprintf(fs.keyFormat, s.node.name, i), fs.parentID)
		var from *checkpoint
		if prior != nil {
			from = prior.resume
		}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			defer func() { <-slots }()
			out, err := fs.run(br, i, from)
			results[i] = flowResult{output: out, err: err, ran: true, end: br.tl.now(), last: br.prev}
			var f *failure
			if errors.As(err, &f) {
				once.Do(func() {
					first = f
					cancel(errSiblingFailed)
				})
			}
		}(i)
	}
	wg.Wait()
	// Each flow has its own chain of previousEventId; the state's next event follows the last
	// event of its own flows, not an event a sibling branch of an enclosing Parallel recorded
	// meanwhile.
	outputs := make([]any, fs.n)
	for i, res := range results {
		r.prev = max(r.prev, res.last)
		outputs[i] = res.output
		if !res.end.IsZero() {
			r.tl.join(res.end)
		}
	}
	stopped := context.Cause(r.ctx) != nil // the whole run is ending
	if first == nil && !stopped {
		return outputs, nil
	}
	checkpoints := make([]*branchCheckpoint, fs.n)
	for i, res := range results {
		switch {
		case res.ran && res.err == nil:
			checkpoints[i] = &branchCheckpoint{done: true, output: res.output}
		case res.err != nil:
			checkpoints[i] = &branchCheckpoint{resume: resumeOf(res.err)}
		}
	}
	here := &checkpoint{state: s.node.name, input: rawInput, branches: checkpoints}
	if stopped {
		return nil, &interruption{reason: context.Cause(r.ctx), resume: here}
	}
	return nil, &failure{name: first.name, cause: first.cause, heartbeat: first.heartbeat, resume: here}
}
