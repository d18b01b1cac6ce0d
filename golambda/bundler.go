package golambda

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"
)

// BinaryName is the file name the provided.al2023 runtime runs, and so the function's handler.
const BinaryName = "bootstrap"

// BuildError reports a failed go build, with the compiler's output.
type BuildError struct {
	// Package is the import path of the package that failed to build.
	Package string
	// Output is what go build printed.
	Output string
	// Err is the error of the go command.
	Err error
}

// Error implements error.
func (e *BuildError) Error() string {
	return fmt.Sprintf("golambda: go build %s: %v\n%s", e.Package, e.Err, strings.TrimSpace(e.Output))
}

// Unwrap returns the error of the go command.
func (e *BuildError) Unwrap() error { return e.Err }

// Bundler builds one Go main package into a Lambda bootstrap binary for linux/arm64. It
// implements awscdk.ILocalBundling, so that it can bundle any awslambda.Code_FromAsset.
type Bundler struct {
	// Source is the package to build (see Resolve).
	Source Source
}

// BuildArgs returns the arguments given to the go command to build into outputDir.
func (b Bundler) BuildArgs(outputDir string) []string {
	return []string{
		"build",
		"-tags", "lambda.norpc",
		"-trimpath",
		"-buildvcs=false",
		"-ldflags=-s -w",
		"-o", filepath.Join(outputDir, BinaryName),
		"./" + b.Source.Dir,
	}
}

// Build compiles the package into outputDir/bootstrap for linux/arm64 without cgo, in the
// directory of the module that provides it. A package of another module than the app's is built
// with that module's own go.mod and go.sum (GOWORK=off, -mod=readonly), as `go install
// pkg@version` builds it: the versions its authors tested, whatever the app's go.mod selects.
func (b Bundler) Build(outputDir string) error {
	goCommand, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("golambda: %w", ErrGoNotFound)
	}
	cmd := exec.Command(goCommand, b.BuildArgs(outputDir)...)
	cmd.Dir = b.Source.ModuleDir
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
	if !b.Source.MainModule {
		cmd.Env = append(cmd.Env, "GOWORK=off", "GOFLAGS=-mod=readonly")
	}
	if output, err := cmd.CombinedOutput(); err != nil {
		return &BuildError{Package: b.Source.ImportPath, Output: string(output), Err: err}
	}
	return nil
}

// TryBundle implements awscdk.ILocalBundling: the CDK calls it at synth time with the directory
// to fill. It always bundles locally, so Docker is never used. The interface has no error
// result, so a failed build panics with the *BuildError, which reaches the construction of the
// function (golambda.New) and carries the compiler's output.
func (b Bundler) TryBundle(outputDir *string, _ *awscdk.BundlingOptions) *bool {
	if err := b.Build(*outputDir); err != nil {
		panic(err)
	}
	return jsii.Bool(true)
}
