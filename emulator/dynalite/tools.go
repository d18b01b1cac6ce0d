package dynalite

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrNotInstalled reports that the pinned Node runtime or dynalite could not be found.
var ErrNotInstalled = errors.New("dynalite: the pinned Node tooling is not installed; run `make setup` to install it into .cdk")

// tools are the paths of the pinned Node runtime and of dynalite's command-line entry point.
type tools struct {
	node string
	cli  string
}

// locateTools resolves the tools directory (explicit, else $TURNSTILE_TOOLS_DIR, else the .cdk
// directory of the enclosing Go module) and checks that Node and dynalite are installed in it.
func locateTools(explicit string) (tools, error) {
	dir, source := explicit, "Options.ToolsDir"
	if dir == "" {
		dir, source = os.Getenv(EnvToolsDir), "$"+EnvToolsDir
	}
	if dir == "" {
		root, err := moduleRoot()
		if err != nil {
			return tools{}, fmt.Errorf("%w (%w)", ErrNotInstalled, err)
		}
		dir, source = filepath.Join(root, ".cdk"), "the .cdk directory beside go.mod"
	}
	t := tools{
		node: filepath.Join(dir, "node_modules", ".bin", "node"),
		cli:  filepath.Join(dir, "node_modules", "dynalite", "cli.js"),
	}
	for _, path := range []string{t.node, t.cli} {
		if _, err := os.Stat(path); err != nil {
			return tools{}, fmt.Errorf("%w (tools directory %s, from %s: %w)", ErrNotInstalled, dir, source, err)
		}
	}
	return t, nil
}

// moduleRoot walks up from the working directory to the first directory holding a go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find the working directory: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}
