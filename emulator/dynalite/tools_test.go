package dynalite

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLocateTools(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	installed := filepath.Join(root, ".cdk")
	if _, err := os.Stat(filepath.Join(installed, "node_modules", "dynalite")); err != nil {
		t.Skipf("the pinned tooling is not installed in %s: %v", installed, err)
	}
	missing := t.TempDir()

	tests := []struct {
		name     string
		explicit string
		env      string
		wantErr  bool
		wantIn   []string // substrings of the error message
	}{
		{name: "default: .cdk beside go.mod", wantErr: false},
		{name: "explicit dir", explicit: installed, wantErr: false},
		{name: "environment", env: installed, wantErr: false},
		{name: "explicit dir wins over environment", explicit: installed, env: missing, wantErr: false},
		{name: "explicit dir without tooling", explicit: missing, wantErr: true, wantIn: []string{"make setup", missing, "Options.ToolsDir"}},
		{name: "environment without tooling", env: missing, wantErr: true, wantIn: []string{"make setup", missing, EnvToolsDir}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(EnvToolsDir, tt.env)
			got, err := locateTools(tt.explicit)
			if tt.wantErr {
				if !errors.Is(err, ErrNotInstalled) {
					t.Fatalf("locateTools error = %v, want ErrNotInstalled", err)
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
			want := tools{
				node: filepath.Join(installed, "node_modules", ".bin", "node"),
				cli:  filepath.Join(installed, "node_modules", "dynalite", "cli.js"),
			}
			if got != want {
				t.Errorf("locateTools = %+v, want %+v", got, want)
			}
		})
	}
}
