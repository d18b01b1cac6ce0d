package template_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// minimalTemplate is the smallest template Load accepts.
const minimalTemplate = `{"Resources": {"Queue": {"Type": "AWS::SQS::Queue"}}}`

// writeTemplate writes a template document to a temporary "Test.template.json" and returns its path.
func writeTemplate(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "Test.template.json")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeAssembly writes a cloud assembly holding one stack per entry (stack name → template)
// and returns its directory.
func writeAssembly(t *testing.T, stacks map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	artifacts := map[string]any{}
	for name, body := range stacks {
		file := name + ".template.json"
		if err := os.WriteFile(filepath.Join(dir, file), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		artifacts[name] = map[string]any{
			"type":        "aws:cloudformation:stack",
			"environment": "aws://unknown-account/unknown-region",
			"properties":  map[string]any{"templateFile": file},
		}
	}
	manifest, err := json.Marshal(map[string]any{"version": "48.0.0", "artifacts": artifacts})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), manifest, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}
