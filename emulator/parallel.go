package emulator

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/turnstile-sfn/turnstile/asl"
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
		if _, ok := r.ex.emit(r.prev, r.now(), sfnapi.EventParallelStateSucceeded, nil); !ok {
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
	// tolerate reports whether the state tolerates failed flows, given how many have failed
	// so far; nil tolerates none. A tolerated flow's output is its error output, and the
	// first failure not tolerated fails the state with States.ExceedToleratedFailureThreshold.
	tolerate func(failed int) bool
}

// flowResult is how one flow ended.
type flowResult struct {
	output any
	err    error
	ran    bool
	last   int64 // id of the flow's last event
}

// runFlows runs the flows concurrently (at most fs.limit at once; 0 means no limit) and returns
// their outputs in order. The first failure (the first not tolerated, see flowSet.tolerate)
// cancels the other flows and is returned with a checkpoint of every flow, so that a redrive
// reruns only the unfinished ones and the failed ones. Flows already done in a previous run
// (fs.resume) are not run again. Each flow that ends starts the next one
// waiting for a slot, and the last one wakes this flow, so that the clock sees no idle moment.
func (r *runner) runFlows(s *stateRun, rawInput any, fs flowSet) ([]any, error) {
	ctx, cancel := context.WithCancelCause(r.ctx)
	defer cancel(errEnded)
	clock := r.ex.em.clock
	results := make([]flowResult, fs.n)
	var pending []int
	for i := 0; i < fs.n; i++ {
		if i < len(fs.resume) && fs.resume[i] != nil && fs.resume[i].done {
			results[i] = flowResult{output: fs.resume[i].output, ran: true}
			continue
		}
		pending = append(pending, i)
	}
	var (
		mu       sync.Mutex
		next     int      // index in pending of the next flow to start
		running  = 1      // the flows running, and this one until it has started the first ones
		first    *failure // the first flow to fail that fails the state
		failures int      // the flows that failed
	)
	allDone := clock.NewSignal()
	var startNext func() bool
	runOne := func(i int) {
		br := r.fork(ctx, fmt.Sprintf(fs.keyFormat, s.node.name, i), fs.parentID)
		var from *checkpoint
		if i < len(fs.resume) && fs.resume[i] != nil {
			from = fs.resume[i].resume
		}
		out, err := fs.run(br, i, from)
		var f *failure
		failed := errors.As(err, &f)
		mu.Lock()
		if failed {
			failures++
			if fs.tolerate != nil {
				out = f.errorOutput()
				if !fs.tolerate(failures) {
					f = &failure{name: asl.ErrorExceedToleratedFail, cause: toleratedFailureCause}
				} else {
					f = nil
				}
			}
		}
		results[i] = flowResult{output: out, err: err, ran: true, last: br.prev}
		if f != nil && first == nil {
			first = f
			mu.Unlock()
			cancel(errSiblingFailed)
			clock.interrupt()
		} else {
			mu.Unlock()
		}
		startNext()
		mu.Lock()
		running--
		last := running == 0
		mu.Unlock()
		if last {
			allDone.Fire()
		}
	}
	startNext = func() bool {
		mu.Lock()
		if next >= len(pending) || ctx.Err() != nil {
			mu.Unlock()
			return false
		}
		i := pending[next]
		next++
		running++
		mu.Unlock()
		clock.Go(func() { runOne(i) })
		return true
	}
	limit := fs.limit
	if limit <= 0 || limit > len(pending) {
		limit = len(pending)
	}
	for started := 0; started < limit && startNext(); started++ {
	}
	mu.Lock()
	running--
	wait := running > 0
	mu.Unlock()
	if wait {
		_ = allDone.Wait(context.Background())
	}
	// Each flow has its own chain of previousEventId; the state's next event follows the last
	// event of its own flows, not an event a sibling branch of an enclosing Parallel recorded
	// meanwhile.
	outputs := make([]any, fs.n)
	for i, res := range results {
		outputs[i] = res.output
		r.prev = max(r.prev, res.last)
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
