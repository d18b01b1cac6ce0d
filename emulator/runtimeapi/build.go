package runtimeapi

import (
	"context"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/turnstile-sfn/turnstile/golambda/gobuild"
)

// native is the platform of this machine: a function runs here as a process of its own.
var native = gobuild.Target{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH}

// Builder builds functions' Go main packages for this machine, each once, the way golambda
// builds them for AWS (package gobuild): resolved from a module directory, built in the
// directory of the module that provides them. It is safe for concurrent use: calls for a package
// being built wait for that build.
type Builder struct {
	dir, outDir string

	mu     sync.Mutex
	builds map[string]*build
}

// build is one package's build, shared by every caller that asks for it.
type build struct {
	done   chan struct{}
	binary string
	err    error
}

// NewBuilder returns a Builder that resolves import paths from the Go module (or workspace) at
// dir ("" for the working directory) and writes each binary below outDir.
func NewBuilder(dir, outDir string) *Builder {
	return &Builder{dir: dir, outDir: outDir, builds: map[string]*build{}}
}

// Build returns the path of the bootstrap binary of the main package importPath, building it on
// the first call. The errors are gobuild's: ErrGoNotFound, ErrPackageNotFound, ErrNotMain, a
// *BuildError with the compiler's output. A build cut short by ctx is tried again on the next
// call.
func (b *Builder) Build(ctx context.Context, importPath string) (string, error) {
	b.mu.Lock()
	bd, ok := b.builds[importPath]
	if !ok {
		bd = &build{done: make(chan struct{})}
		b.builds[importPath] = bd
	}
	b.mu.Unlock()
	if !ok {
		bd.binary, bd.err = b.buildOnce(ctx, importPath)
		if ctx.Err() != nil && bd.err != nil {
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

// buildOnce resolves and builds one package into a directory of its own below outDir.
func (b *Builder) buildOnce(ctx context.Context, importPath string) (string, error) {
	dir := b.dir
	if dir == "" {
		dir = "."
	}
	src, err := gobuild.Resolve(dir, importPath)
	if err != nil {
		return "", err
	}
	sub := filepath.Join(b.outDir, strings.NewReplacer("/", "_", "\\", "_", ":", "_").Replace(importPath))
	return gobuild.Build(ctx, src, native, sub)
}
