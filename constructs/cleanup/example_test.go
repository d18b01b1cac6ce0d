package cleanup_test

import (
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsevents"
	"github.com/aws/jsii-runtime-go"

	"github.com/turnstile-sfn/turnstile/constructs/cleanup"
)

// A Cleanup for a semaphore built without its own (semaphore.Props.Cleanup false): here a
// table and a machine stand for the semaphore's, and the reconciler runs every minute.
func ExampleNew() {
	app := awscdk.NewApp(&awscdk.AppProps{Context: &map[string]any{"aws:cdk:bundling-stacks": []string{}}})
	stack := awscdk.NewStack(app, jsii.String("Example"), nil)
	table, machine := newSemaphoreParts(stack)
	c := cleanup.New(stack, jsii.String("Cleanup"), &cleanup.Props{
		StateMachine:      machine,
		Table:             table,
		LockName:          "Reports",
		Limit:             3,
		ReconcileSchedule: awsevents.Schedule_Rate(awscdk.Duration_Minutes(jsii.Number(1))),
	})
	fmt.Println("reconciler:", c.Reconciler() != nil)
	fmt.Println("redrive guard:", c.RedriveGuard() != nil)
	fmt.Println("alarm on the dead-letter queue:", c.DeadLetterAlarm() != nil)
	// Output:
	// reconciler: true
	// redrive guard: true
	// alarm on the dead-letter queue: true
}
