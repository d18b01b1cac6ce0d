package machines_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/lock"
)

// cleanupGoldenCases are the cleanup machines and redrive guards kept as golden files.
func cleanupGoldenCases() []struct {
	name  string
	build func(machines.CleanupOptions) (*asl.StateMachine, error)
	opts  machines.CleanupOptions
} {
	return []struct {
		name  string
		build func(machines.CleanupOptions) (*asl.StateMachine, error)
		opts  machines.CleanupOptions
	}{
		{"cleanup-lock-name", machines.Cleanup, machines.CleanupOptions{LockName: "MySemaphore"}},
		{"cleanup-lock-name-path", machines.Cleanup, machines.CleanupOptions{LockNamePath: "$.environment"}},
		{"cleanup-callback", machines.Cleanup, machines.CleanupOptions{LockName: "MySemaphore", Limit: 5, HandOffFunctionArn: machines.Placeholder(machines.SubstitutionHandOffFunctionArn)}},
		{"redrive-guard-lock-name", machines.RedriveGuard, machines.CleanupOptions{LockName: "MySemaphore", Limit: 5}},
		{"redrive-guard-lock-name-path", machines.RedriveGuard, machines.CleanupOptions{LockNamePath: "$.deploy.environment", Limit: 2}},
		{"cleanup-several-locks", machines.Cleanup, machines.CleanupOptions{Locks: severalLocks(), Limit: 2, HandOffFunctionArn: machines.Placeholder(machines.SubstitutionHandOffFunctionArn)}},
		{"cleanup-several-locks-poll", machines.Cleanup, machines.CleanupOptions{Locks: severalLocks(), Limit: 2}},
		{"cleanup-total-limit", machines.Cleanup, machines.CleanupOptions{LockNamePath: "$.tenant", Limit: 3, TotalLimit: 12, HandOffFunctionArn: machines.Placeholder(machines.SubstitutionHandOffFunctionArn)}},
		{"redrive-guard-several-locks", machines.RedriveGuard, machines.CleanupOptions{Locks: severalLocks(), Limit: 2, HandOffFunctionArn: machines.Placeholder(machines.SubstitutionHandOffFunctionArn)}},
	}
}

// TestCleanupGolden renders every cleanup case and compares it with testdata/<name>.asl.json
// (rewritten with -update).
func TestCleanupGolden(t *testing.T) {
	for _, tc := range cleanupGoldenCases() {
		t.Run(tc.name, func(t *testing.T) {
			m, err := tc.build(tc.opts)
			if err != nil {
				t.Fatalf("build: %v", err)
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

// TestCleanupOptionErrors checks that bad options are named, with their sentinel kinds.
func TestCleanupOptionErrors(t *testing.T) {
	tests := []struct {
		name    string
		build   func(machines.CleanupOptions) (*asl.StateMachine, error)
		opts    machines.CleanupOptions
		wantErr error
		wantMsg string
	}{
		{"no lock name", machines.Cleanup, machines.CleanupOptions{}, machines.ErrLockName, "CleanupOptions.LockName or LockNamePath is required"},
		{"both lock names", machines.Cleanup, machines.CleanupOptions{LockName: "a", LockNamePath: "$.a"}, machines.ErrLockName, "CleanupOptions.LockName and LockNamePath are mutually exclusive"},
		{"bad path", machines.Cleanup, machines.CleanupOptions{LockNamePath: "$..a"}, machines.ErrLockNamePath, "CleanupOptions.LockNamePath must be"},
		{"guard without limit", machines.RedriveGuard, machines.CleanupOptions{LockName: "a"}, machines.ErrLimit, "CleanupOptions.Limit must be > 0, got 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.build(tc.opts)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if got := err.Error(); !strings.HasPrefix(got, tc.wantMsg) {
				t.Errorf("message = %q, want prefix %q", got, tc.wantMsg)
			}
		})
	}
}

// TestCleanupReleasesWithTheSemaphoresExpressions checks that the cleanup's release and the
// guard's re-acquire are the lock's own transactions (package lock's expressions), and that a
// cancelled one is read back.
func TestCleanupReleasesWithTheSemaphoresExpressions(t *testing.T) {
	cleanup, err := machines.Cleanup(machines.CleanupOptions{LockName: "L"})
	if err != nil {
		t.Fatal(err)
	}
	guard, err := machines.RedriveGuard(machines.CleanupOptions{LockName: "L", Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		machine         *asl.StateMachine
		state           string
		wantUpdate      string
		wantCondition   string
		wantCaughtNext  string
		wantLimitString string
	}{
		{cleanup, machines.StateReleaseHolder, lock.ReleaseCountUpdate, lock.ReleaseCountCondition, machines.StateCheckReleased, ""},
		{guard, machines.StateReacquireSlot, lock.AcquireCountUpdate, lock.AcquireCountCondition, machines.StateCheckRedrivenHolder, "3"},
	}
	for _, tc := range tests {
		task, ok := tc.machine.States.Get(tc.state).(*asl.Task)
		if !ok || task.Resource != machines.ResourceTransactWriteItems {
			t.Fatalf("%s is not a TransactWriteItems task", tc.state)
		}
		items := task.Parameters.(map[string]any)["TransactItems"].([]any)
		update := items[0].(map[string]any)["Update"].(map[string]any)
		if got := update["UpdateExpression"]; got != tc.wantUpdate {
			t.Errorf("%s UpdateExpression = %v, want %v", tc.state, got, tc.wantUpdate)
		}
		if got := update["ConditionExpression"]; got != tc.wantCondition {
			t.Errorf("%s ConditionExpression = %v, want %v", tc.state, got, tc.wantCondition)
		}
		if got := task.Catch[0]; got.ErrorEquals[0] != machines.ErrorTransactionCanceled || got.Next != tc.wantCaughtNext {
			t.Errorf("%s first catcher = %v → %s, want %s → %s", tc.state, got.ErrorEquals, got.Next, machines.ErrorTransactionCanceled, tc.wantCaughtNext)
		}
		if tc.wantLimitString != "" {
			limit := update["ExpressionAttributeValues"].(map[string]any)[":limit"].(map[string]any)["N"]
			if limit != tc.wantLimitString {
				t.Errorf("%s :limit = %v, want %s", tc.state, limit, tc.wantLimitString)
			}
		}
	}
}
