package golambda_test

import (
	"debug/elf"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"github.com/turnstile-sfn/turnstile/golambda"
	"github.com/turnstile-sfn/turnstile/golambda/gobuild"
)

// assetDir returns the directory of the bundled code of the function at path.
func assetDir(t *testing.T, path string) string {
	t.Helper()
	fn := resourceAt(t, template(t, bundledStack), path)
	metadata, _ := fn["Metadata"].(map[string]any)
	dir, ok := metadata["aws:asset:path"].(string)
	if !ok {
		t.Fatalf("%s has no aws:asset:path metadata: %v", path, metadata)
	}
	return filepath.Join(synthesized.outdir, dir)
}

// TestBundledBootstrap checks that each bundled asset holds one static, stripped arm64 ELF
// executable named bootstrap, and that functions of different packages get different assets.
func TestBundledBootstrap(t *testing.T) {
	seen := map[string]string{}
	for _, name := range []string{"Hello", "DoWork"} {
		t.Run(name, func(t *testing.T) {
			dir := assetDir(t, "Bundled/"+name+"/Function")
			if other, ok := seen[dir]; ok {
				t.Errorf("%s and %s share the asset %s", name, other, dir)
			}
			seen[dir] = name

			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 1 || entries[0].Name() != gobuild.BinaryName {
				t.Errorf("asset holds %v, want only %s", entries, gobuild.BinaryName)
			}
			path := filepath.Join(dir, gobuild.BinaryName)
			info, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if info.Mode().Perm()&0o111 == 0 {
				t.Errorf("%s mode = %v, want executable", path, info.Mode())
			}
			binary, err := elf.Open(path)
			if err != nil {
				t.Fatalf("%s is not an ELF file: %v", path, err)
			}
			defer binary.Close()
			if binary.Machine != elf.EM_AARCH64 || binary.Class != elf.ELFCLASS64 || binary.Type != elf.ET_EXEC {
				t.Errorf("ELF machine, class, type = %v, %v, %v; want EM_AARCH64, ELFCLASS64, ET_EXEC",
					binary.Machine, binary.Class, binary.Type)
			}
			for _, prog := range binary.Progs {
				if prog.Type == elf.PT_INTERP {
					t.Errorf("binary has an interpreter (dynamically linked), want static (CGO_ENABLED=0)")
				}
			}
			if _, err := binary.Symbols(); !errors.Is(err, elf.ErrNoSymbols) {
				t.Errorf("Symbols() error = %v, want ErrNoSymbols (stripped by -ldflags=-s -w)", err)
			}
		})
	}
}

// TestFailedBuildFailsTheFunction checks that a package that does not compile stops the
// construction of its function with the compiler's message, rather than falling back to Docker.
func TestFailedBuildFailsTheFunction(t *testing.T) {
	app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(t.TempDir())})
	stack := awscdk.NewStack(app, jsii.String("Broken"), nil)
	got := panicValue(func() {
		golambda.New(stack, jsii.String("Broken"), &golambda.Props{
			Package: jsii.String("golambda/testdata/broken"),
		})
	})
	err, _ := got.(error)
	var buildErr *gobuild.BuildError
	if !errors.As(err, &buildErr) {
		t.Fatalf("panic = %v (%T), want a *BuildError", got, got)
	}
	if !strings.Contains(buildErr.Output, `"not an int"`) {
		t.Errorf("BuildError.Output = %q, want the compiler's message", buildErr.Output)
	}
}
