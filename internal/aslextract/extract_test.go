package main

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

func TestExtractMatchesGolden(t *testing.T) {
	out := t.TempDir()
	var log bytes.Buffer
	if err := extract(filepath.Join("testdata", "cdk.out"), out, &log); err != nil {
		t.Fatalf("extract() error = %v", err)
	}
	names := []string{"Child", "Inline", "Joined", "Substituted"}
	var wantLog strings.Builder
	for _, name := range names {
		wantLog.WriteString(filepath.Join(out, name+".asl.json") + "\n")
	}
	if got := log.String(); got != wantLog.String() {
		t.Errorf("log = %q, want %q", got, wantLog.String())
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			got, err := os.ReadFile(filepath.Join(out, name+".asl.json"))
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "golden", name+".asl.json")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s.asl.json =\n%s\nwant (%s)\n%s", name, got, golden, want)
			}
		})
	}
}

func TestExtractRemovesStaleFiles(t *testing.T) {
	out := t.TempDir()
	stale := filepath.Join(out, "Gone.asl.json")
	kept := filepath.Join(out, "notes.txt")
	for _, path := range []string{stale, kept} {
		if err := os.WriteFile(path, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := extract(filepath.Join("testdata", "cdk.out"), out, &bytes.Buffer{}); err != nil {
		t.Fatalf("extract() error = %v", err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale %s: Stat error = %v, want it removed", stale, err)
	}
	if _, err := os.Stat(kept); err != nil {
		t.Errorf("%s: %v, want it kept", kept, err)
	}
}

// writeTemplates makes a cloud assembly directory holding the given templates.
func writeTemplates(t *testing.T, templates map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range templates {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestExtractErrors(t *testing.T) {
	const pass = `{"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}}`
	machine := func(props string) string {
		return `{"Resources":{"M":{"Type":"AWS::StepFunctions::StateMachine","Properties":` + props + `}}}`
	}
	tests := []struct {
		name      string
		templates map[string]string
		wantErr   error  // when non-nil, errors.Is must hold
		wantText  string // the error must contain it
	}{
		{name: "no templates", templates: map[string]string{"manifest.json": "{}"}, wantText: "no *.template.json"},
		{name: "definition in S3", templates: map[string]string{"A.template.json": machine(`{"DefinitionS3Location":{"Bucket":"b","Key":"k"}}`)},
			wantErr: ErrNoDefinition, wantText: "state machine M"},
		{name: "unknown intrinsic", templates: map[string]string{"A.template.json": machine(`{"DefinitionString":{"Fn::Sub":"x"}}`)},
			wantErr: ErrUnsupportedIntrinsic, wantText: "Fn::Sub"},
		{name: "ref to nothing", templates: map[string]string{"A.template.json": machine(`{"DefinitionString":{"Ref":"Missing"}}`)},
			wantErr: ErrUnsupportedIntrinsic, wantText: `"Missing"`},
		{name: "not JSON once resolved", templates: map[string]string{"A.template.json": machine(`{"DefinitionString":"{\"StartAt\":"}`)},
			wantText: "not JSON"},
		{name: "same logical ID in two stacks", templates: map[string]string{
			"A.template.json":                machine(`{"DefinitionString":` + quote(pass) + `}`),
			"assembly-Stage/B.template.json": machine(`{"DefinitionString":` + quote(pass) + `}`),
		}, wantErr: ErrDuplicateLogicalID, wantText: "B.template.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := extract(writeTemplates(t, tt.templates), t.TempDir(), &bytes.Buffer{})
			if err == nil {
				t.Fatal("extract() error = nil, want an error")
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("extract() error = %v, want it to wrap %v", err, tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantText) {
				t.Errorf("extract() error = %q, want it to contain %q", err, tt.wantText)
			}
		})
	}
}

// quote renders s as a JSON string.
func quote(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}

func TestExtractSkipsAssetsAndNestsAssemblies(t *testing.T) {
	const body = `{"Resources":{"%s":{"Type":"AWS::StepFunctions::StateMachine","Properties":{"DefinitionString":"{\"StartAt\":\"P\",\"States\":{\"P\":{\"Type\":\"Pass\",\"End\":true}}}"}}}}`
	dir := writeTemplates(t, map[string]string{
		"Top.template.json":                    strings.Replace(body, "%s", "Top", 1),
		"assembly-Prod/Nested.template.json":   strings.Replace(body, "%s", "Nested", 1),
		"asset.0123abcd/Ignored.template.json": strings.Replace(body, "%s", "Ignored", 1),
	})
	out := filepath.Join(dir, "asl")
	var log bytes.Buffer
	if err := extract(dir, out, &log); err != nil {
		t.Fatalf("extract() error = %v", err)
	}
	want := filepath.Join(out, "Top.asl.json") + "\n" + filepath.Join(out, "Nested.asl.json") + "\n"
	if got := log.String(); got != want {
		t.Errorf("log = %q, want %q", got, want)
	}
}
