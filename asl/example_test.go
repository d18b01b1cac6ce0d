package asl_test

import (
	"fmt"

	"github.com/turnstile-sfn/turnstile/asl"
)

func Example() {
	m := &asl.StateMachine{
		StartAt: "Hello",
		States: asl.States{
			{Name: "Hello", State: &asl.Pass{Result: "world", ResultPath: asl.P("$.greeting"), Transition: asl.End()}},
		},
	}
	if err := m.Validate(); err != nil {
		fmt.Println(err)
		return
	}
	doc, _ := m.Render()
	fmt.Println(string(doc))

	back, _ := asl.Parse(doc)
	fmt.Println(back.States.Get("Hello").Type())
	// Output:
	// {"StartAt":"Hello","States":{"Hello":{"Type":"Pass","Result":"world","ResultPath":"$.greeting","End":true}}}
	// Pass
}

func ExampleStateMachine_Validate() {
	m, _ := asl.Parse([]byte(`{"StartAt":"A","States":{"A":{"Type":"Pass","Next":"B"}}}`))
	fmt.Println(m.Validate())
	// Output:
	// invalid state machine definition: state "A", field Next: names no state of this graph: "B"
}
