package dynalite

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
)

func TestTailBufferKeepsTheEnd(t *testing.T) {
	tests := []struct {
		name   string
		max    int
		writes []string
		want   string
	}{
		{name: "under the limit", max: 10, writes: []string{"abc", "def"}, want: "abcdef"},
		{name: "at the limit", max: 6, writes: []string{"abc", "def"}, want: "abcdef"},
		{name: "over the limit across writes", max: 4, writes: []string{"abc", "def"}, want: "cdef"},
		{name: "one write over the limit", max: 3, writes: []string{"abcdefgh"}, want: "fgh"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newTailBuffer(tt.max)
			for _, w := range tt.writes {
				if n, err := b.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
			}
			if got := b.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLineSignal(t *testing.T) {
	const prefix = "Dynalite listening at:"
	tests := []struct {
		name   string
		writes []string
		want   bool
	}{
		{name: "whole line", writes: []string{"Dynalite listening at: http://127.0.0.1:1\n"}, want: true},
		{name: "split across writes", writes: []string{"Dyna", "lite listen", "ing at: http://x\n"}, want: true},
		{name: "after another line", writes: []string{"warming up\nDynalite listening at: x"}, want: true},
		{name: "not at line start", writes: []string{"note: Dynalite listening at: x\n"}, want: false},
		{name: "interrupted by a newline", writes: []string{"Dynalite\n listening at: x\n"}, want: false},
		{name: "nothing", writes: nil, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newLineSignal(prefix)
			for _, w := range tt.writes {
				if n, err := s.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
			}
			got := false
			select {
			case <-s.seen:
				got = true
			default:
			}
			if got != tt.want {
				t.Errorf("seen = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestProcessErrorMessageAndUnwrap(t *testing.T) {
	exit := &exec.ExitError{}
	err := &ProcessError{Reason: ErrExited, Exit: exit, Stderr: "Error: listen EADDRINUSE 127.0.0.1:4567\n"}
	for _, want := range []string{ErrExited.Error(), "EADDRINUSE 127.0.0.1:4567"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Error() = %q, want it to contain %q", err.Error(), want)
		}
	}
	var gotExit *exec.ExitError
	if !errors.Is(err, ErrExited) || !errors.As(err, &gotExit) || gotExit != exit {
		t.Errorf("errors.Is/As do not reach the reason and the exit error of %v", err)
	}
	if !err.addressInUse() {
		t.Errorf("addressInUse() = false for stderr %q", err.Stderr)
	}
}
