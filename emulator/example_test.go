package emulator_test

import (
	"context"
	"fmt"
	"time"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/emulator"
)

// greeter is an integration that greets whoever its parameters name.
type greeter struct{}

func (greeter) Supports(resource string) bool { return resource == "arn:aws:states:::lambda:invoke" }

func (greeter) Invoke(_ context.Context, call *emulator.TaskCall) (any, error) {
	name, _ := call.Parameters.(map[string]any)["name"].(string)
	if name == "" {
		return nil, asl.NewError("Greeting.NoName", "nobody to greet")
	}
	return "Hello, " + name + "!", nil
}

func Example() {
	ctx := context.Background()
	em := emulator.New(emulator.Options{Clock: emulator.NewScaledClock(time.Time{}, 0)})
	defer em.Close()
	em.RegisterIntegration(greeter{})

	arn, err := em.CreateStateMachine("greet", `{"StartAt":"Greet","States":{
  "Greet":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"name.$":"$.who"},
    "Retry":[{"ErrorEquals":["States.TaskFailed"],"MaxAttempts":1}],"ResultPath":"$.greeting","End":true}}}`,
		emulator.StateMachineOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, input := range []string{`{"who":"World"}`, `{"who":""}`} {
		started, err := em.StartExecution(ctx, arn, "", input)
		if err != nil {
			fmt.Println(err)
			return
		}
		done, err := em.Wait(ctx, started.ExecutionArn)
		if err != nil {
			fmt.Println(err)
			return
		}
		if done.Status == emulator.StatusSucceeded {
			fmt.Println(done.Status, *done.Output)
		} else {
			fmt.Println(done.Status, *done.Error, *done.Cause)
		}
	}
	// Output:
	// SUCCEEDED {"who":"World","greeting":"Hello, World!"}
	// FAILED Greeting.NoName nobody to greet
}
