package emulator

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

// replaySeed seeds both runs of every case in TestConformanceCasesReplay.
const replaySeed = 17

// TestConformanceCasesReplay runs every machine of the conformance corpus twice, each time on a
// new emulator with a skipping clock, the latency model and the same seed, and requires the two
// runs to be identical: the execution's description (ARN, dates on the virtual clock, status,
// output, error, cause) and its whole history (event ids, previous ids, timestamps, types,
// details, order).
func TestConformanceCasesReplay(t *testing.T) {
	groups, err := os.ReadDir(conformanceDir)
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("conformance cases not found at %s: this clone has no shared/conformance folder", conformanceDir)
	}
	if err != nil {
		t.Fatal(err)
	}
	cases := 0
	for _, g := range groups {
		if !g.IsDir() {
			continue
		}
		files, err := filepath.Glob(filepath.Join(conformanceDir, g.Name(), "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		sort.Strings(files)
		t.Run(g.Name(), func(t *testing.T) {
			for _, file := range files {
				c := loadCase(t, file)
				t.Run(c.ID, func(t *testing.T) {
					first, second := replayRun(t, c), replayRun(t, c)
					if first != second {
						t.Errorf("two runs of seed %d differ:\nfirst  %s\nsecond %s", replaySeed, first, second)
					}
				})
			}
		})
		cases += len(files)
	}
	if cases == 0 {
		t.Fatalf("no conformance cases under %s", conformanceDir)
	}
}

// replayRun runs a case on a new emulator seeded with replaySeed and renders the execution's
// description and history as JSON.
func replayRun(t *testing.T, c conformanceCase) string {
	t.Helper()
	em := New(Options{
		Clock:   NewSkippingClock(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), replaySeed),
		Seed:    replaySeed,
		Latency: NewLatency(replaySeed),
	})
	defer em.Close()
	arn, err := em.CreateStateMachine("replay", string(c.Definition), StateMachineOptions{})
	if err != nil {
		t.Fatalf("CreateStateMachine: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	started, err := em.StartExecution(ctx, arn, "", string(c.Input))
	if err != nil {
		t.Fatalf("StartExecution: %v", err)
	}
	desc, err := em.Wait(ctx, started.ExecutionArn)
	if err != nil {
		t.Fatalf("Wait: %v", err)
	}
	history, err := em.GetExecutionHistory(ctx, started.ExecutionArn)
	if err != nil {
		t.Fatalf("GetExecutionHistory: %v", err)
	}
	run, err := json.Marshal(struct {
		Description ExecutionDescription
		History     []HistoryEvent
	}{desc, history})
	if err != nil {
		t.Fatal(err)
	}
	return string(run)
}
