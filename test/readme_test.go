package test

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fencedAfter returns, for each marker line in the README matching re, the first submatch of
// the marker and the text of the fenced block that follows it.
func fencedAfter(t *testing.T, re *regexp.Regexp) map[string]string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	lines := strings.Split(string(readme), "\n")
	for i := 0; i < len(lines); i++ {
		m := re.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "```") {
			t.Fatalf("README line %d: %q is not followed by a fenced block", i+1, lines[i])
		}
		var block strings.Builder
		for j := i + 2; j < len(lines) && lines[j] != "```"; j++ {
			block.WriteString(lines[j] + "\n")
		}
		out[m[1]] = block.String()
	}
	return out
}

// TestReadmeEmbedsTheExampleApp checks that the README's embedding section is the example app's
// code, to the byte, so that the code a user copies is the code CI builds and runs.
func TestReadmeEmbedsTheExampleApp(t *testing.T) {
	blocks := fencedAfter(t, regexp.MustCompile(`^<!-- embed: (\S+) -->$`))
	if len(blocks) < 2 {
		t.Fatalf("README embeds %d files, want the example app's main.go and its function", len(blocks))
	}
	for path, block := range blocks {
		want, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(path)))
		if err != nil {
			t.Fatalf("README embeds %s: %v", path, err)
		}
		if block != string(want) {
			t.Errorf("README's copy of %s differs from the file: copy the file into the README again", path)
		}
	}
}

// TestReadmeRunsWhatCIRuns checks that the README's "run your own app locally" commands are the
// recipe of the make target CI runs.
func TestReadmeRunsWhatCIRuns(t *testing.T) {
	blocks := fencedAfter(t, regexp.MustCompile(`^<!-- run: make (\S+) -->$`))
	if len(blocks) == 0 {
		t.Fatal("README shows no commands of a make target")
	}
	for target, block := range blocks {
		if got, want := block, recipe(t, target); got != want {
			t.Errorf("README's commands for make %s:\n%s\nthe Makefile's recipe:\n%s", target, got, want)
		}
	}
}

// recipe returns the commands of a Makefile target, one a line, without the tab, the line
// continuations and the && that join them.
func recipe(t *testing.T, target string) string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out strings.Builder
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, target+":"):
			in = true
		case in && strings.HasPrefix(line, "\t"):
			cmd := strings.TrimSuffix(strings.TrimSpace(line), "\\")
			out.WriteString(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(cmd), "&&")) + "\n")
		case in:
			return out.String()
		}
	}
	return out.String()
}
