package golambda_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/turnstile-sfn/turnstile/internal/golambda"
)

func TestFindModuleRoot(t *testing.T) {
	withModule := t.TempDir()
	nested := filepath.Join(withModule, "a", "b")
	if err := os.MkdirAll(nested, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(withModule, "go.mod"), []byte("module example.com/m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	withoutModule := t.TempDir()
	tests := []struct {
		name    string
		start   string
		want    string
		wantErr error
	}{
		{name: "module root itself", start: withModule, want: withModule},
		{name: "nested directory", start: nested, want: withModule},
		{name: "no go.mod upwards", start: withoutModule, wantErr: golambda.ErrNoModule},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := golambda.FindModuleRoot(tt.start)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("FindModuleRoot() error = %v, want %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("FindModuleRoot() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFindModuleRootOfThisRepository(t *testing.T) {
	got, err := golambda.FindModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	want, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("FindModuleRoot(.) = %q, want %q", got, want)
	}
}
