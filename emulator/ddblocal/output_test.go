package ddblocal

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

func TestProcessErrorMessageAndUnwrap(t *testing.T) {
	exit := &exec.ExitError{}
	err := &ProcessError{Reason: ErrExited, Exit: exit, Output: "java.net.BindException: Address already in use\n"}
	for _, want := range []string{ErrExited.Error(), "BindException: Address already in use"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Error() = %q, want it to contain %q", err.Error(), want)
		}
	}
	var gotExit *exec.ExitError
	if !errors.Is(err, ErrExited) || !errors.As(err, &gotExit) || gotExit != exit {
		t.Errorf("errors.Is/As do not reach the reason and the exit error of %v", err)
	}
}
