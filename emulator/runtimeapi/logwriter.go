package runtimeapi

import (
	"io"
	"sync"
)

// syncWriter serialises the writes of a function's processes to one log.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// writeLine writes one prefixed line in a single Write.
func (s *syncWriter) writeLine(prefix string, line []byte) {
	buf := make([]byte, 0, len(prefix)+len(line)+1)
	buf = append(append(buf, prefix...), line...)
	if len(buf) == 0 || buf[len(buf)-1] != '\n' {
		buf = append(buf, '\n')
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.w.Write(buf) //nolint:errcheck // a failing log must not fail the function
}

// lineWriter is one output stream of a process: it cuts what the process writes into lines and
// writes each with the function's prefix, as CloudWatch Logs shows a function's output. os/exec
// copies a stream from one goroutine, so Write is not called concurrently.
type lineWriter struct {
	out    *syncWriter
	prefix string
	buf    []byte
}

// Write logs every complete line of p and keeps the rest for later.
func (w *lineWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	start := 0
	for i, c := range w.buf {
		if c == '\n' {
			w.out.writeLine(w.prefix, w.buf[start:i+1])
			start = i + 1
		}
	}
	w.buf = append(w.buf[:0], w.buf[start:]...)
	return len(p), nil
}

// flush logs an unterminated last line.
func (w *lineWriter) flush() {
	if len(w.buf) > 0 {
		w.out.writeLine(w.prefix, w.buf)
		w.buf = nil
	}
}
