package machines_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/asl/machines"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// chainWork is a work graph of the user's own states, as the construct embeds a CDK chain.
func chainWork() *asl.Graph {
	return &asl.Graph{
		StartAt: "Prepare Report",
		States: asl.States{
			{Name: "Prepare Report", State: &asl.Pass{Transition: asl.Next("Pause"), Result: map[string]any{"report": "nightly"}, ResultPath: asl.P("$.job")}},
			{Name: "Pause", State: &asl.Wait{Transition: asl.Next("Finish"), Seconds: asl.Int(5)}},
			{Name: "Finish", State: &asl.Pass{Transition: asl.End()}},
		},
	}
}

// goldenCases are the machines kept as golden files: the default options and one variant per
// lock kind, work kind and tuning.
func goldenCases() []struct {
	name string
	opts machines.SemaphoreOptions
} {
	lambda := machines.LambdaWork(machines.Placeholder(machines.SubstitutionWorkFunctionArn))
	return []struct {
		name string
		opts machines.SemaphoreOptions
	}{
		{"semaphore-default", machines.SemaphoreOptions{LockName: "MySemaphore", Limit: 5, Work: lambda}},
		{"semaphore-lock-name-path", machines.SemaphoreOptions{LockNamePath: "$.environment", Limit: 2, Work: lambda}},
		{"semaphore-state-machine-work", machines.SemaphoreOptions{LockName: "Nightly", Limit: 1,
			Work: machines.StateMachineWork(machines.Placeholder(machines.SubstitutionWorkStateMachineArn))}},
		{"semaphore-chain-work", machines.SemaphoreOptions{LockName: "Reports", Limit: 3, Work: chainWork()}},
		{"semaphore-callback", machines.SemaphoreOptions{LockName: "MySemaphore", Limit: 5, Work: lambda, WaitStrategy: machines.WaitCallback}},
		{"semaphore-callback-lock-name-path", machines.SemaphoreOptions{LockNamePath: "$.environment", Limit: 2, Work: lambda, WaitStrategy: machines.WaitCallback, CallbackTimeout: 30 * time.Second}},
		{"semaphore-several-locks", machines.SemaphoreOptions{Locks: severalLocks(), Limit: 2, Work: lambda, WaitStrategy: machines.WaitCallback}},
		{"semaphore-several-locks-poll", machines.SemaphoreOptions{Locks: severalLocks(), Limit: 2, Work: lambda}},
		{"semaphore-total-limit", machines.SemaphoreOptions{LockNamePath: "$.tenant", Limit: 3, TotalLimit: 12, Work: lambda, WaitStrategy: machines.WaitCallback}},
		{"semaphore-callback-priority", machines.SemaphoreOptions{LockNamePath: "$.tenant", Limit: 3, Work: lambda, WaitStrategy: machines.WaitCallback,
			PriorityPath: "$.job.priority", PriorityAgeing: 50}},
		{"semaphore-callback-weight", machines.SemaphoreOptions{LockName: "Exports", Limit: 8, Work: lambda, WaitStrategy: machines.WaitCallback,
			WeightPath: "$.slots", PriorityPath: "$.priority"}},
		{"semaphore-tuned", machines.SemaphoreOptions{LockName: "MySemaphore", Limit: 10, Work: lambda, TableName: "locks",
			AcquireTimeout: 2 * time.Minute, WaitMin: 2 * time.Second, WaitMax: 10 * time.Second, Timeout: 10 * time.Minute}},
	}
}

// TestSemaphoreGolden renders every golden case and compares it with testdata/<name>.asl.json
// (rewritten with -update).
func TestSemaphoreGolden(t *testing.T) {
	for _, tc := range goldenCases() {
		t.Run(tc.name, func(t *testing.T) {
			m, err := machines.Semaphore(tc.opts)
			if err != nil {
				t.Fatalf("Semaphore: %v", err)
			}
			got, err := m.RenderIndent()
			if err != nil {
				t.Fatalf("RenderIndent: %v", err)
			}
			path := filepath.Join("testdata", tc.name+".asl.json")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the rendering (run go test -update after reviewing):\n got: %s\nwant: %s", path, got, want)
			}
		})
	}
}

// TestGoldenFilesRoundTrip parses every golden file back with asl.Parse, validates it and checks
// that it renders to the same bytes: what the emulator reads is what was generated.
func TestGoldenFilesRoundTrip(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.asl.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files in testdata (err %v)", err)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := asl.Parse(raw)
		if err != nil {
			t.Errorf("%s: parse: %v", f, err)
			continue
		}
		if err := m.Validate(); err != nil {
			t.Errorf("%s: validate: %v", f, err)
		}
		got, err := m.RenderIndent()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, raw) {
			t.Errorf("%s: parse and render changed it:\n got: %s\nwant: %s", f, got, raw)
		}
	}
}

// TestSemaphoreDeterministic renders the same options many times and expects identical bytes.
func TestSemaphoreDeterministic(t *testing.T) {
	for _, tc := range goldenCases() {
		first := render(t, tc.opts)
		for range 20 {
			if got := render(t, tc.opts); !bytes.Equal(got, first) {
				t.Fatalf("%s: two renderings differ:\n%s\n%s", tc.name, first, got)
			}
		}
	}
}

func render(t *testing.T, opts machines.SemaphoreOptions) []byte {
	t.Helper()
	m, err := machines.Semaphore(opts)
	if err != nil {
		t.Fatalf("Semaphore: %v", err)
	}
	out, err := m.Render()
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	return out
}
