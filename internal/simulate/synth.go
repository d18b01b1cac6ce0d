package simulate

import (
	"fmt"
	"os"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"github.com/turnstile-sfn/turnstile/cmd/app/demo"
)

// Synthesize writes the demo app's cloud assembly for cfg into outdir. Bundling is skipped (the
// emulator runs the functions' Go handlers, not their binaries) and so is CloudFormation
// validation, which `make synth` keeps on. It needs Node on PATH, as every CDK synth does.
func Synthesize(outdir string, cfg demo.Config) (err error) {
	if err := cfg.Validate(); err != nil {
		return err
	}
	// jsii passes failures of the CDK as Go panics.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("simulate: synthesize the demo app: %v", r)
		}
	}()
	// jsii copies the environment when its runtime starts: restart it to apply the setting.
	if os.Getenv("CDK_VALIDATION") == "" {
		os.Setenv("CDK_VALIDATION", "false")
		jsii.Close()
	}
	context := map[string]any{"aws:cdk:bundling-stacks": []any{}}
	app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(outdir), Context: &context})
	demo.NewStack(app, cfg)
	app.Synth(nil)
	return nil
}
