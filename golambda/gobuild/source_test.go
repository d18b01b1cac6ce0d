package gobuild_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnstile-sfn/turnstile/golambda/gobuild"
)

func TestIsImportPath(t *testing.T) {
	tests := []struct {
		pkg  string
		want bool
	}{
		{"github.com/turnstile-sfn/turnstile/lambdas/handoff", true},
		{"example.com/app", true},
		{"lambdas/dowork", false},
		{"./lambdas/dowork", false},
		{"./v1.2/fn", false},
		{"../other.com/fn", false},
		{"cmd", false},
	}
	for _, tt := range tests {
		if got := gobuild.IsImportPath(tt.pkg); got != tt.want {
			t.Errorf("IsImportPath(%q) = %v, want %v", tt.pkg, got, tt.want)
		}
	}
}

func TestResolve(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	want := gobuild.Source{
		ImportPath: "github.com/turnstile-sfn/turnstile/lambdas/dowork",
		ModulePath: "github.com/turnstile-sfn/turnstile",
		ModuleDir:  root,
		Dir:        "lambdas/dowork",
		MainModule: true,
	}
	// The same package by directory (from a subdirectory of the module too) and by import path.
	for _, pkg := range []string{"lambdas/dowork", "./lambdas/dowork", want.ImportPath} {
		got, err := gobuild.Resolve(".", pkg)
		if err != nil {
			t.Fatalf("Resolve(%q) error = %v", pkg, err)
		}
		if got != want {
			t.Errorf("Resolve(%q) = %+v, want %+v", pkg, got, want)
		}
	}
}

// TestResolveFromAnotherModule resolves a package of this module from an app module of its own
// that requires it through a replace directive, as a user's app does: the package is found in
// this module, which is not the app's main module.
func TestResolveFromAnotherModule(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	app := t.TempDir()
	goMod := "module example.com/app\n\ngo 1.26\n\nrequire github.com/turnstile-sfn/turnstile v0.0.0\n\nreplace github.com/turnstile-sfn/turnstile => " + root + "\n"
	if err := os.WriteFile(filepath.Join(app, "go.mod"), []byte(goMod), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := gobuild.Resolve(app, "github.com/turnstile-sfn/turnstile/lambdas/handoff")
	if err != nil {
		t.Fatal(err)
	}
	want := gobuild.Source{
		ImportPath: "github.com/turnstile-sfn/turnstile/lambdas/handoff",
		ModulePath: "github.com/turnstile-sfn/turnstile",
		ModuleDir:  root,
		Dir:        "lambdas/handoff",
	}
	if got != want {
		t.Errorf("Resolve() = %+v, want %+v", got, want)
	}
	// Built with this module's own go.mod: the app's go.sum has none of the function's imports.
	if _, err := gobuild.Build(context.Background(), got, gobuild.Lambda, t.TempDir()); err != nil {
		t.Errorf("Build() error = %v", err)
	}
}

func TestResolveWithoutModule(t *testing.T) {
	_, err := gobuild.Resolve(t.TempDir(), "lambdas/work")
	if !errors.Is(err, gobuild.ErrNoModule) {
		t.Errorf("Resolve() error = %v, want ErrNoModule", err)
	}
}

func TestResolveErrors(t *testing.T) {
	tests := []struct {
		pkg  string
		want error
	}{
		{"lambdas/nothing", gobuild.ErrPackageNotFound},
		{"example.com/nobody/fn", gobuild.ErrPackageNotFound},
		{"github.com/turnstile-sfn/turnstile/slot", gobuild.ErrNotMain},
	}
	for _, tt := range tests {
		if _, err := gobuild.Resolve(".", tt.pkg); !errors.Is(err, tt.want) {
			t.Errorf("Resolve(%q) error = %v, want %v", tt.pkg, err, tt.want)
		}
	}
}

// TestResolveInAWorkspace resolves a package of this module from an app whose go.work uses both
// the app and a checkout of this module: the workspace finds the package without a requirement.
func TestResolveInAWorkspace(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	app := filepath.Join(dir, "app")
	if err := os.Mkdir(app, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(app, "go.mod"), []byte("module example.com/app\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	work := "go 1.26\n\nuse (\n\t./app\n\t" + root + "\n)\n"
	if err := os.WriteFile(filepath.Join(dir, "go.work"), []byte(work), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOWORK", filepath.Join(dir, "go.work"))
	got, err := gobuild.Resolve(app, "github.com/turnstile-sfn/turnstile/lambdas/reconciler")
	if err != nil {
		t.Fatal(err)
	}
	if got.ModuleDir != root || got.Dir != "lambdas/reconciler" || !got.MainModule {
		t.Errorf("Resolve() = %+v, want lambdas/reconciler of %s, a workspace module", got, root)
	}
	if _, err := gobuild.Build(context.Background(), got, gobuild.Lambda, t.TempDir()); err != nil {
		t.Errorf("Build() error = %v", err)
	}
}

func TestBuildReportsCompilerOutput(t *testing.T) {
	source, err := gobuild.Resolve(".", "golambda/testdata/broken")
	if err != nil {
		t.Fatal(err)
	}
	_, err = gobuild.Build(context.Background(), source, gobuild.Lambda, t.TempDir())
	var buildErr *gobuild.BuildError
	if !errors.As(err, &buildErr) {
		t.Fatalf("Build() error = %v, want *BuildError", err)
	}
	if want := "github.com/turnstile-sfn/turnstile/golambda/testdata/broken"; buildErr.Package != want {
		t.Errorf("BuildError.Package = %q, want %q", buildErr.Package, want)
	}
	if !strings.Contains(err.Error(), "main.go") || !strings.Contains(err.Error(), `"not an int"`) {
		t.Errorf("Build() error = %q, want the compiler's message about main.go", err)
	}
}

func TestArgs(t *testing.T) {
	got := strings.Join(gobuild.Source{Dir: "lambdas/dowork"}.Args("/out"), " ")
	want := "build -tags lambda.norpc -trimpath -buildvcs=false -ldflags=-s -w -o /out/bootstrap ./lambdas/dowork"
	if got != want {
		t.Errorf("Args() = %q, want %q", got, want)
	}
}
