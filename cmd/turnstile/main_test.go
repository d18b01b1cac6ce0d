package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestBadInputExitsWithAClearMessage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no command", nil, "Usage:"},
		{"unknown command", []string{"simulat"}, `unknown command "simulat"`},
		{"limit 0", []string{"simulate", "--limit", "0"}, "--limit: must be an integer from 1 to 1000000, got 0"},
		{"negative failure rate", []string{"simulate", "--failure-rate", "-0.5"}, "--failure-rate:"},
		{"failure rate above 1", []string{"simulate", "--failure-rate", "1.5"}, "--failure-rate:"},
		{"negative work time", []string{"simulate", "--work-time", "-1s"}, "--work-time:"},
		{"no executions", []string{"simulate", "--executions", "0"}, "--executions must be at least 1, got 0"},
		{"negative time scale", []string{"simulate", "--time-scale", "-1"}, "--time-scale must be >= 0 (0 skips time), got -1"},
		{"demo flag with a cloud assembly", []string{"simulate", "--cdk-out", "x", "--limit", "3"}, "--limit configures the demo app and cannot be used with --cdk-out"},
		{"stray argument", []string{"simulate", "now"}, `simulate takes no arguments`},
		{"cloud assembly without a semaphore", []string{"simulate", "--no-progress", "--cdk-out", "../../emulator/template/testdata/cdk.out"}, "holds no Turnstile semaphore state machine (stack"},
		{"missing cloud assembly", []string{"simulate", "--no-progress", "--cdk-out", "does-not-exist"}, "does-not-exist"},
		{"load test without a machine", []string{"loadtest"}, "--state-machine-arn is required"},
		{"unknown flag", []string{"simulate", "--limt", "3"}, "flag provided but not defined: -limt"},
		{"failure rate as a percentage", []string{"simulate", "--failure-rate", "2"}, "--failure-rate: must be a fraction from 0 to 1 (0.1 is one time in ten), got 2"},
		{"reply lost above 1", []string{"simulate", "--reply-lost", "1.5"}, "--reply-lost must be a fraction from 0 to 1 (0.05 is 5 %), got 1.5"},
		{"faults above 1 together", []string{"simulate", "--reply-lost", "0.6", "--throttled", "0.6"}, "must add up to at most 1, got 1.2"},
		{"input and input file", []string{"simulate", "--input", "{}", "--input-file", "x.json"}, "--input and --input-file are mutually exclusive"},
		{"input not JSON", []string{"simulate", "--no-progress", "--input", "{oops"}, "--input is not JSON"},
		{"empty key", []string{"simulate", "--no-progress", "--keys", "a,,b"}, "--keys holds an empty key"},
		{"total limit without a lock name path", []string{"simulate", "--total-limit", "3"}, "--total-limit caps the keys of --lock-name-path together"},
		{"total limit with a cloud assembly", []string{"simulate", "--cdk-out", "x", "--lock-name-path", "$.t", "--total-limit", "3"}, "cannot be used with --cdk-out"},
		{"lock name path not a path", []string{"simulate", "--no-progress", "--lock-name-path", "env"}, `--lock-name-path: must be a "$." reference path such as "$.environment", got env`},
		{"rate without a number", []string{"simulate", "--rate", "fast"}, "a rate must start with permits a second, R or R/s"},
		{"rate with an unknown mode", []string{"simulate", "--rate", "2/s,mode=drop"}, "the modes are delay and reject"},
		{"rate with a bad burst", []string{"simulate", "--rate", "2/s,burst=0"}, "burst=B with a whole number B >= 1"},
		{"rate of zero", []string{"simulate", "--rate", "0/s"}, "--rate: has a PerSecond that must be from one a day (1/86400) to 1000 permits a second, got 0"},
		{"rate with a cloud assembly", []string{"simulate", "--cdk-out", "x", "--rate", "2/s"}, "--rate configures the demo app"},
		{"malformed cloud assembly", []string{"simulate", "--no-progress", "--cdk-out", "main.go"}, "run cdk synth"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tt.args, &stdout, &stderr)
			if code != exitUsage {
				t.Errorf("exit status %d, want %d; stderr: %s", code, exitUsage, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("stderr %q\nwant it to contain %q", stderr.String(), tt.want)
			}
		})
	}
}

func TestVersion(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--version"}, &stdout, &stderr); code != exitOK {
		t.Errorf("exit status %d, want 0", code)
	}
	if !strings.HasPrefix(stdout.String(), "turnstile ") {
		t.Errorf("--version printed %q, want \"turnstile <version>\"", stdout.String())
	}
}

func TestHelpExitsZero(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"help"}, &stdout, &stderr); code != exitOK {
		t.Errorf("exit status %d, want 0", code)
	}
	if !strings.Contains(stdout.String(), "turnstile simulate") {
		t.Errorf("help does not list simulate: %s", stdout.String())
	}
}

func TestCommandHelpExitsZero(t *testing.T) {
	for _, cmd := range []string{"simulate", "loadtest"} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), []string{cmd, "-h"}, &stdout, &stderr); code != exitOK {
			t.Errorf("%s -h: exit status %d, want 0", cmd, code)
		}
		if !strings.Contains(stderr.String(), "-executions") {
			t.Errorf("%s -h does not list its flags: %s", cmd, stderr.String())
		}
	}
}
