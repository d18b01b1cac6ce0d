package golambda

import (
	"errors"
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

// ErrGoNotFound is returned when the go command is not on PATH.
var ErrGoNotFound = errors.New("the go command is not on PATH")

// BuildError reports a failed go build, with the compiler's output.
type BuildError struct {
	// Package is the package that failed to build, relative to the module root.
	Package string
	// Output is what go build printed.
	Output string
	// Err is the error of the go command.
	Err error
}

// Error implements error.
func (e *BuildError) Error() string {
	return fmt.Sprintf("golambda: go build ./%s: %v\n%s", e.Package, e.Err, strings.TrimSpace(e.Output))
}

// Unwrap returns the error of the go command.
func (e *BuildError) Unwrap() error { return e.Err }

// Bundler builds one Go package of a module into a Lambda bootstrap binary for linux/arm64.
// It implements awscdk.ILocalBundling.
type Bundler struct {
	// ModuleRoot is the absolute path of the directory holding go.mod.
	ModuleRoot string
	// Package is the package directory relative to ModuleRoot, with slashes, e.g. "lambdas/dowork".
	Package string
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
		"./" + b.Package,
	}
}

// Build compiles the package into outputDir/bootstrap for linux/arm64 without cgo.
func (b Bundler) Build(outputDir string) error {
	goCommand, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("golambda: %w: %w", ErrGoNotFound, err)
	}
	cmd := exec.Command(goCommand, b.BuildArgs(outputDir)...)
	cmd.Dir = b.ModuleRoot
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
	if output, err := cmd.CombinedOutput(); err != nil {
		return &BuildError{Package: b.Package, Output: string(output), Err: err}
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
