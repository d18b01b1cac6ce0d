package golambda

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrNoModule is returned by FindModuleRoot when no directory from the start up to the file
// system root holds a go.mod file.
var ErrNoModule = errors.New("no go.mod found")

// FindModuleRoot returns the nearest directory, from start upwards, that holds a go.mod file.
func FindModuleRoot(start string) (string, error) {
	dir, err := filepath.Abs(start)
	if err != nil {
		return "", fmt.Errorf("golambda: module root of %q: %w", start, err)
	}
	for {
		info, err := os.Stat(filepath.Join(dir, "go.mod"))
		if err == nil && info.Mode().IsRegular() {
			return dir, nil
		}
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("golambda: module root of %q: %w", start, err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("golambda: %w in %s or any parent directory: run the CDK app from inside the Go module", ErrNoModule, start)
		}
		dir = parent
	}
}
