package emulator

import (
	"context"
	"encoding/json"
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
	forEachCase(t, conformanceDir, func(t *testing.T, c conformanceCase) bool {
		return t.Run(c.ID, func(t *testing.T) {
			first, second := replayRun(t, c), replayRun(t, c)
			if first != second {
				t.Errorf("two runs of seed %d differ:\nfirst  %s\nsecond %s", replaySeed, first, second)
			}
		})
	})
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
