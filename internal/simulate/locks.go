package simulate

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/lambdas/testrunner/runner"
)

// LockFigures is what a run measured of one lock of a semaphore with several locks or a total
// cap.
type LockFigures struct {
	// Limit is the lock's limit.
	Limit int `json:"limit"`
	// Executions counts the executions whose locks include this one.
	Executions int `json:"executions"`
	// MaxConcurrentWork is the most executions holding this lock inside the work at once.
	MaxConcurrentWork int `json:"maxConcurrentWork"`
	// WorkSeconds is the work time of the executions holding this lock.
	WorkSeconds float64 `json:"workSeconds"`
}

// lockFigures reads each execution's input and lists its locks as the machine does
// (machines.InputLocks.Locks), then measures every lock over the executions that hold it. An
// execution the machine refused for its lock names (machines.ErrInputLockName) holds none. A
// total cap's gates (machines.LockRef.Gate) are left out: they are given back before the work.
func lockFigures(ctx context.Context, api runner.StepFunctions, locks machines.InputLocks, traces []*runner.Trace) (map[string]LockFigures, error) {
	holding := map[string][]*runner.Trace{}
	figures := map[string]LockFigures{}
	for _, t := range traces {
		out, err := api.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: aws.String(t.ExecutionArn)})
		if err != nil {
			return nil, fmt.Errorf("simulate: read the input of %s: %w", t.ExecutionArn, err)
		}
		refs, err := locks.Locks(aws.ToString(out.Input))
		if errors.Is(err, machines.ErrInputLockName) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("simulate: the locks of %s: %w", t.ExecutionArn, err)
		}
		for _, l := range refs {
			if l.Gate {
				continue
			}
			f := figures[l.Name]
			if f.Limit == 0 || l.Limit < f.Limit {
				f.Limit = l.Limit
			}
			f.Executions++
			if t.Worked() {
				f.WorkSeconds += t.WorkEnded.Sub(t.WorkStarted).Seconds()
			}
			figures[l.Name] = f
			holding[l.Name] = append(holding[l.Name], t)
		}
	}
	for name, ts := range holding {
		f := figures[name]
		f.MaxConcurrentWork = runner.MaxOverlap(ts)
		figures[name] = f
	}
	return figures, nil
}

// bottleneckSeconds is the longest work time over limit of any lock: no schedule ends sooner.
func bottleneckSeconds(figures map[string]LockFigures) float64 {
	longest := 0.0
	for _, f := range figures {
		longest = max(longest, f.WorkSeconds/float64(f.Limit))
	}
	return longest
}

// lockViolations lists the locks that had more executions inside the work at once than their
// limit.
func lockViolations(figures map[string]LockFigures) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(figures)) {
		if f := figures[name]; f.MaxConcurrentWork > f.Limit {
			out = append(out, fmt.Sprintf("%d executions holding the lock %q were inside the work at once, above its limit of %d", f.MaxConcurrentWork, name, f.Limit))
		}
	}
	return out
}
