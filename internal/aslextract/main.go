package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ErrDuplicateLogicalID is returned when two stacks hold a state machine of the same logical ID,
// which would be written to the same file.
var ErrDuplicateLogicalID = errors.New("two state machines share a logical ID")

func main() {
	cdkOut := flag.String("cdk-out", "cdk.out", "the cloud assembly directory written by cdk synth")
	out := flag.String("out", "", "where to write the .asl.json files (default: <cdk-out>/asl)")
	flag.Parse()
	if *out == "" {
		*out = filepath.Join(*cdkOut, "asl")
	}
	if err := extract(*cdkOut, *out, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "aslextract:", err)
		os.Exit(1)
	}
}

// extract writes the definition of every state machine of the templates under cdkOut into
// outDir, one <LogicalId>.asl.json each, and prints each path it writes to log.
func extract(cdkOut, outDir string, log io.Writer) error {
	templates, err := templateFiles(cdkOut, outDir)
	if err != nil {
		return err
	}
	if len(templates) == 0 {
		return fmt.Errorf("no *.template.json under %s: run cdk synth first", cdkOut)
	}
	if err := clearASLFiles(outDir); err != nil {
		return err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	writtenBy := map[string]string{} // file name → template that defined it
	for _, path := range templates {
		tmpl, err := readTemplate(path)
		if err != nil {
			return err
		}
		machines, err := tmpl.machines()
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		for _, m := range machines {
			name := m.LogicalID + ".asl.json"
			if other, ok := writtenBy[name]; ok {
				return fmt.Errorf("%w: %s in %s and in %s", ErrDuplicateLogicalID, m.LogicalID, other, path)
			}
			writtenBy[name] = path
			target := filepath.Join(outDir, name)
			if err := os.WriteFile(target, m.ASL, 0o644); err != nil {
				return err
			}
			fmt.Fprintln(log, target)
		}
	}
	return nil
}

// templateFiles returns the *.template.json files under cdkOut, sorted, leaving out asset
// directories and outDir.
func templateFiles(cdkOut, outDir string) ([]string, error) {
	var paths []string
	err := filepath.WalkDir(cdkOut, func(path string, entry fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if entry.IsDir() && path != cdkOut &&
			(strings.HasPrefix(entry.Name(), "asset.") || filepath.Clean(path) == filepath.Clean(outDir)) {
			return filepath.SkipDir
		}
		if !entry.IsDir() && strings.HasSuffix(entry.Name(), ".template.json") {
			paths = append(paths, path)
		}
		return nil
	})
	sort.Strings(paths)
	return paths, err
}

// clearASLFiles removes the *.asl.json files of outDir, if it exists.
func clearASLFiles(outDir string) error {
	stale, err := filepath.Glob(filepath.Join(outDir, "*.asl.json"))
	if err != nil {
		return err
	}
	for _, path := range stale {
		if err := os.Remove(path); err != nil {
			return err
		}
	}
	return nil
}
