package intrinsic_test

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/turnstile-sfn/turnstile/emulator/intrinsic"
	"github.com/turnstile-sfn/turnstile/emulator/jsonvalue"
)

func Example() {
	input := jsonvalue.Of("name", "Ada", "items", []any{int64(1), int64(2), int64(3)})
	resolve := intrinsic.NewResolver(input, nil)

	e, err := intrinsic.Parse("States.Format('Hello {}, you have {} items', $.name, States.ArrayLength($.items))")
	if err != nil {
		fmt.Println(err)
		return
	}
	greeting, err := e.Evaluate(resolve, intrinsic.Env{Rand: rand.New(rand.NewPCG(1, 1))})
	fmt.Println(greeting, err)
	// Output: Hello Ada, you have 3 items <nil>
}

func ExampleError() {
	input := jsonvalue.Of("other", int64(1))
	e, err := intrinsic.Parse("States.MathAdd($.count, 1)")
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = e.Evaluate(intrinsic.NewResolver(input, nil), intrinsic.Env{})
	var failure *intrinsic.Error
	if errors.As(err, &failure) {
		// The interpreter fails the state "Increment", entered at history event #2, with:
		fmt.Println(failure.Name)
		fmt.Println(failure.Cause("Increment", 2))
	}
	// Output:
	// States.Runtime
	// An error occurred while executing the state 'Increment' (entered at the event id #2). The function 'States.MathAdd($.count, 1)' had the following error: The JsonPath argument for the field '$.count' could not be found in the input '{"other":1}'
}

func ExampleIsIntrinsic() {
	for _, value := range []string{"States.UUID()", "$.name", "plain text"} {
		fmt.Println(value, intrinsic.IsIntrinsic(value))
	}
	// Output:
	// States.UUID() true
	// $.name false
	// plain text false
}
