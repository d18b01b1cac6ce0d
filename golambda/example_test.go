package golambda_test

import (
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"github.com/turnstile-sfn/turnstile/golambda"
)

// A function built from a main package of the app's module, or of a module it requires: here
// Turnstile's own demo work function, named by import path.
func ExampleNew() {
	app := awscdk.NewApp(&awscdk.AppProps{Context: &map[string]any{"aws:cdk:bundling-stacks": []any{}}})
	stack := awscdk.NewStack(app, jsii.String("App"), nil)
	fn := golambda.New(stack, jsii.String("Work"), &golambda.Props{
		Package: jsii.String("github.com/turnstile-sfn/turnstile/lambdas/dowork"),
		Timeout: awscdk.Duration_Seconds(jsii.Number(60)),
	})
	fmt.Println(*fn.Runtime().Name(), *fn.Architecture().Name())
	// Output: provided.al2023 arm64
}
