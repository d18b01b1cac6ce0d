package dynalite

import (
	"bytes"
	"sync"
)

// tailBuffer is an io.Writer that keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func newTailBuffer(max int) *tailBuffer { return &tailBuffer{max: max} }

// Write keeps the end of p, dropping the oldest bytes beyond the limit.
func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// String returns the kept bytes.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// lineSignal is an io.Writer that closes seen the first time a written line starts with prefix.
// Everything else is discarded.
type lineSignal struct {
	mu      sync.Mutex
	prefix  []byte
	partial []byte // the current, unfinished line, capped at len(prefix)
	found   bool
	seen    chan struct{}
}

func newLineSignal(prefix string) *lineSignal {
	return &lineSignal{prefix: []byte(prefix), seen: make(chan struct{})}
}

// Write scans p for the awaited line.
func (s *lineSignal) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range p {
		if s.found {
			break
		}
		if c == '\n' {
			s.partial = s.partial[:0]
			continue
		}
		if len(s.partial) < len(s.prefix) {
			s.partial = append(s.partial, c)
			if bytes.Equal(s.partial, s.prefix) {
				s.found = true
				close(s.seen)
			}
		}
	}
	return len(p), nil
}
