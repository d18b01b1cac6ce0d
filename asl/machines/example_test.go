package machines_test

import (
	"fmt"

	"github.com/turnstile-sfn/turnstile/asl/machines"
)

// Semaphore builds the definition that CloudFormation receives, with the table name left as a
// DefinitionSubstitutions placeholder.
func ExampleSemaphore() {
	m, err := machines.Semaphore(machines.SemaphoreOptions{
		LockName: "MySemaphore",
		Limit:    5,
		Work:     machines.LambdaWork(machines.Placeholder(machines.SubstitutionWorkFunctionArn)),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.StartAt, *m.TimeoutSeconds)
	for _, s := range m.States[:4] {
		fmt.Println(s.Name, s.State.Type())
	}
	// Output:
	// Prepare Acquire 3600
	// Prepare Acquire Pass
	// Acquire Slot Task
	// Check Holder Task
	// Slot Held? Choice
}

// Invalid options are reported by field, with the value.
func ExampleSemaphore_invalid() {
	_, err := machines.Semaphore(machines.SemaphoreOptions{LockName: "MySemaphore", Work: machines.LambdaWork("fn")})
	fmt.Println(err)
	// Output: SemaphoreOptions.Limit must be > 0, got 0
}
