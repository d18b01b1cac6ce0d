package main

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
)

// TestLockCommandsNameEachMissingRequiredFlag: every lock command, given all of its required
// flags but one, refuses with exit status 2 and an error that names the missing flag, before it
// connects to anything.
func TestLockCommandsNameEachMissingRequiredFlag(t *testing.T) {
	const execution = "arn:aws:states:us-east-1:000000000000:execution:M:e1"
	const machine = "arn:aws:states:us-east-1:000000000000:stateMachine:M"
	commands := []struct {
		cmd string
		// flags are the required flags and their values (with limit, its change: --set).
		flags [][2]string
	}{
		{"inspect", [][2]string{{"table", "T"}}},
		{"release", [][2]string{{"table", "T"}, {"lock", "L"}, {"execution", execution}, {"limit", "2"}}},
		{"reconcile", [][2]string{{"table", "T"}, {"state-machine", machine}, {"limit", "2"}}},
		{"limit", [][2]string{{"table", "T"}, {"lock", "L"}, {"set", "2"}}},
		{"pause", [][2]string{{"table", "T"}, {"lock", "L"}}},
		{"resume", [][2]string{{"table", "T"}, {"lock", "L"}}},
		{"drain", [][2]string{{"table", "T"}, {"lock", "L"}}},
		{"submit", [][2]string{{"table", "T"}, {"state-machine", machine}}},
		{"submission", [][2]string{{"table", "T"}, {"lock", "L"}, {"id", "1-0123456789abcdef"}}},
		{"cancel", [][2]string{{"table", "T"}, {"lock", "L"}, {"id", "1-0123456789abcdef"}}},
	}
	for _, c := range commands {
		for missing := range c.flags {
			name := c.flags[missing][0]
			t.Run(c.cmd+" without --"+name, func(t *testing.T) {
				args := []string{c.cmd}
				for _, f := range slices.Delete(slices.Clone(c.flags), missing, missing+1) {
					args = append(args, "--"+f[0], f[1])
				}
				var stdout, stderr bytes.Buffer
				if code := run(context.Background(), args, &stdout, &stderr); code != exitUsage {
					t.Errorf("%v: exit status %d, want %d; stderr: %s", args, code, exitUsage, stderr.String())
				}
				if got := stderr.String(); !strings.Contains(got, "--"+name+" ") {
					t.Errorf("%v: stderr %q does not name --%s", args, got, name)
				}
			})
		}
	}
}

// TestLockCommandsShareTheirFlags: every lock command takes the lock table, --json and the
// endpoints of a local stack, and says what --table is.
func TestLockCommandsShareTheirFlags(t *testing.T) {
	for _, cmd := range []string{"inspect", "release", "reconcile", "limit", "pause", "resume", "drain", "submit", "submission", "cancel"} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), []string{cmd, "-h"}, &stdout, &stderr); code != exitOK {
			t.Errorf("%s -h: exit status %d, want 0", cmd, code)
		}
		for _, want := range []string{"-table string\n    \tthe lock table (required)", "-json\n", "-endpoint-dynamodb string", "-endpoint-sfn string"} {
			if !strings.Contains(stderr.String(), want) {
				t.Errorf("%s -h lacks %q:\n%s", cmd, want, stderr.String())
			}
		}
	}
}
