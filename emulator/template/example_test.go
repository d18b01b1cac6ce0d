package template_test

import (
	"fmt"

	"github.com/turnstile-sfn/turnstile/emulator/template"
)

func ExampleLoad() {
	tpl, err := template.Load("testdata/cdk.out", template.Options{Region: "eu-west-1"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, table := range tpl.Tables {
		fmt.Println("table:", table.Name)
	}
	for _, sm := range tpl.StateMachines {
		fmt.Println("state machine:", sm.ARN)
	}
	for _, rule := range tpl.Rules {
		fmt.Printf("rule: %s %q\n", rule.Name, rule.ScheduleExpression)
	}
	// Output:
	// table: TurnstileDemo-LockTable1A2B3C4D
	// state machine: arn:aws:states:eu-west-1:000000000000:stateMachine:TurnstileDemo-cleanup
	// state machine: arn:aws:states:eu-west-1:000000000000:stateMachine:TurnstileDemo-SemaphoreMachineABCDEF12
	// rule: TurnstileDemo-CleanupRule2B3C4D5E ""
	// rule: TurnstileDemo-ReconcileSchedule3C4D5E6F "rate(5 minutes)"
}
