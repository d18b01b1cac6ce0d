package runtimeapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// BootstrapName is the file name of a built function: the executable Lambda's provided.al2023
// runtime starts.
const BootstrapName = "bootstrap"

// BuildTags are the build tags of a function binary: lambda.norpc leaves out aws-lambda-go's
// legacy RPC mode, so lambda.Start speaks only the Runtime API, as on provided.al2023.
const BuildTags = "lambda.norpc"

// ErrGoNotFound is returned by Build when the go command is not on PATH.
var ErrGoNotFound = errors.New("runtimeapi: the go command is not on PATH; install Go (https://go.dev/dl/) " +
	"or add its bin directory to PATH, so that Go Lambda functions can be built to run locally")

// BuildError is returned by Build when go build fails. Output holds what the go command printed.
type BuildError struct {
	// Package is the import path that was built.
	Package string
	// Dir is the directory go build ran in (the module it resolved the package from).
	Dir string
	// Output is the go command's combined output (compiler errors, missing modules).
	Output string
	// Err is how the go command failed, usually an *exec.ExitError.
	Err error
}

// Error names the package and the directory, says what to do and carries the go command's output.
func (e *BuildError) Error() string {
	return fmt.Sprintf("runtimeapi: go build %s in %s failed (%v); fix the errors below, or point the module "+
		"directory at the Go module that contains the package:\n%s", e.Package, e.Dir, e.Err, strings.TrimSpace(e.Output))
}

// Unwrap returns how the go command failed.
func (e *BuildError) Unwrap() error { return e.Err }

// BuildOptions configure Build.
type BuildOptions struct {
	// Dir is the directory go build runs in; the package is resolved from the Go module (or
	// go.work workspace) there, with its replace directives and the module cache. Default: the
	// working directory.
	Dir string
	// OutDir is the directory the bootstrap binary is written to. Required.
	OutDir string
}

// Build compiles the main package importPath (e.g. "example.com/myapp/work") into
// OutDir/bootstrap for this machine: the native GOOS and GOARCH, CGO_ENABLED=0, -trimpath and the
// lambda.norpc tag. It returns the binary's path. A missing go command gives ErrGoNotFound, a
// failed build a *BuildError.
func Build(ctx context.Context, importPath string, opts BuildOptions) (string, error) {
	if opts.OutDir == "" {
		return "", errors.New("runtimeapi: BuildOptions.OutDir is required: the directory to write the bootstrap binary to")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return "", ErrGoNotFound
	}
	dir := opts.Dir
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			return "", fmt.Errorf("runtimeapi: the working directory: %w", err)
		}
	}
	if err := os.MkdirAll(opts.OutDir, 0o755); err != nil {
		return "", fmt.Errorf("runtimeapi: create the output directory: %w", err)
	}
	out, err := filepath.Abs(filepath.Join(opts.OutDir, BootstrapName))
	if err != nil {
		return "", fmt.Errorf("runtimeapi: the output path: %w", err)
	}
	cmd := exec.CommandContext(ctx, goCmd, "build", "-trimpath", "-tags", BuildTags, "-o", out, importPath)
	cmd.Dir = dir
	// exec keeps the last value of a repeated variable: these override the caller's.
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+runtime.GOOS, "GOARCH="+runtime.GOARCH)
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", &BuildError{Package: importPath, Dir: dir, Output: output.String(), Err: err}
	}
	return out, nil
}

// Builder builds functions with Build and remembers the result, so that each package is built
// once however many functions use it. It is safe for concurrent use.
type Builder struct {
	dir, outDir string

	mu     sync.Mutex
	builds map[string]*build
}

// build is one package's build, done or under way.
type build struct {
	done   chan struct{}
	binary string
	err    error
}

// NewBuilder returns a Builder that resolves packages from the module in dir (default: the
// working directory) and writes each binary to its own directory under outDir.
func NewBuilder(dir, outDir string) *Builder {
	return &Builder{dir: dir, outDir: outDir, builds: map[string]*build{}}
}

// Build returns the bootstrap binary of importPath, building it on the first call. Concurrent
// calls for one package share one build; a failed build is reported to every caller.
func (b *Builder) Build(ctx context.Context, importPath string) (string, error) {
	b.mu.Lock()
	bd, ok := b.builds[importPath]
	if !ok {
		bd = &build{done: make(chan struct{})}
		b.builds[importPath] = bd
	}
	b.mu.Unlock()
	if !ok {
		sub := filepath.Join(b.outDir, strings.NewReplacer("/", "_", "\\", "_", ":", "_").Replace(importPath))
		bd.binary, bd.err = Build(ctx, importPath, BuildOptions{Dir: b.dir, OutDir: sub})
		if ctx.Err() != nil && bd.err != nil {
			// A cancelled build says nothing about the package: let a later call try again.
			b.mu.Lock()
			delete(b.builds, importPath)
			b.mu.Unlock()
		}
		close(bd.done)
	}
	select {
	case <-bd.done:
		return bd.binary, bd.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}
