package emulator

import (
	"errors"
	"fmt"

	"github.com/turnstile-sfn/turnstile/emulator/sfnapi"
)

// maxInlineConcurrency is how many iterations of an inline Map run at once when MaxConcurrency
// is 0 (unbounded): AWS runs up to 40.
const maxInlineConcurrency = 40

// mapState runs an inline Map state: its item processor once per element of the items array,
// at most MaxConcurrency at a time; the result is the array of the iterations' outputs.
func (r *runner) mapState(s *stateRun, input any, resume []*branchCheckpoint) (any, string, error) {
	ms := s.node.mapSpec
	effective, err := r.applyInputPath(s, input)
	if err != nil {
		return nil, "", err
	}
	var (
		items     []any
		limit     int
		tolerance failureTolerance
	)
	if s.node.jsonata == nil {
		// JSONPath: ItemsPath, MaxConcurrencyPath and the ToleratedFailure*Path fields fail the
		// state before its attempts; a JSONata state evaluates Items, MaxConcurrency and the
		// ToleratedFailure* fields in each attempt, whose failure Retry and Catch handle.
		if items, err = r.mapItems(s, effective); err != nil {
			return nil, "", err
		}
		if limit, err = r.maxConcurrency(s, effective); err != nil {
			return nil, "", err
		}
		if tolerance, err = r.failureTolerance(s, effective); err != nil {
			return nil, "", err
		}
	}
	return r.withRetry(s, input, func() (any, error) {
		if s.node.jsonata != nil {
			if items, err = r.jsonataItems(s, effective); err != nil {
				return nil, err
			}
			if limit, err = r.maxConcurrency(s, effective); err != nil {
				return nil, err
			}
			if tolerance, err = r.failureTolerance(s, effective); err != nil {
				return nil, err
			}
		}
		if limit == 0 {
			limit = maxInlineConcurrency
		}
		startedID, ok := r.emit(sfnapi.EventMapStateStarted, func(e *HistoryEvent) {
			e.MapStateStartedEventDetails = &sfnapi.MapStateStartedEventDetails{Length: int32(len(items))}
		})
		if !ok {
			return nil, r.interrupted()
		}
		outputs, err := r.runFlows(s, input, flowSet{
			n: len(items), limit: limit, parentID: startedID, resume: resume, keyFormat: "/%s[%d]",
			tolerate: tolerance.tolerates(len(items)),
			run: func(ir *runner, i int, from *checkpoint) (any, error) {
				return ir.iteration(s, ms, effective, items[i], i, from)
			},
		})
		resume = nil
		if err != nil {
			return nil, err
		}
		if _, ok := r.emit(sfnapi.EventMapStateSucceeded, nil); !ok {
			return nil, r.interrupted()
		}
		selected, err := r.applyResultSelector(s, outputs)
		if err != nil {
			return nil, err
		}
		return r.finishResult(s, input, selected)
	}, func() { r.emit(sfnapi.EventMapStateFailed, nil) })
}

// iteration runs one iteration of a Map state; r is the iteration's own runner.
func (r *runner) iteration(s *stateRun, ms *mapSpec, effective, item any, index int, from *checkpoint) (any, error) {
	details := func() *sfnapi.MapIterationEventDetails {
		return &sfnapi.MapIterationEventDetails{Name: s.node.name, Index: int32(index)}
	}
	if _, ok := r.emit(sfnapi.EventMapIterationStarted, func(e *HistoryEvent) {
		e.MapIterationStartedEventDetails = details()
	}); !ok {
		return nil, r.interrupted()
	}
	itemInput := item
	visit := &stateRun{node: s.node, enteredID: s.enteredID, enteredTime: s.enteredTime, mapItem: &mapItem{index: index, value: item}}
	switch {
	case s.node.jsonata != nil && s.node.jsonata.itemSelector != nil:
		v, err := r.newJSONataEnv(visit, effective).evaluate(s.node.jsonata.itemSelector, "ItemSelector")
		if err != nil {
			return nil, err
		}
		itemInput = v
	case ms.itemSelector != nil:
		v, err := r.evaluateTemplate(visit, ms.itemSelector, effective)
		if err != nil {
			return nil, err
		}
		itemInput = v
	}
	out, err := r.runGraph(ms.processor, itemInput, from)
	var f *failure
	switch {
	case err == nil:
		r.emit(sfnapi.EventMapIterationSucceeded, func(e *HistoryEvent) { e.MapIterationSucceededEventDetails = details() })
	case errors.As(err, &f):
		r.emit(sfnapi.EventMapIterationFailed, func(e *HistoryEvent) { e.MapIterationFailedEventDetails = details() })
	default:
		r.emit(sfnapi.EventMapIterationAborted, func(e *HistoryEvent) { e.MapIterationAbortedEventDetails = details() })
	}
	return out, err
}

// mapItems selects the items array with ItemsPath.
func (r *runner) mapItems(s *stateRun, effective any) ([]any, error) {
	ms := s.node.mapSpec
	v, err := r.selectPath(s, ms.itemsPath, effective)
	if err != nil {
		return nil, err
	}
	items, ok := v.([]any)
	if !ok {
		path := "$"
		if ms.itemsPath != nil && ms.itemsPath.path != nil {
			path = ms.itemsPath.path.Text
		}
		return nil, s.runtimeError(fmt.Sprintf("Map state input must be an array, but the ItemsPath '%s' references: %s", path, encodeJSON(v)))
	}
	return items, nil
}

// maxConcurrency resolves MaxConcurrency or MaxConcurrencyPath.
func (r *runner) maxConcurrency(s *stateRun, effective any) (int, error) {
	ms := s.node.mapSpec
	if js := s.node.jsonata; js != nil && js.maxConcurrency != nil {
		n, err := r.jsonataInteger(s, effective, js.maxConcurrency, "MaxConcurrency")
		return int(n), err
	}
	p := ms.maxConcurrencyPath
	if p == nil {
		return ms.maxConcurrency, nil
	}
	v, ok := p.Get(effective, r.pathRoot(s, p))
	if !ok {
		return 0, s.invalidPathError(p)
	}
	n, ok := toInteger(v)
	if !ok || n < 0 {
		return 0, s.runtimeError(fmt.Sprintf("The MaxConcurrencyPath field refers to value \"%s\" which is not a valid integer: %s", describeValue(v), p.Text))
	}
	return int(n), nil
}

// toleratedFailureCause is the cause of States.ExceedToleratedFailureThreshold.
const toleratedFailureCause = "The specified tolerated failure threshold was exceeded"

// failureTolerance is a Map state's tolerated failure threshold: ToleratedFailureCount and
// ToleratedFailurePercentage, which AWS accepts on an inline Map too. The Developer Guide
// ("Tolerated failure threshold for Distributed Map state") defines them: the state fails with
// States.ExceedToleratedFailureThreshold when more items fail than the count, or when the failed
// items' share of all items exceeds the percentage (0 to 100); with both, when either is
// exceeded. Without either, the first failed iteration fails the state with its own error, as an
// inline Map does.
type failureTolerance struct {
	count      *int64
	percentage *float64
}

// tolerates returns the flowSet.tolerate function for a Map of total items, nil when the state
// sets no threshold. An inline Map has no child execution whose description could stand for a
// tolerated failed item, so the item's result is its error output ({"Error", "Cause"}).
func (ft failureTolerance) tolerates(total int) func(failed int) bool {
	if ft.count == nil && ft.percentage == nil {
		return nil
	}
	return func(failed int) bool {
		if ft.count != nil && int64(failed) > *ft.count {
			return false
		}
		return ft.percentage == nil || float64(failed)*100 <= *ft.percentage*float64(total)
	}
}

// failureTolerance resolves ToleratedFailureCount and ToleratedFailurePercentage: JSONata
// templates in a JSONata state, numbers or their *Path fields in a JSONPath one.
func (r *runner) failureTolerance(s *stateRun, effective any) (failureTolerance, error) {
	var ft failureTolerance
	ms := s.node.mapSpec
	if js := s.node.jsonata; js != nil {
		if js.toleratedFailureCount != nil {
			n, err := r.jsonataInteger(s, effective, js.toleratedFailureCount, "ToleratedFailureCount")
			if err != nil {
				return ft, err
			}
			ft.count = &n
		}
		if js.toleratedFailurePercentage != nil {
			v, err := r.newJSONataEnv(s, effective).evaluate(js.toleratedFailurePercentage, "ToleratedFailurePercentage")
			if err != nil {
				return ft, err
			}
			p, ok := percentage(v)
			if !ok {
				return ft, r.queryFailure(s, "ToleratedFailurePercentage", fmt.Sprintf("The ToleratedFailurePercentage field must be a number between 0 and 100, but was: %s", encodeJSON(v)))
			}
			ft.percentage = &p
		}
		return ft, nil
	}
	ft.count, ft.percentage = ms.toleratedFailureCount, ms.toleratedFailurePercentage
	if p := ms.toleratedFailureCountPath; p != nil {
		v, ok := p.Get(effective, r.pathRoot(s, p))
		if !ok {
			return ft, s.invalidPathError(p)
		}
		n, ok := toInteger(v)
		if !ok || n < 0 {
			return ft, s.runtimeError(fmt.Sprintf("The ToleratedFailureCountPath field refers to value \"%s\" which is not a valid integer: %s", describeValue(v), p.Text))
		}
		ft.count = &n
	}
	if p := ms.toleratedFailurePercentagePath; p != nil {
		v, ok := p.Get(effective, r.pathRoot(s, p))
		if !ok {
			return ft, s.invalidPathError(p)
		}
		pct, ok := percentage(v)
		if !ok {
			return ft, s.runtimeError(fmt.Sprintf("The ToleratedFailurePercentagePath field refers to value \"%s\" which is not a number between 0 and 100: %s", describeValue(v), p.Text))
		}
		ft.percentage = &pct
	}
	return ft, nil
}

// percentage reads a tolerated failure percentage: a number from 0 to 100.
func percentage(v any) (float64, bool) {
	f, ok := toFloat(v)
	return f, ok && f >= 0 && f <= 100
}
