package machines

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/turnstile-sfn/turnstile/asl"
)

// LockSpec is one of the locks of a semaphore that holds several (SemaphoreOptions.Locks):
// exactly one of LockName and LockNamePath, and its limit.
type LockSpec struct {
	// LockName is the lock's fixed name.
	LockName string
	// LockNamePath reads the lock's name from the execution input, e.g. "$.region": a "$."
	// path of plain field names, each optionally followed by array indexes ("$.jobs[0].db").
	LockNamePath string
	// Limit is the lock's limit, 1 to MaxLimit. Default: SemaphoreOptions.Limit.
	Limit int
}

// Names of the states of a semaphore with several locks (SemaphoreOptions.Locks). Inside the
// acquire Map each lock is taken with the single-lock states (StateTakeTicket, StateWaitInQueue,
// StateLeaveQueue, StateAcquireTimedOut); the work and the re-raise of its error are the
// single-lock machine's.
const (
	// StateCheckLockNames rejects an execution whose input lacks one of the lock names read from
	// it.
	StateCheckLockNames = "Check Lock Names"
	// StatePrepareLocks lists the execution's locks, sorted by name, each named once (JSONata).
	StatePrepareLocks = "Prepare Locks"
	// StateAcquireLocks takes the locks one after the other in that order (a Map of
	// concurrency 1), so that no two executions wait for each other in a cycle.
	StateAcquireLocks = "Acquire Locks"
	// StateLockTableErrorWhileAcquiring fails an acquire iteration with ErrorLockTable.
	StateLockTableErrorWhileAcquiring = "Lock Table Error While Acquiring"
	// StateReleaseLocks gives every lock back after the work succeeded.
	StateReleaseLocks = "Release Locks"
	// StateReleaseLocksAfterFailure gives every lock back (a lock not held is left alone) after
	// the work or an acquire failed.
	StateReleaseLocksAfterFailure = "Release Locks After Failure"
)

// lockPathSegment is one field of a LockSpec.LockNamePath, with its array indexes.
var lockPathSegment = regexp.MustCompile(`^[A-Za-z0-9_-]+(\[[0-9]+\])*$`)

// checkLocks checks Locks (already given their default limits), when set.
func (o SemaphoreOptions) checkLocks() *OptionError {
	if len(o.Locks) == 0 {
		return nil
	}
	bad := func(i int, field string, value any, problem string, kind error) *OptionError {
		return &OptionError{Field: fmt.Sprintf("Locks[%d].%s", i, field), Value: value, Problem: problem, Kind: kind}
	}
	switch {
	case o.LockName != "" || o.LockNamePath != "":
		return &OptionError{Field: "Locks", Value: fmt.Sprintf("%d locks", len(o.Locks)), Problem: "and LockName or LockNamePath are mutually exclusive; name every lock in Locks", Kind: ErrLockName}
	case o.Rate != nil:
		return &OptionError{Field: "Rate", Value: "set", Problem: "is not supported with Locks; remove it, or use a single lock", Kind: ErrRate}
	case o.TotalLimit != 0:
		return &OptionError{Field: "TotalLimit", Value: o.TotalLimit, Problem: "is not supported with Locks; name the total lock among Locks instead", Kind: ErrLimit}
	case o.PriorityPath != "":
		return &OptionError{Field: "PriorityPath", Value: strconv.Quote(o.PriorityPath), Problem: "is not supported with Locks; remove it, or use a single lock", Kind: ErrPriority}
	case o.WeightPath != "":
		return &OptionError{Field: "WeightPath", Value: strconv.Quote(o.WeightPath), Problem: "is not supported with Locks; remove it, or use a single lock", Kind: ErrWeight}
	}
	fixed := map[string]bool{}
	for i, l := range o.Locks {
		single := SemaphoreOptions{LockName: l.LockName, LockNamePath: l.LockNamePath, Limit: l.Limit}
		if err := single.checkLockName(); err != nil {
			err.Field = fmt.Sprintf("Locks[%d].%s", i, err.Field)
			return err
		}
		if err := single.checkLimit(); err != nil {
			err.Field = fmt.Sprintf("Locks[%d].%s", i, err.Field)
			err.Problem += " (or set SemaphoreOptions.Limit, its default)"
			return err
		}
		if l.LockNamePath != "" {
			if _, ok := jsonataInputPath(l.LockNamePath); !ok {
				return bad(i, "LockNamePath", strconv.Quote(l.LockNamePath), `must be a "$." path of plain field names and array indexes, such as "$.jobs[0].region"`, ErrLockNamePath)
			}
			continue
		}
		if fixed[l.LockName] {
			return bad(i, "LockName", strconv.Quote(l.LockName), "is named twice; name each fixed lock once", ErrLockName)
		}
		fixed[l.LockName] = true
	}
	return nil
}

// checkLocksTiming checks that an execution can wait AcquireTimeout for each of its Locks and
// still have time to run the work.
func (o SemaphoreOptions) checkLocksTiming() *OptionError {
	if n := len(o.Locks); o.AcquireTimeout*time.Duration(n) >= o.Timeout {
		return &OptionError{Field: "AcquireTimeout", Value: o.AcquireTimeout, Problem: fmt.Sprintf("times the %d locks (each waits up to AcquireTimeout) must be shorter than Timeout (%s)", n, o.Timeout), Kind: ErrTiming}
	}
	return nil
}

// jsonataInputPath turns a LockNamePath into the JSONata expression of the same value of the
// state input: "$.a.b[0]" → "$states.input.`a`.`b`[0]".
func jsonataInputPath(p string) (string, bool) {
	rest, ok := strings.CutPrefix(p, "$.")
	if !ok {
		return "", false
	}
	var b strings.Builder
	b.WriteString("$states.input")
	for _, seg := range strings.Split(rest, ".") {
		if !lockPathSegment.MatchString(seg) {
			return "", false
		}
		name, indexes, _ := strings.Cut(seg, "[")
		b.WriteString(".`" + name + "`")
		if indexes != "" {
			b.WriteString("[" + indexes)
		}
	}
	return b.String(), true
}

// jsonataString quotes s as a JSONata string literal that cannot end a "{% %}" template: "%"
// is written as its escape.
func jsonataString(s string) string {
	encoded, _ := json.Marshal(s) // a string always encodes
	return strings.ReplaceAll(string(encoded), "%", `\u0025`)
}

// multiSemaphore is Semaphore for options with Locks (validated, with defaults).
//
// The execution's data, from Prepare Locks on, is {"locks": [{"lockName", "limit"}, …]}, the
// locks sorted by name (a lock named twice is taken once, with the smaller limit), plus "work"
// or "workError" and "lockTableError" along the way.
//
// total, when set, adds the key's gate and the total lock of a TotalLimit after the key's lock
// (total.go): the gate is given back as soon as the total slot is taken.
func multiSemaphore(o SemaphoreOptions, total *totalCap) (*asl.StateMachine, error) {
	held := len(o.Locks)
	if total != nil {
		held++ // the total lock; the key's turn is given back before the work
	}
	o.Work = withSeveralLocksContext(o.Work, o, held)
	b := builder{o}
	var states asl.States
	start := StatePrepareLocks
	if paths := o.lockNamePaths(); len(paths) > 0 {
		start = StateCheckLockNames
		var reserved string
		if total != nil {
			reserved = total.name
		}
		states = append(states, checkLockNames(paths, reserved, StatePrepareLocks)...)
	}
	acquire := b.acquireLocks()
	states = append(states,
		asl.NamedState{Name: StatePrepareLocks, State: b.prepareLocks(total)},
		asl.NamedState{Name: StateAcquireLocks, State: acquire},
	)
	if total != nil {
		acquire.Transition = asl.Next(StateReleaseGate)
		states = append(states, b.releaseGate(StateRunWork)...)
	}
	states = append(states,
		asl.NamedState{Name: StateRunWork, State: b.runWork()},
		asl.NamedState{Name: StateReleaseLocks, State: b.releaseLocks(StateReleaseSlot, StateDone, false)},
		asl.NamedState{Name: StateDone, State: b.done()},
		asl.NamedState{Name: StateReleaseLocksAfterFailure, State: b.releaseLocks(StateReleaseAfterFailure, StateReraiseWorkError, true)},
		asl.NamedState{Name: StateReraiseWorkError, State: b.reraiseWorkError()},
		asl.NamedState{Name: StateWorkFailed, State: &asl.Fail{ErrorPath: "$.workError.Error", CausePath: "$.workError.Cause"}},
		asl.NamedState{Name: StateWorkFailedWithoutCause, State: &asl.Fail{ErrorPath: "$.workError.Error"}},
		asl.NamedState{Name: StateWorkFailedWithoutError, State: &asl.Fail{Error: ErrorWorkFailed, Cause: "the work failed with an error that has no name"}},
		asl.NamedState{Name: StateLockTableError, State: b.lockTableError()},
	)
	// The work's failure and an acquire's share the release and the re-raise.
	runWork := states.Get(StateRunWork).(*asl.Parallel)
	runWork.Transition = asl.Next(StateReleaseLocks)
	runWork.Catch[0].Next = StateReleaseLocksAfterFailure
	return b.machine(b.multiComment(total), start, states)
}

// lockNamePaths are the LockNamePaths of Locks, in order.
func (o SemaphoreOptions) lockNamePaths() []string {
	var paths []string
	for _, l := range o.Locks {
		if l.LockNamePath != "" {
			paths = append(paths, l.LockNamePath)
		}
	}
	return paths
}

func (b builder) multiComment(total *totalCap) string {
	names := make([]string, len(b.o.Locks))
	for i, l := range b.o.Locks {
		names[i] = strconv.Quote(l.LockName)
		if l.LockNamePath != "" {
			names[i] = "the one named by " + l.LockNamePath
		}
		names[i] += fmt.Sprintf(" (%d slots)", l.Limit)
	}
	if total != nil {
		return fmt.Sprintf("Turnstile semaphore: take a slot of the lock %s, then its key's turn, then one of the %d slots in all of the lock %q, run the work, give the slots back.",
			names[0], total.limit, total.name)
	}
	return "Turnstile semaphore: take a slot of each lock, " + strings.Join(names, ", ") + ", in the order of their names, run the work, give the slots back."
}

// checkLockNames returns the Choice that rejects inputs without a usable lock name at one of
// paths, or, when reserved is set, with a name that begins with it there, and its Fail state.
// Each path's rules are tested only if the ones before did not match, so IsString and
// StringEquals never see a missing value.
func checkLockNames(paths []string, reserved, next string) asl.States {
	var rules []*asl.ChoiceRule
	for _, p := range paths {
		for _, r := range []struct {
			op    asl.Operator
			value any
		}{{"IsPresent", false}, {"IsString", false}, {"StringEquals", ""}} {
			rules = append(rules, &asl.ChoiceRule{Variable: p, Operator: r.op, Value: r.value, Next: StateInvalidLockName})
		}
		if reserved != "" {
			pattern := strings.NewReplacer(`\`, `\\`, `*`, `\*`).Replace(reserved) + "*"
			rules = append(rules, &asl.ChoiceRule{Variable: p, Operator: "StringMatches", Value: pattern, Next: StateInvalidLockName})
		}
	}
	cause := "the execution input has no non-empty string at one of " + strings.Join(paths, ", ") + ", the lock names"
	if reserved != "" {
		cause = "the execution input has no non-empty string at " + strings.Join(paths, ", ") + ", the lock name, or one that begins with " + strconv.Quote(reserved) + ", the total lock's"
	}
	return asl.States{
		{Name: StateCheckLockNames, State: &asl.Choice{Choices: rules, Default: next}},
		{Name: StateInvalidLockName, State: &asl.Fail{Error: ErrorInvalidLockName, Cause: cause}},
	}
}

// locksExpression is the JSONata expression of the execution's locks, whose input is at input
// ("$states.input" or below): every LockSpec's {"lockName", "limit"} whose name is a non-empty
// string, sorted by name (then limit), each name once with its smallest limit. Its value is
// always an array ($append keeps a single lock one, and no lock an empty one). The locks of
// total, when set, come after them.
func locksExpression(specs []LockSpec, input string, total *totalCap) string {
	items := make([]string, len(specs))
	for i, l := range specs {
		name := jsonataString(l.LockName)
		if l.LockNamePath != "" {
			path, _ := jsonataInputPath(l.LockNamePath) // checked by checkLocks
			name = input + strings.TrimPrefix(path, "$states.input")
		}
		items[i] = fmt.Sprintf(`{"lockName": %s, "limit": %d}`, name, l.Limit)
	}
	tail := "[]"
	if total != nil {
		tail = total.locks(input)
	}
	return "{% ($all := $append([], $filter([" + strings.Join(items, ", ") + `], function($v) { $type($v.lockName) = "string" and $v.lockName != "" }));` +
		" $sorted := $sort($all, function($l, $r) { $l.lockName > $r.lockName or ($l.lockName = $r.lockName and $l.limit > $r.limit) });" +
		" $append($append([], $filter($sorted, function($v, $i) { $i = 0 or $v.lockName != $sorted[$i - 1].lockName })), " + tail + ")) %}"
}

// prepareLocks replaces the execution's data with its locks (locksExpression).
func (b builder) prepareLocks(total *totalCap) *asl.Pass {
	return &asl.Pass{
		Common:     asl.Common{QueryLanguage: asl.QueryLanguageJSONata, Output: map[string]any{"locks": locksExpression(b.o.Locks, "$states.input", total)}},
		Transition: asl.Next(StateAcquireLocks),
	}
}

// lockItems is the ItemSelector of a Map over $.locks: each iteration's data is its lock.
func lockItems() map[string]any {
	return map[string]any{"lockName.$": "$$.Map.Item.Value.lockName", "limit.$": "$$.Map.Item.Value.limit"}
}

// withLimitFromData makes a hand-off task read its lock's limit from the data ($.limit).
func withLimitFromData(t *asl.Task) *asl.Task {
	payload := t.Parameters.(map[string]any)["Payload"].(map[string]any)
	delete(payload, "limit")
	payload["limit.$"] = "$.limit"
	return t
}

// acquireLocks takes the locks one after the other, in the order of $.locks, each with the
// single-lock Callback states; an iteration that fails (acquire timeout, lock table error)
// fails the Map, whose catch gives back the locks taken before it.
func (b builder) acquireLocks() *asl.Map {
	items := lockItems()
	var graph asl.Graph
	if b.o.WaitStrategy == WaitPoll {
		items["waitedSeconds"] = 0
		graph = b.pollAcquire()
	} else {
		wait := withLimitFromData(b.waitInQueue())
		wait.Transition = asl.End()
		wait.Catch[1].Next = StateLockTableErrorWhileAcquiring
		take := b.ref().drawTicketTask(StateWaitInQueue)
		take.Catch[0].Next = StateLockTableErrorWhileAcquiring
		graph = asl.Graph{StartAt: StateTakeTicket, States: asl.States{
			{Name: StateTakeTicket, State: take},
			{Name: StateWaitInQueue, State: wait},
			{Name: StateLeaveQueue, State: withLimitFromData(b.leaveQueue())},
			{Name: StateAcquireTimedOut, State: b.acquireTimedOut()},
			{Name: StateLockTableErrorWhileAcquiring, State: b.lockTableError()},
		}}
	}
	return &asl.Map{
		Transition:   asl.Next(StateRunWork),
		ItemsPath:    asl.P("$.locks"),
		ItemSelector: items,
		ItemProcessor: &asl.ItemProcessor{
			ProcessorConfig: &asl.ProcessorConfig{Mode: "INLINE"},
			Graph:           graph,
		},
		MaxConcurrency: asl.Int(1),
		ResultPath:     asl.NullPath(),
		Catch:          []*asl.Catcher{{ErrorEquals: []string{asl.ErrorAll}, Next: StateReleaseLocksAfterFailure, ResultPath: asl.P("$.workError")}},
	}
}

// releaseLocks gives every lock of $.locks back through the hand-off function (a lock the
// execution does not hold is left alone), all at once, then goes to next. The iteration's task
// is named task. After a failure (afterFailure) any error goes on to re-raise the failure: the
// cleanup frees what is left.
func (b builder) releaseLocks(task, next string, afterFailure bool) *asl.Map {
	release := withLimitFromData(b.handOff(next, afterFailure))
	release.Transition = asl.End()
	release.Catch = nil
	graph := asl.Graph{StartAt: task, States: asl.States{{Name: task, State: release}}}
	switch {
	case b.o.WaitStrategy == WaitPoll && afterFailure:
		graph = b.pollReleaseAfterFailure()
	case b.o.WaitStrategy == WaitPoll:
		graph = pollRelease(b.ref(), task)
	}
	catch := []*asl.Catcher{{ErrorEquals: []string{ErrorLockTable}, Next: StateLockTableError, ResultPath: asl.P("$.lockTableError")}}
	if afterFailure {
		catch = []*asl.Catcher{{ErrorEquals: []string{asl.ErrorAll}, Next: next, ResultPath: asl.NullPath()}}
	}
	return &asl.Map{
		Transition:   asl.Next(next),
		ItemsPath:    asl.P("$.locks"),
		ItemSelector: lockItems(),
		ItemProcessor: &asl.ItemProcessor{
			ProcessorConfig: &asl.ProcessorConfig{Mode: "INLINE"},
			Graph:           graph,
		},
		ResultPath: asl.NullPath(),
		Catch:      catch,
	}
}

// Names of the states of the cleanup machine and the redrive guard of a semaphore with several
// locks.
const (
	// StateReadLocks parses the dead execution's input.
	StateReadLocks = "Read Locks"
	// StateReleaseHolders releases the execution's holder of each of its locks (a Map).
	StateReleaseHolders = "Release Holders"
)

// multiCleanup is Cleanup for options with Locks (validated): every lock the execution's input
// names is released through the hand-off function, which leaves a lock the execution does not
// hold alone; a dead execution holding some of its locks gets each of them freed.
//
// total, when set, adds the key's gate and the total lock of a TotalLimit.
func multiCleanup(o CleanupOptions, total *totalCap) (*asl.StateMachine, error) {
	release := &asl.Task{
		Transition: asl.End(),
		Resource:   ResourceLambdaInvoke,
		Parameters: map[string]any{
			"FunctionName": o.HandOffFunctionArn,
			"Payload": map[string]any{
				"action":         HandOffActionRelease,
				"lockName.$":     "$.lockName",
				"limit.$":        "$.limit",
				"executionArn.$": "$.executionArn",
				"ifHeld":         true,
			},
		},
		ResultPath: asl.NullPath(),
		Retry:      handOffRetry(),
	}
	graph := asl.Graph{StartAt: StateReleaseHolder, States: asl.States{{Name: StateReleaseHolder, State: release}}}
	if o.HandOffFunctionArn == "" {
		graph = pollRelease(cleanupRef(o), StateReleaseHolder)
	}
	items := lockItems()
	items["executionArn.$"] = "$.executionArn"
	states := append(describedExecution(StateStillRunning, StateNothingToRelease, StateReadLocks), asl.States{
		{Name: StateNothingToRelease, State: &asl.Succeed{}},
		{Name: StateReadLocks, State: &asl.Pass{
			Transition: asl.Next(StatePrepareLocks),
			Parameters: map[string]any{"executionArn.$": "$.execution.executionArn", "input.$": "States.StringToJson($.execution.input)"},
		}},
		{Name: StatePrepareLocks, State: &asl.Pass{
			Common: asl.Common{QueryLanguage: asl.QueryLanguageJSONata, Output: map[string]any{
				"executionArn": "{% $states.input.executionArn %}",
				"locks":        locksExpression(o.Locks, "$states.input.input", total),
			}},
			Transition: asl.Next(StateReleaseHolders),
		}},
		{Name: StateReleaseHolders, State: &asl.Map{
			Transition:   asl.Next(StateReleased),
			ItemsPath:    asl.P("$.locks"),
			ItemSelector: items,
			ItemProcessor: &asl.ItemProcessor{
				ProcessorConfig: &asl.ProcessorConfig{Mode: "INLINE"},
				Graph:           graph,
			},
			ResultPath: asl.NullPath(),
			Catch:      []*asl.Catcher{{ErrorEquals: []string{ErrorLockTable}, Next: StateLockTableError, ResultPath: asl.P("$.lockTableError")}},
		}},
		{Name: StateReleased, State: &asl.Succeed{}},
		{Name: StateLockTableError, State: &asl.Fail{Error: ErrorLockTable, CausePath: "$.lockTableError.Cause"}},
	}...)
	m := &asl.StateMachine{
		Comment: fmt.Sprintf("Turnstile cleanup: free the slots of the %d locks held by an execution that ended without releasing them.", len(o.Locks)),
		StartAt: StateCheckEvent,
		States:  states,
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("machines: the cleanup machine is invalid: %w", err)
	}
	return m, nil
}

// multiRedriveGuard is RedriveGuard for options with Locks: it stops every redriven execution
// that is RUNNING, since its locks cannot be taken back in order from where it resumes; the
// stop's status-change event then has the cleanup free whatever it still holds.
func multiRedriveGuard(o CleanupOptions) (*asl.StateMachine, error) {
	stop := stopRedriven(o)
	stop.Parameters.(map[string]any)["ExecutionArn.$"] = "$.execution.executionArn"
	stop.Parameters.(map[string]any)["Cause"] = fmt.Sprintf("the execution was redriven, and a semaphore with %d locks cannot take them back for it in order: "+
		"it was stopped so that its work does not run without its slots, and the cleanup frees what it held; start a new execution instead", len(o.Locks))
	states := append(describedExecution(StateStillRunningGuard, StateStopRedriven, StateNotRunning),
		asl.NamedState{Name: StateNotRunning, State: &asl.Succeed{}},
		asl.NamedState{Name: StateStopRedriven, State: stop},
		asl.NamedState{Name: StateStopped, State: &asl.Succeed{}},
	)
	m := &asl.StateMachine{
		Comment: fmt.Sprintf("Turnstile redrive guard: a redriven execution of a semaphore with %d locks is stopped.", len(o.Locks)),
		StartAt: StateCheckEvent,
		States:  states,
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("machines: the redrive guard is invalid: %w", err)
	}
	return m, nil
}

// validateLocks checks the Locks of cleanup options (the semaphore's, already checked by
// Semaphore) and gives each its default limit.
func (o CleanupOptions) validateLocks() (CleanupOptions, error) {
	if o.TableName == "" {
		o.TableName = Placeholder(SubstitutionTableName)
	}
	sem := SemaphoreOptions{Locks: o.Locks, LockName: o.LockName, LockNamePath: o.LockNamePath, Limit: o.Limit}.withDefaults()
	if err := sem.checkLocks(); err != nil {
		err.Options = "CleanupOptions"
		return o, err
	}
	o.Locks = sem.Locks
	return o, nil
}
