package emulator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/emulator/jsonvalue"
	"github.com/turnstile-sfn/turnstile/emulator/sfnapi"
)

// conformanceDir holds the cases recorded against AWS Step Functions (see its README).
const conformanceDir = "../../shared/conformance/aws-recorded"

// conformanceCase is one recorded case.
type conformanceCase struct {
	ID         string          `json:"id"`
	Source     string          `json:"source"`
	Definition json.RawMessage `json:"definition"`
	Input      json.RawMessage `json:"input"`
	Expected   struct {
		Status string           `json:"status"`
		Output json.RawMessage  `json:"output"`
		Error  *string          `json:"error"`
		Cause  *string          `json:"cause"`
		States []map[string]any `json:"states"`
	} `json:"expected"`
}

// TestConformance runs every recorded case, one subtest group per folder, and compares status,
// output, error and cause exactly (numbers by value), the output's object member order, plus the
// state-level history of the cases without Parallel or Map states.
func TestConformance(t *testing.T) {
	em := New(Options{Clock: NewScaledClock(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), 0)})
	defer em.Close()
	passed, total, summary := forEachCase(t, conformanceDir, func(t *testing.T, c conformanceCase) bool {
		return t.Run(c.ID, func(t *testing.T) { runCase(t, em, c) })
	})
	t.Logf("conformance: %d/%d passed (%s)", passed, total, summary)
}

// forEachCase runs check on every case of the corpus in dir, one subtest group per folder, and
// returns how many checks reported a pass, how many cases there were, and a per-group summary.
// It skips the test with a message when dir is absent, as it is in a user's clone, and fails it
// when dir holds no case.
func forEachCase(t *testing.T, dir string, check func(t *testing.T, c conformanceCase) bool) (passed, total int, summary string) {
	t.Helper()
	groups, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("conformance cases not found at %s: this clone has no shared/conformance folder", dir)
	}
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	for _, g := range groups {
		if !g.IsDir() {
			continue
		}
		files, err := filepath.Glob(filepath.Join(dir, g.Name(), "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		sort.Strings(files)
		groupPassed := 0
		t.Run(g.Name(), func(t *testing.T) {
			for _, file := range files {
				if check(t, loadCase(t, file)) {
					groupPassed++
				}
			}
			t.Logf("%s: %d/%d passed", g.Name(), groupPassed, len(files))
		})
		parts = append(parts, fmt.Sprintf("%s %d/%d", g.Name(), groupPassed, len(files)))
		total += len(files)
		passed += groupPassed
	}
	if total == 0 {
		t.Fatalf("no conformance cases under %s", dir)
	}
	return passed, total, strings.Join(parts, ", ")
}

func loadCase(t *testing.T, file string) conformanceCase {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var c conformanceCase
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return c
}

var caseCounter int

func runCase(t *testing.T, em *Emulator, c conformanceCase) {
	for _, problem := range checkCase(t, em, c, true) {
		t.Error(problem)
	}
}

// checkCase runs a case and returns how the emulator's result differs from the recording: status,
// output (and its member order when memberOrderMatters), error, cause and the state events.
func checkCase(t *testing.T, em *Emulator, c conformanceCase, memberOrderMatters bool) []string {
	var problems []string
	caseCounter++
	arn, err := em.CreateStateMachine(fmt.Sprintf("case-%d", caseCounter), string(c.Definition), StateMachineOptions{})
	if err != nil {
		return []string{fmt.Sprintf("CreateStateMachine: %v", err)}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	started, err := em.StartExecution(ctx, arn, "", string(c.Input))
	if err != nil {
		return []string{fmt.Sprintf("StartExecution: %v", err)}
	}
	got, err := em.Wait(ctx, started.ExecutionArn)
	if err != nil {
		return []string{fmt.Sprintf("Wait: %v", err)}
	}
	if string(got.Status) != c.Expected.Status {
		problems = append(problems, fmt.Sprintf("status: got %s, want %s (error %s, cause %s)", got.Status, c.Expected.Status, deref(got.Error), deref(got.Cause)))
	}
	supplied := suppliedStrings(t, c)
	if c.Expected.Output != nil {
		want := decode(t, c.Expected.Output)
		var gotOut any
		if got.Output != nil {
			gotOut = decode(t, []byte(*got.Output))
		}
		want = unmaskTimestamps(want, gotOut, supplied)
		if got.Output == nil || !sameJSON(gotOut, want) {
			problems = append(problems, fmt.Sprintf("output:\n got %s\nwant %s", deref(got.Output), string(c.Expected.Output)))
		} else if g, w := memberOrder(t, []byte(*got.Output)), memberOrder(t, c.Expected.Output); memberOrderMatters && g != w {
			problems = append(problems, fmt.Sprintf("output member order:\n got %s\nwant %s", g, w))
		}
	}
	if c.Expected.Status != string(StatusSucceeded) {
		if deref(got.Error) != deref(c.Expected.Error) || (got.Error == nil) != (c.Expected.Error == nil) {
			problems = append(problems, fmt.Sprintf("error: got %q, want %q", deref(got.Error), deref(c.Expected.Error)))
		}
		if deref(got.Cause) != deref(c.Expected.Cause) || (got.Cause == nil) != (c.Expected.Cause == nil) {
			problems = append(problems, fmt.Sprintf("cause:\n got %q\nwant %q", deref(got.Cause), deref(c.Expected.Cause)))
		}
	}
	if c.Expected.States == nil {
		return problems
	}
	events, err := em.GetExecutionHistory(ctx, started.ExecutionArn)
	if err != nil {
		return append(problems, err.Error())
	}
	gotStates := stateEntries(t, events)
	wantStates := make([]any, len(c.Expected.States))
	for i, s := range c.Expected.States {
		wantStates[i] = normalizeEntry(t, s)
	}
	wantStates = unmaskTimestamps(wantStates, gotStates, supplied).([]any)
	if !deterministicHistory(t, c.Definition) {
		// Branches and concurrent iterations interleave freely: compare the events as a multiset.
		gotStates, wantStates = sortedEntries(gotStates), sortedEntries(wantStates)
	}
	if !sameJSON(gotStates, wantStates) {
		problems = append(problems, fmt.Sprintf("history states:\n got %s\nwant %s", encodeJSON(gotStates), encodeJSON(wantStates)))
	}
	return problems
}

// deterministicHistory reports whether a definition's history has one possible order: no
// Parallel state, and every Map state runs its iterations one at a time.
func deterministicHistory(t *testing.T, definition []byte) bool {
	m, err := asl.Parse(definition)
	if err != nil {
		t.Fatal(err)
	}
	return sequential(m.States)
}

func sequential(states asl.States) bool {
	for _, ns := range states {
		switch s := ns.State.(type) {
		case *asl.Parallel:
			return false
		case *asl.Map:
			if s.MaxConcurrency == nil || *s.MaxConcurrency != 1 || !sequential(s.Processor().States) {
				return false
			}
		}
	}
	return true
}

// sortedEntries sorts history entries by their JSON text.
func sortedEntries(entries []any) []any {
	out := append([]any(nil), entries...)
	sort.Slice(out, func(i, j int) bool { return encodeJSON(out[i]) < encodeJSON(out[j]) })
	return out
}

// memberOrder renders the names of a JSON text's objects in their order, values left out:
// {"b":{"y":1,"x":2},"a":[{"k":3}]} is {b:{y,x},a:[{k}]}.
func memberOrder(t *testing.T, text []byte) string {
	t.Helper()
	v, err := jsonvalue.Decode(text)
	if err != nil {
		t.Fatalf("decoding %s: %v", text, err)
	}
	var b strings.Builder
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case *jsonvalue.Object:
			b.WriteByte('{')
			for i, k := range x.Keys() {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(k)
				e, _ := x.ValueForKey(k)
				walk(e)
			}
			b.WriteByte('}')
		case []any:
			b.WriteByte('[')
			for _, e := range x {
				walk(e)
			}
			b.WriteByte(']')
		}
	}
	walk(v)
	return b.String()
}

// stateEntries renders the state-level events of a history as the recording lists them. The
// recordings leave out ParallelStateSucceeded: the tool that made them sorted each Parallel's
// branch events in place and, in doing so, dropped the event between the last branch event and
// ParallelStateExited (AWS's id of it is missing from the recorded history).
func stateEntries(t *testing.T, events []HistoryEvent) []any {
	var out []any
	for _, e := range events {
		if strings.HasPrefix(string(e.Type), "Execution") || e.Type == sfnapi.EventParallelStateSucceeded {
			continue
		}
		entry := map[string]any{"type": string(e.Type)}
		switch {
		case e.StateEnteredEventDetails != nil:
			entry["name"] = e.StateEnteredEventDetails.Name
			entry["input"] = decode(t, []byte(e.StateEnteredEventDetails.Input))
		case e.StateExitedEventDetails != nil:
			entry["name"] = e.StateExitedEventDetails.Name
			entry["output"] = decode(t, []byte(e.StateExitedEventDetails.Output))
			if vars := e.StateExitedEventDetails.AssignedVariables; vars != nil {
				assigned := map[string]any{}
				for k, v := range vars {
					assigned[k] = decode(t, []byte(v))
				}
				entry["assignedVariables"] = assigned
			}
		case e.EvaluationFailedEventDetails != nil:
			d := e.EvaluationFailedEventDetails
			entry["error"], entry["cause"], entry["state"] = d.Error, d.Cause, d.State
			if d.Location != "" {
				entry["location"] = d.Location
			}
		case e.MapStateStartedEventDetails != nil:
			entry["length"] = int64(e.MapStateStartedEventDetails.Length)
		default:
			if d := mapIterationDetails(e); d != nil {
				entry["name"] = d.Name
				entry["index"] = int64(d.Index)
			}
		}
		out = append(out, entry)
	}
	return out
}

// mapIterationDetails returns the details of a MapIteration* event, or nil.
func mapIterationDetails(e HistoryEvent) *sfnapi.MapIterationEventDetails {
	for _, d := range []*sfnapi.MapIterationEventDetails{e.MapIterationStartedEventDetails, e.MapIterationSucceededEventDetails,
		e.MapIterationFailedEventDetails, e.MapIterationAbortedEventDetails} {
		if d != nil {
			return d
		}
	}
	return nil
}

// normalizeEntry turns a recorded entry into the generic representation (int64 numbers).
func normalizeEntry(t *testing.T, entry map[string]any) any {
	raw, err := json.Marshal(entry)
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, raw)
}

func decode(t testing.TB, raw []byte) any {
	t.Helper()
	v, err := asl.DecodeValue(raw)
	if err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
	return v
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// sameJSON compares JSON values: object key order does not matter, numbers compare by value.
func sameJSON(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !sameJSON(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	if fa, ok := toFloat(a); ok {
		fb, ok := toFloat(b)
		return ok && fa == fb
	}
	return a == b
}
