package demo_test

import (
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2"

	"github.com/turnstile-sfn/turnstile/cmd/app/demo"
)

// The demo reads its configuration from the app's context, as `cdk synth -c limit=3` sets it.
func ExampleConfigFromContext() {
	app := awscdk.NewApp(&awscdk.AppProps{Context: &map[string]any{"limit": "3"}})
	cfg, err := demo.ConfigFromContext(app.Node())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: lock %s, limit %d\n", cfg.StackName, cfg.LockName, cfg.Limit)

	bad := awscdk.NewApp(&awscdk.AppProps{Context: &map[string]any{"limit": "five"}})
	_, err = demo.ConfigFromContext(bad.Node())
	fmt.Println(err)
	// Output:
	// TurnstileDemo: lock MySemaphore, limit 3
	// context limit must be an integer, got "five"
}
