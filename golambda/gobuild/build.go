package gobuild

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// BinaryName is the file name the provided.al2023 runtime runs: the function's handler.
const BinaryName = "bootstrap"

// Target is the platform a binary is built for.
type Target struct {
	// GOOS and GOARCH are the go command's variables, e.g. "linux" and "arm64".
	GOOS, GOARCH string
}

// Lambda is the platform of Turnstile's functions on AWS: arm64 on Amazon Linux.
var Lambda = Target{GOOS: "linux", GOARCH: "arm64"}

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
	return fmt.Sprintf("gobuild: go build %s: %v (fix the errors below)\n%s", e.Package, e.Err, strings.TrimSpace(e.Output))
}

// Unwrap returns the error of the go command.
func (e *BuildError) Unwrap() error { return e.Err }

// Args returns the arguments given to the go command to build s into outputDir/BinaryName: a
// static, stripped binary without the RPC runtime (-tags lambda.norpc), with no paths or VCS
// stamps of this machine in it.
func (s Source) Args(outputDir string) []string {
	return []string{
		"build",
		"-tags", "lambda.norpc",
		"-trimpath",
		"-buildvcs=false",
		"-ldflags=-s -w",
		"-o", filepath.Join(outputDir, BinaryName),
		"./" + s.Dir,
	}
}

// Build compiles s into outputDir/BinaryName for target, without cgo, in the directory of the
// module that provides it, and returns the binary's path. A package of another module than the
// main one is built with that module's own go.mod and go.sum (GOWORK=off, -mod=readonly), as
// `go install pkg@version` builds it: the versions its authors tested, whatever the app's go.mod
// selects. A missing go command is ErrGoNotFound; a failed build a *BuildError.
func Build(ctx context.Context, s Source, target Target, outputDir string) (string, error) {
	goCommand, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("gobuild: %w", ErrGoNotFound)
	}
	binary, err := filepath.Abs(filepath.Join(outputDir, BinaryName))
	if err != nil {
		return "", fmt.Errorf("gobuild: %w", err)
	}
	cmd := exec.CommandContext(ctx, goCommand, s.Args(filepath.Dir(binary))...)
	cmd.Dir = s.ModuleDir
	cmd.Env = append(os.Environ(), "GOOS="+target.GOOS, "GOARCH="+target.GOARCH, "CGO_ENABLED=0")
	if !s.MainModule {
		cmd.Env = append(cmd.Env, "GOWORK=off", "GOFLAGS=-mod=readonly")
	}
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", &BuildError{Package: s.ImportPath, Output: output.String(), Err: err}
	}
	return binary, nil
}
