package gobuild

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
)

// ErrGoNotFound is returned when the go command is not on PATH.
var ErrGoNotFound = errors.New("the go command is not on PATH: install Go (https://go.dev/dl) or add its bin directory to PATH")

// ErrNoModule is returned when a package is given as a directory and the working directory is
// not inside a Go module.
var ErrNoModule = errors.New("no go.mod found")

// ErrPackageNotFound is returned when the go command cannot locate a function's package.
var ErrPackageNotFound = errors.New("package not found")

// ErrNotMain is returned when a function's package is not a main package.
var ErrNotMain = errors.New("not a main package")

// Source is a Go main package located on this machine: where it lives and how to build it.
type Source struct {
	// ImportPath is the package's import path, e.g. "example.com/app/work".
	ImportPath string
	// ModulePath is the path of the module that provides the package.
	ModulePath string
	// ModuleDir is the absolute directory of that module: the main module, a directory a
	// replace directive or go.work names, or the module cache.
	ModuleDir string
	// Dir is the package's directory relative to ModuleDir, with slashes ("." for the root).
	Dir string
	// MainModule reports whether the module is the main module (or a workspace module) of the
	// directory the package was resolved from. A function of another module is built with that
	// module's own go.mod, as `go install pkg@version` would.
	MainModule bool
}

// IsImportPath reports whether pkg names a package by import path rather than by a directory
// of the main module: as in the go command, the first element of an import path holds a dot
// (a domain name, e.g. "github.com/..."), the first element of a relative directory does not.
func IsImportPath(pkg string) bool {
	first, _, _ := strings.Cut(strings.TrimPrefix(pkg, "./"), "/")
	return !strings.HasPrefix(pkg, "./") && !strings.HasPrefix(pkg, "../") && strings.Contains(first, ".")
}

// Resolve locates the main package pkg, resolved from the Go module that holds dir: an import
// path ("github.com/turnstile-sfn/turnstile/lambdas/handoff", "example.com/app/work"), found
// through that module's go.mod (requirements, replace directives, go.work, the module cache),
// or a directory relative to that module's root ("lambdas/work", "./lambdas/work").
func Resolve(dir, pkg string) (Source, error) {
	goCommand, err := exec.LookPath("go")
	if err != nil {
		return Source{}, fmt.Errorf("gobuild: %w", ErrGoNotFound)
	}
	arg, workDir := pkg, dir
	if !IsImportPath(pkg) {
		clean := path.Clean(strings.TrimPrefix(pkg, "./"))
		if path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
			return Source{}, fmt.Errorf("gobuild: package %q must be an import path or a directory inside the module, relative to its root", pkg)
		}
		if workDir, err = findModuleRoot(dir); err != nil {
			return Source{}, err
		}
		arg = "./" + clean
	}
	// -e reports a package that does not load in .Error instead of failing, so that a missing
	// package gets our message; the fields are separated by tabs, which paths do not hold.
	cmd := exec.Command(goCommand, "list", "-e", "-f",
		"{{.ImportPath}}\t{{.Name}}\t{{.Dir}}\t{{with .Module}}{{.Path}}\t{{.Dir}}\t{{.Main}}{{else}}\t\t{{end}}\t{{with .Error}}{{.Err}}{{end}}", arg)
	cmd.Dir = workDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return Source{}, fmt.Errorf("gobuild: go list %s (in %s): %w: %s", arg, workDir, err, strings.TrimSpace(stderr.String()))
	}
	// The error, last, may span lines.
	fields := strings.SplitN(strings.TrimSuffix(string(out), "\n"), "\t", 7)
	if len(fields) != 7 {
		return Source{}, fmt.Errorf("gobuild: go list %s: unexpected output %q", arg, out)
	}
	importPath, name, pkgDir, modulePath, moduleDir, isMain, loadErr := fields[0], fields[1], fields[2], fields[3], fields[4], fields[5], fields[6]
	if loadErr != "" || pkgDir == "" || moduleDir == "" {
		reason := strings.Join(strings.Fields(loadErr), " ")
		if reason == "" {
			reason = "no module provides it"
		}
		return Source{}, fmt.Errorf("gobuild: %w: %q from %s: %s (give an import path that your go.mod provides, e.g. after `go get`, or a directory of your module)",
			ErrPackageNotFound, pkg, workDir, reason)
	}
	if name != "main" {
		return Source{}, fmt.Errorf("gobuild: %q is package %s, %w: a Lambda function is built from a main package that calls lambda.Start", pkg, name, ErrNotMain)
	}
	rel, err := filepath.Rel(moduleDir, pkgDir)
	if err != nil {
		return Source{}, fmt.Errorf("gobuild: %q: %w", pkg, err)
	}
	return Source{
		ImportPath: importPath,
		ModulePath: modulePath,
		ModuleDir:  moduleDir,
		Dir:        filepath.ToSlash(rel),
		MainModule: isMain == "true",
	}, nil
}

// findModuleRoot returns the nearest directory, from start upwards, that holds a go.mod file.
func findModuleRoot(start string) (string, error) {
	dir, err := filepath.Abs(start)
	if err != nil {
		return "", fmt.Errorf("gobuild: module root of %q: %w", start, err)
	}
	for {
		info, err := os.Stat(filepath.Join(dir, "go.mod"))
		if err == nil && info.Mode().IsRegular() {
			return dir, nil
		}
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("gobuild: module root of %q: %w", start, err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("gobuild: %w in %s or any parent directory: run the CDK app from inside its Go module, or name the package by import path", ErrNoModule, start)
		}
		dir = parent
	}
}
