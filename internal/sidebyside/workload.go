package sidebyside

import (
	_ "embed"
	"fmt"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/asl/machines"
)

// Workload is one state machine definition and the input every execution of it gets.
type Workload struct {
	// Name names the workload in the table and the state machine in the emulator.
	Name string
	// Definition is the ASL JSON both interpreters run.
	Definition string
	// Input is the JSON input of every execution.
	Input string
	// Endpoint is the DynamoDB API server the definition's DynamoDB tasks call; empty when it
	// has none.
	Endpoint string
}

//go:embed testdata/flow.asl.json
var flowDefinition string

//go:embed testdata/flow-input.json
var flowInput string

// FlowName is the name of the workload without I/O.
const FlowName = "flow"

// Flow returns the workload without I/O: 21 Pass, Choice, Map and Parallel states (an inline Map
// over six orders, a Parallel state of three branches), deterministic.
func Flow() Workload {
	return Workload{Name: FlowName, Definition: flowDefinition, Input: flowInput}
}

// SemaphoreName is the name of the semaphore workload.
const SemaphoreName = "semaphore"

// SemaphoreLock is the lock every execution of the semaphore workload contends for.
const SemaphoreLock = "sidebyside"

// semaphoreWorkState is the work of the semaphore workload's executions.
const semaphoreWorkState = "Do Work"

// Semaphore returns the semaphore workload: the semaphore machine with the Poll strategy and
// limit slots of the lock SemaphoreLock in table, at endpoint, whose work is a Pass state.
func Semaphore(endpoint, table string, limit int) (Workload, error) {
	work := &asl.Graph{
		StartAt: semaphoreWorkState,
		States: asl.States{{Name: semaphoreWorkState, State: &asl.Pass{
			Transition: asl.End(),
			Parameters: map[string]any{"worked": true, "input.$": "$"},
		}}},
	}
	m, err := machines.Semaphore(machines.SemaphoreOptions{
		LockName:     SemaphoreLock,
		Limit:        limit,
		TableName:    table,
		Work:         work,
		WaitStrategy: machines.WaitPoll,
	})
	if err != nil {
		return Workload{}, fmt.Errorf("sidebyside: the semaphore machine: %w", err)
	}
	definition, err := m.Render()
	if err != nil {
		return Workload{}, fmt.Errorf("sidebyside: render the semaphore machine: %w", err)
	}
	return Workload{Name: SemaphoreName, Definition: string(definition), Input: `{"job":1}`, Endpoint: endpoint}, nil
}
