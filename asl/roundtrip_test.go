package asl_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/turnstile-sfn/turnstile/asl"
)

// conformanceDir is the shared folder of ASL cases recorded against AWS Step Functions.
const conformanceDir = "../../shared/conformance/aws-recorded"

// TestRoundTripConformanceDefinitions parses every recorded definition (JSONPath and JSONata),
// validates it, renders it
// and checks that the rendering means the same JSON as the original.
func TestRoundTripConformanceDefinitions(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(conformanceDir, "*", "*.json"))
	jsonata, _ := filepath.Glob(filepath.Join(conformanceDir+"-jsonata", "*", "*.json"))
	files = append(files, jsonata...)
	if len(files) == 0 {
		t.Skipf("no conformance cases in %s (a user's clone has no ../shared): skipping", conformanceDir)
	}
	var unsupported int
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var c struct {
			Definition json.RawMessage `json:"definition"`
		}
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		m, err := asl.Parse(c.Definition)
		if errors.Is(err, asl.ErrUnsupported) {
			unsupported++
			continue
		}
		if err != nil {
			t.Errorf("%s: parse: %v", filepath.Base(f), err)
			continue
		}
		if err := m.Validate(); err != nil {
			t.Errorf("%s: validate: %v", filepath.Base(f), err)
		}
		out, err := m.Render()
		if err != nil {
			t.Fatalf("%s: render: %v", f, err)
		}
		var got, want any
		_ = json.Unmarshal(out, &got)
		_ = json.Unmarshal(c.Definition, &want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: rendering differs\n got: %s\nwant: %s", filepath.Base(f), out, c.Definition)
		}
	}
	t.Logf("%d definitions round-tripped, %d use unsupported features", len(files)-unsupported, unsupported)
}
