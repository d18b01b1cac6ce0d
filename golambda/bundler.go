package golambda

import (
	"context"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"github.com/turnstile-sfn/turnstile/golambda/gobuild"
)

// Bundler builds one Go main package into a Lambda bootstrap binary for linux/arm64 (see
// gobuild.Build). It implements awscdk.ILocalBundling, so that it can bundle any
// awslambda.Code_FromAsset.
type Bundler struct {
	// Source is the package to build (see gobuild.Resolve).
	Source gobuild.Source
}

// TryBundle implements awscdk.ILocalBundling: the CDK calls it at synth time with the directory
// to fill. It always bundles locally, so Docker is never used. The interface has no error
// result, so a failed build panics with the *gobuild.BuildError, which reaches the construction
// of the function (golambda.New) and carries the compiler's output.
func (b Bundler) TryBundle(outputDir *string, _ *awscdk.BundlingOptions) *bool {
	if _, err := gobuild.Build(context.Background(), b.Source, gobuild.Lambda, *outputDir); err != nil {
		panic(err)
	}
	return jsii.Bool(true)
}
