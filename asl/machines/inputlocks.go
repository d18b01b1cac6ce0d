package machines

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	jsonata "github.com/xiatechs/jsonata-go"

	"github.com/turnstile-sfn/turnstile/asl"
)

// Reading, outside the machine, the locks a semaphore with several locks
// (SemaphoreOptions.Locks) or a total cap (SemaphoreOptions.TotalLimit) takes for an execution
// input, in the order it takes them. The first is the lock a submission (lock.SubmitRequest) of
// that input waits for: its execution then starts holding that lock and waits for the others in
// flight, in the machine's order, as any execution does.

// ErrInputLockName: the execution input has no non-empty string at one of the machine's lock
// name paths, or, with a total cap, one that begins with the total lock's name (the machine's
// Check Lock Names fails such an execution with ErrorInvalidLockName); fix the input.
var ErrInputLockName = errors.New("the execution input has no usable lock name")

// InputLocks is what a semaphore machine with several locks or a total cap reads of each input
// to list its locks: the JSONata expression of its Prepare Locks state, and the checks of its
// Check Lock Names state. Its Locks gives an input's locks, For the first of them. The zero
// value is no such machine.
type InputLocks struct {
	// locks is Prepare Locks' expression of the execution's locks, without "{%" and "%}".
	locks string
	// paths are the lock name paths Check Lock Names tests, in order.
	paths []string
	// reserved is the prefix of names Check Lock Names refuses (the total lock's), or "".
	reserved string
}

// SemaphoreInputLocks reads back what a semaphore machine Semaphore generated with several locks
// or a total cap reads of each input to list its locks. ok is false for any other machine (a
// single lock: SemaphoreLockName, SemaphoreLockNamePath; the cleanup machine, which lists the
// same locks but runs no work).
func SemaphoreInputLocks(m *asl.StateMachine) (f InputLocks, ok bool) {
	if m.States.Get(StateRunWork) == nil {
		return InputLocks{}, false
	}
	prepare, isPass := m.States.Get(StatePrepareLocks).(*asl.Pass)
	if !isPass {
		return InputLocks{}, false
	}
	output, _ := prepare.Output.(map[string]any)
	expr, _ := output["locks"].(string)
	if !asl.IsExpression(expr) {
		return InputLocks{}, false
	}
	f.locks = strings.TrimSpace(expr[2 : len(expr)-2])
	check, _ := m.States.Get(StateCheckLockNames).(*asl.Choice)
	if check == nil {
		return f, true
	}
	for _, rule := range check.Choices {
		if rule.Operator == "StringMatches" {
			pattern, _ := rule.Value.(string)
			f.reserved = strings.NewReplacer(`\\`, `\`, `\*`, `*`).Replace(strings.TrimSuffix(pattern, "*"))
		}
		if rule.Variable != "" && !slices.Contains(f.paths, rule.Variable) {
			f.paths = append(f.paths, rule.Variable)
		}
	}
	return f, true
}

// LockRef is one lock an execution takes: its name and its limit.
type LockRef struct {
	// Name is the lock's name.
	Name string
	// Limit is the lock's limit.
	Limit int
	// Gate is true for the key's gate of a semaphore with a total cap (a lock of limit 1 named
	// after the total lock and the key), which the execution gives back as soon as it holds a
	// slot of the total lock: it orders the total lock's queue and is not held during the work.
	Gate bool
}

// Paths returns the lock name paths the machine reads from each input, in the order its Check
// Lock Names tests them (with a total cap, its LockNamePath); none when every lock has a fixed
// name.
func (f InputLocks) Paths() []string { return slices.Clone(f.paths) }

// For returns the first lock the machine takes for the execution input (JSON text) and that
// lock's limit: the first of Locks. An input the machine's Check Lock Names refuses gives
// ErrInputLockName.
func (f InputLocks) For(input string) (lockName string, limit int, err error) {
	locks, err := f.Locks(input)
	if err != nil {
		return "", 0, err
	}
	return locks[0].Name, locks[0].Limit, nil
}

// Locks returns every lock the machine takes for the execution input (JSON text), in the order
// it takes them (sorted by name, each named once; with a total cap, the key's lock and the total
// lock), evaluating the machine's own Prepare Locks expression. An input the machine's Check
// Lock Names refuses gives ErrInputLockName.
func (f InputLocks) Locks(input string) ([]LockRef, error) {
	if f.locks == "" {
		return nil, errors.New("machines: InputLocks is the zero value; read it with SemaphoreInputLocks")
	}
	var doc any
	if input == "" {
		input = "{}"
	}
	if err := json.Unmarshal([]byte(input), &doc); err != nil {
		return nil, fmt.Errorf("the execution input is not JSON: %w", err)
	}
	for _, p := range f.paths {
		path, ok := jsonataInputPath(p)
		if !ok {
			return nil, fmt.Errorf("machines: the lock name path %q cannot be read outside the machine", p)
		}
		v, err := evalOnInput(path, doc)
		name, isString := v.(string)
		switch {
		case err != nil && !errors.Is(err, jsonata.ErrUndefined):
			return nil, fmt.Errorf("machines: read %s: %w", p, err)
		case !isString || name == "":
			return nil, fmt.Errorf("%w: %s is %s, not a non-empty string", ErrInputLockName, p, describe(v))
		case f.reserved != "" && strings.HasPrefix(name, f.reserved):
			return nil, fmt.Errorf("%w: %s is %q, which begins with %q, the total lock's name", ErrInputLockName, p, name, f.reserved)
		}
	}
	v, err := evalOnInput(f.locks, doc)
	if err != nil {
		return nil, fmt.Errorf("machines: evaluate the machine's locks: %w", err)
	}
	list, _ := v.([]any)
	if len(list) == 0 {
		return nil, fmt.Errorf("%w: the input names no lock", ErrInputLockName)
	}
	locks := make([]LockRef, len(list))
	for i, item := range list {
		l, _ := item.(map[string]any)
		name, _ := l["lockName"].(string)
		n, whole := wholeNumber(l["limit"])
		if name == "" || !whole || n < 1 {
			return nil, fmt.Errorf("machines: the machine's lock %d is %v, not a name and a limit", i, item)
		}
		locks[i] = LockRef{Name: name, Limit: int(n), Gate: f.reserved != "" && strings.HasPrefix(name, f.reserved+"#")}
	}
	return locks, nil
}

// describe names a value read from the input for an error: "absent" when there is none.
func describe(v any) string {
	if v == nil {
		return "absent or null"
	}
	raw, _ := json.Marshal(v)
	return string(raw)
}

// evalOnInput evaluates a JSONata expression with $states.input bound to doc (decoded by
// encoding/json), as a JSONata state sees its input.
func evalOnInput(expr string, doc any) (any, error) {
	e, err := jsonata.Compile(expr)
	if err != nil {
		return nil, err
	}
	if err := e.RegisterVars(map[string]any{"states": map[string]any{"input": doc}}); err != nil {
		return nil, err
	}
	return e.Eval(doc)
}

// SemaphoreParks reports whether a semaphore machine Semaphore generated parks its waiters
// (WaitCallback): it has a Wait In Queue state, at the top or inside its Acquire Locks Map.
// Only such a machine's releases start submissions.
func SemaphoreParks(m *asl.StateMachine) bool {
	if m.States.Get(StateWaitInQueue) != nil {
		return true
	}
	acquire, ok := m.States.Get(StateAcquireLocks).(*asl.Map)
	return ok && acquire.ItemProcessor != nil && acquire.ItemProcessor.Graph.States.Get(StateWaitInQueue) != nil
}
