package lambdafn_test

import (
	"context"
	"fmt"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/emulator/lambdafn"
)

// greeting is the event of the example's handler.
type greeting struct {
	Name string `json:"name"`
}

// NameMissing is the named error the example's handler fails with.
type NameMissing struct{}

func (NameMissing) Error() string { return "a name is required" }

func greet(_ context.Context, in greeting) (map[string]string, error) {
	if in.Name == "" {
		return nil, NameMissing{}
	}
	return map[string]string{"greeting": "hello " + in.Name}, nil
}

func ExampleIntegration_Invoke() {
	reg, err := lambdafn.NewRegistry()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer reg.Close(context.Background())
	if err := reg.Register("greeter", lambdafn.FromLambdaHandler(greet)); err != nil {
		fmt.Println(err)
		return
	}
	lambda := lambdafn.NewIntegration(reg)
	arn := "arn:aws:lambda:us-east-1:000000000000:function:greeter"

	out, err := lambda.Invoke(context.Background(), arn, map[string]any{"name": "Ada"})
	fmt.Println(out, err)

	out, err = lambda.Invoke(context.Background(), "arn:aws:states:::lambda:invoke", map[string]any{
		"FunctionName": "greeter",
		"Payload":      map[string]any{"name": "Grace"},
	})
	fmt.Println(out.(map[string]any)["Payload"], out.(map[string]any)["StatusCode"], err)

	_, err = lambda.Invoke(context.Background(), arn, map[string]any{})
	failure := err.(*asl.Error)
	fmt.Println(failure.Name)
	fmt.Println(failure.Cause)
	// Output:
	// map[greeting:hello Ada] <nil>
	// map[greeting:hello Grace] 200 <nil>
	// NameMissing
	// {"errorMessage":"a name is required","errorType":"NameMissing"}
}
