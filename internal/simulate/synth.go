package simulate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

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
	// jsii copies the environment when its runtime starts: restart it to apply the settings.
	restart := usePinnedNode()
	if os.Getenv("CDK_VALIDATION") == "" {
		os.Setenv("CDK_VALIDATION", "false")
		restart = true
	}
	if restart {
		jsii.Close()
	}
	context := map[string]any{"aws:cdk:bundling-stacks": []any{}}
	app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(outdir), Context: &context})
	demo.NewStack(app, cfg)
	app.Synth(nil)
	return nil
}

// usePinnedNode puts the Node that `make setup` pins (.cdk/node_modules/.bin, in the Turnstile
// checkout the working directory is in) first on PATH, so that jsii runs on a supported Node
// whoever starts the command, and reports whether PATH changed. Outside a checkout it leaves PATH
// as it is: jsii then needs Node 22 or newer there.
func usePinnedNode() bool {
	dir, err := os.Getwd()
	if err != nil {
		return false
	}
	for {
		bin := filepath.Join(dir, ".cdk", "node_modules", ".bin")
		if info, err := os.Stat(filepath.Join(bin, "node")); err == nil && !info.IsDir() {
			path := os.Getenv("PATH")
			if strings.HasPrefix(path, bin+string(os.PathListSeparator)) || path == bin {
				return false
			}
			os.Setenv("PATH", bin+string(os.PathListSeparator)+path)
			return true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		dir = parent
	}
}
