package eventbus_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/turnstile-sfn/turnstile/emulator/eventbus"
)

func ExampleCompilePattern() {
	pattern, err := eventbus.CompilePattern(`{
		"source": ["aws.states"],
		"detail": {"status": ["FAILED", "TIMED_OUT", "ABORTED"], "redriveCount": [{"numeric": [">", 0]}]}
	}`)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(pattern.Matches(`{"source": "aws.states", "detail": {"status": "ABORTED", "redriveCount": 1}}`))
	fmt.Println(pattern.Matches(`{"source": "aws.states", "detail": {"status": "ABORTED", "redriveCount": 0}}`))
	// Output:
	// true
	// false
}

func ExampleBus() {
	bus := eventbus.New(eventbus.Options{})
	pattern, _ := eventbus.CompilePattern(`{"source": ["aws.states"], "detail": {"status": ["ABORTED"]}}`)
	var mu sync.Mutex
	var received []string
	err := bus.PutRule(eventbus.Rule{
		Name:    "cleanup",
		Pattern: pattern,
		Targets: []eventbus.Target{{ID: "Target0", Invoke: func(_ context.Context, e eventbus.Event) error {
			mu.Lock()
			defer mu.Unlock()
			received = append(received, e.Resources[0])
			return nil
		}}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ids := eventbus.NewIDSource(1)
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, status := range []string{eventbus.StatusRunning, eventbus.StatusAborted} {
		event, err := eventbus.NewStatusChangeEvent(ids.NewID(), start, eventbus.ExecutionSnapshot{
			ExecutionARN:    "arn:aws:states:us-east-1:000000000000:execution:Semaphore:run-" + status,
			StateMachineARN: "arn:aws:states:us-east-1:000000000000:stateMachine:Semaphore",
			Status:          status,
			StartDate:       start,
			Input:           "{}",
		})
		if err != nil {
			fmt.Println(err)
			return
		}
		if err := bus.Publish(context.Background(), event); err != nil {
			fmt.Println(err)
			return
		}
	}
	if err := bus.Close(context.Background()); err != nil {
		fmt.Println(err)
	}
	fmt.Println(received)
	// Output: [arn:aws:states:us-east-1:000000000000:execution:Semaphore:run-ABORTED]
}

func ExampleParseSchedule() {
	schedule, err := eventbus.ParseSchedule("rate(5 minutes)")
	if err != nil {
		fmt.Println(err)
		return
	}
	first := schedule.Next(time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC))
	fmt.Println(first.Format(time.TimeOnly), schedule.Next(first).Format(time.TimeOnly))
	// Output: 12:05:00 12:10:00
}
