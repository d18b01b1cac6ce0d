package main

import (
	"io"
	"testing"

	"github.com/turnstile-sfn/turnstile/internal/soak"
)

func TestParseOptions(t *testing.T) {
	defaults := soak.DefaultConfig()
	tests := []struct {
		name           string
		args           []string
		wantReplyLost  float64
		wantLostBefore float64
		wantSeeds      int
		wantPairs      int
		wantJSON       bool
	}{
		{"defaults: the issue's target", nil, 0.05, 0.025, 20, 2500, false},
		{"lost before follows reply lost", []string{"--reply-lost", "0.2"}, 0.2, 0.1, 20, 2500, false},
		{"lost before set explicitly", []string{"--reply-lost", "0.2", "--lost-before", "0"}, 0.2, 0, 20, 2500, false},
		{"a small soak as JSON", []string{"--seeds", "3", "--pairs", "300", "--json"}, 0.05, 0.025, 3, 300, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseOptions(tt.args, io.Discard)
			if err != nil {
				t.Fatalf("parseOptions: %v", err)
			}
			c := got.config
			if c.ReplyLost != tt.wantReplyLost || c.LostBefore != tt.wantLostBefore {
				t.Errorf("reply lost, lost before = %v, %v, want %v, %v", c.ReplyLost, c.LostBefore, tt.wantReplyLost, tt.wantLostBefore)
			}
			if c.Seeds != tt.wantSeeds || c.Pairs != tt.wantPairs || got.json != tt.wantJSON {
				t.Errorf("seeds, pairs, json = %d, %d, %v, want %d, %d, %v", c.Seeds, c.Pairs, got.json, tt.wantSeeds, tt.wantPairs, tt.wantJSON)
			}
			if c.DropEvents != defaults.DropEvents || c.DupEvents != defaults.DupEvents {
				t.Errorf("events dropped, duplicated = %v, %v, want the defaults %v, %v", c.DropEvents, c.DupEvents, defaults.DropEvents, defaults.DupEvents)
			}
		})
	}
}

func TestParseOptionsQueueStrategy(t *testing.T) {
	got, err := parseOptions([]string{"--strategy", "callback", "--dup-events", "0.1", "--keep-failing", "kept"}, io.Discard)
	if err != nil {
		t.Fatalf("parseOptions: %v", err)
	}
	c, q := got.config, soak.DefaultQueueConfig()
	if c.Strategy != soak.StrategyCallback || c.Goroutines != q.Goroutines || c.CrashHolding != q.CrashHolding {
		t.Errorf("strategy, goroutines, crash holding = %q, %d, %v, want the queue defaults %q, %d, %v",
			c.Strategy, c.Goroutines, c.CrashHolding, q.Strategy, q.Goroutines, q.CrashHolding)
	}
	if c.DupEvents != 0.1 || c.KeepFailing != "kept" {
		t.Errorf("dup events, keep failing = %v, %q, want the flags' 0.1, %q", c.DupEvents, c.KeepFailing, "kept")
	}
}

func TestRunRejectsBadFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"unknown flag", []string{"--no-such-flag"}},
		{"stray argument", []string{"extra"}},
		{"not a number", []string{"--seeds", "many"}},
		{"invalid config", []string{"--limit", "0"}},
		{"unknown strategy", []string{"--strategy", "spin"}},
		{"failing histories kept by the Poll soak", []string{"--keep-failing", "kept"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := run(t.Context(), tt.args, io.Discard, io.Discard); got != exitError {
				t.Errorf("run(%v) = %d, want %d", tt.args, got, exitError)
			}
		})
	}
}
