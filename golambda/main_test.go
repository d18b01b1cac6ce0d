package golambda_test

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/jsii-runtime-go"

	"github.com/turnstile-sfn/turnstile/golambda"
)

// Stack names of the test app. Only bundledStack is bundled: the others are left out through the
// context aws:cdk:bundling-stacks, so their functions are not built.
const (
	skippedStack = "Skipped"
	bundledStack = "Bundled"
)

// synthesized is the one synth of this test binary, made by TestMain.
var synthesized struct {
	outdir    string
	templates map[string]map[string]any // stack name → template
	err       error
}

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	// The CloudFormation validator adds seconds to a synth and checks nothing of this package;
	// the demo app's tests and `cdk synth` keep it on. The jsii kernel process was started, with a
	// copy of the environment, when the CDK packages were initialised; closing it makes the first
	// jsii call below start a new one that sees CDK_VALIDATION=false.
	if err := os.Setenv("CDK_VALIDATION", "false"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	jsii.Close()
	outdir, err := os.MkdirTemp("", "golambda-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(outdir)
	synthesized.outdir = outdir
	synthesized.err = catchPanic(func() { synthesized.templates = synthesize(outdir) })
	return m.Run()
}

// catchPanic runs fn and returns its panic, if any, as an error: a failed jsii call panics, and
// a panic would end the whole test binary.
func catchPanic(fn func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	fn()
	return nil
}

// synthesize builds the test app into outdir and returns each stack's template.
func synthesize(outdir string) map[string]map[string]any {
	app := awscdk.NewApp(&awscdk.AppProps{
		Outdir: jsii.String(outdir),
		Context: &map[string]any{
			"aws:cdk:bundling-stacks":       []string{bundledStack},
			"aws:cdk:enable-asset-metadata": true,
			"aws:cdk:enable-path-metadata":  true,
		},
	})

	skipped := awscdk.NewStack(app, jsii.String(skippedStack), nil)
	golambda.New(skipped, jsii.String("Minimal"), &golambda.Props{
		Package: jsii.String("golambda/testdata/hello"),
	})
	golambda.New(skipped, jsii.String("Full"), &golambda.Props{
		Package:                      jsii.String("./lambdas/dowork"),
		Environment:                  &map[string]*string{"WORK_DURATION": jsii.String("2s")},
		MemorySize:                   jsii.Number(256),
		Timeout:                      awscdk.Duration_Seconds(jsii.Number(60)),
		ReservedConcurrentExecutions: jsii.Number(5),
		Description:                  jsii.String("demo work"),
		LogRetention:                 awslogs.RetentionDays_ONE_WEEK,
	})

	bundled := awscdk.NewStack(app, jsii.String(bundledStack), nil)
	golambda.New(bundled, jsii.String("Hello"), &golambda.Props{
		Package: jsii.String("golambda/testdata/hello"),
	})
	golambda.New(bundled, jsii.String("DoWork"), &golambda.Props{
		Package: jsii.String("lambdas/dowork"),
	})

	assembly := app.Synth(nil)
	templates := map[string]map[string]any{}
	for _, name := range []string{skippedStack, bundledStack} {
		raw, err := json.Marshal(assembly.GetStackByName(jsii.String(name)).Template())
		if err != nil {
			panic(err)
		}
		var template map[string]any
		if err := json.Unmarshal(raw, &template); err != nil {
			panic(err)
		}
		templates[name] = template
	}
	return templates
}

// template returns the synthesized template of a stack, or stops the test when the synth failed.
func template(t *testing.T, stack string) map[string]any {
	t.Helper()
	if synthesized.err != nil {
		t.Fatalf("synth failed: %v", synthesized.err)
	}
	return synthesized.templates[stack]
}

// resourceAt returns the resource whose construct path is path, e.g. "Skipped/Full/Function".
func resourceAt(t *testing.T, template map[string]any, path string) map[string]any {
	t.Helper()
	resources, _ := template["Resources"].(map[string]any)
	for _, resource := range resources {
		r, _ := resource.(map[string]any)
		metadata, _ := r["Metadata"].(map[string]any)
		if metadata["aws:cdk:path"] == path+"/Resource" {
			return r
		}
	}
	t.Fatalf("no resource at %s", path)
	return nil
}

// logicalIDAt returns the logical ID of the resource whose construct path is path.
func logicalIDAt(t *testing.T, template map[string]any, path string) string {
	t.Helper()
	resources, _ := template["Resources"].(map[string]any)
	for id, resource := range resources {
		r, _ := resource.(map[string]any)
		metadata, _ := r["Metadata"].(map[string]any)
		if metadata["aws:cdk:path"] == path+"/Resource" {
			return id
		}
	}
	t.Fatalf("no resource at %s", path)
	return ""
}
