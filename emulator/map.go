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
	var items []any
	limit := 0
	if s.node.jsonata == nil {
		// JSONPath: ItemsPath and MaxConcurrencyPath fail the state before its attempts; a
		// JSONata state evaluates Items and MaxConcurrency in each attempt, whose failure
		// Retry and Catch handle.
		if items, err = r.mapItems(s, effective); err != nil {
			return nil, "", err
		}
		if limit, err = r.maxConcurrency(s, effective); err != nil {
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
