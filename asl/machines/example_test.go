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

// SemaphoreInputLocks reads back, from a definition with several locks, which lock an input's
// execution takes first (the first by name): the lock a submission of that input waits for.
func ExampleSemaphoreInputLocks() {
	m, err := machines.Semaphore(machines.SemaphoreOptions{
		Locks:        []machines.LockSpec{{LockNamePath: "$.region"}, {LockName: "database", Limit: 2}},
		Limit:        5,
		WaitStrategy: machines.WaitCallback,
		Work:         machines.LambdaWork(machines.Placeholder(machines.SubstitutionWorkFunctionArn)),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	first, ok := machines.SemaphoreInputLocks(m)
	if !ok {
		fmt.Println("not a semaphore with several locks")
		return
	}
	for _, input := range []string{`{"region":"eu-west-1"}`, `{"region":"ap-south-1"}`, `{}`} {
		fmt.Println(first.For(input))
	}
	// Output:
	// database 2 <nil>
	// ap-south-1 5 <nil>
	//  0 the execution input has no usable lock name: $.region is absent or null, not a non-empty string
}
