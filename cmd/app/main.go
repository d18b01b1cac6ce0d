// Command app is Turnstile's CDK app: the demo stack of package demo, configured from the CDK
// context (cdk synth -c limit=3). cdk.json runs it.
package main

import (
	"fmt"
	"os"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"github.com/turnstile-sfn/turnstile/cmd/app/demo"
)

func main() {
	defer jsii.Close()
	app := awscdk.NewApp(nil)
	cfg, err := demo.ConfigFromContext(app.Node())
	if err != nil {
		fmt.Fprintln(os.Stderr, "turnstile demo:", err)
		jsii.Close()
		os.Exit(1)
	}
	demo.NewStack(app, cfg)
	app.Synth(nil)
}
