package ddblocal

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLocateTools(t *testing.T) {
	installed, err := installDir("")
	if err != nil {
		t.Skip(err)
	}
	if _, err := os.Stat(filepath.Join(installed, libDir)); err != nil {
		t.Fatalf("%s holds the jar but not %s: %v", installed, libDir, err)
	}
	missing := t.TempDir()
	notExecutable := filepath.Join(missing, "no-java")

	tests := []struct {
		name    string
		opts    Options
		wantErr error
		wantDir string
		wantIn  []string // substrings of the error message
	}{
		{name: "default: found from the working directory", wantDir: installed},
		{name: "explicit dir", opts: Options{Dir: installed}, wantDir: installed},
		{name: "explicit dir without the jar", opts: Options{Dir: missing}, wantErr: ErrNotInstalled, wantIn: []string{"make setup", missing, "Options.Dir"}},
		{name: "explicit java that does not exist", opts: Options{Java: notExecutable}, wantErr: ErrJavaMissing, wantIn: []string{"openjdk-17-jre-headless", notExecutable}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := locateTools(tt.opts)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("locateTools error = %v, want %v", err, tt.wantErr)
				}
				for _, s := range tt.wantIn {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not mention %q", err, s)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("locateTools: %v", err)
			}
			if got.dir != tt.wantDir || got.java == "" {
				t.Errorf("locateTools = %+v, want dir %s and a java command", got, tt.wantDir)
			}
		})
	}
}

func TestLocateToolsFromAnotherWorkingDirectory(t *testing.T) {
	installed, err := installDir("")
	if err != nil {
		t.Skip(err)
	}
	t.Chdir(t.TempDir())
	got, err := installDir("")
	if err != nil || got != installed {
		t.Fatalf("installDir from a directory outside the module = %q, %v; want %q found from the source", got, err, installed)
	}
}

func TestJavaMissingFromPath(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := locateTools(Options{})
	if errors.Is(err, ErrNotInstalled) {
		t.Skip(err)
	}
	if !errors.Is(err, ErrJavaMissing) || !strings.Contains(err.Error(), "apt-get install openjdk-17-jre-headless") {
		t.Fatalf("locateTools with no java on PATH: %v, want ErrJavaMissing naming the package to install", err)
	}
}
