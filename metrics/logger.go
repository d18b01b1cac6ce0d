package metrics

import (
	"io"
	"sync"
	"time"
)

// Logger writes Turnstile's metrics of one semaphore as EMF lines. It is safe for concurrent
// use: each line is one Write. A nil *Logger writes nothing, so a function without a
// semaphore name in its environment runs without metrics.
type Logger struct {
	mu        sync.Mutex
	w         io.Writer
	semaphore string
	now       func() time.Time
}

// NewLogger returns a Logger writing to w (a Lambda function's standard output) with
// semaphore as the value of DimensionSemaphore and now as the clock of the timestamps.
func NewLogger(w io.Writer, semaphore string, now func() time.Time) *Logger {
	return &Logger{w: w, semaphore: semaphore, now: now}
}

// NewLoggerFromEnv is NewLogger with the semaphore's name read from EnvSemaphore; it returns
// nil (no metrics) when the variable is not set.
func NewLoggerFromEnv(w io.Writer, lookup func(string) (string, bool), now func() time.Time) *Logger {
	name, _ := lookup(EnvSemaphore)
	if name == "" {
		return nil
	}
	return NewLogger(w, name, now)
}

// Now returns the Logger's clock reading (time.Now for a nil Logger).
func (l *Logger) Now() time.Time {
	if l == nil {
		return time.Now()
	}
	return l.now()
}

// Emit writes values as one line for the lock: under {Semaphore} and {Semaphore, LockName}.
func (l *Logger) Emit(lock string, values ...Value) error {
	if l == nil || len(values) == 0 {
		return nil
	}
	e := Event{
		Time:          l.now(),
		Namespace:     Namespace,
		DimensionSets: [][]string{{DimensionSemaphore}, {DimensionSemaphore, DimensionLockName}},
		Dimensions:    map[string]string{DimensionSemaphore: l.semaphore, DimensionLockName: lock},
		Values:        values,
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return Encode(l.w, e)
}

// Count is a UnitCount value.
func Count(name string, n int) Value { return Value{Name: name, Unit: UnitCount, Value: float64(n)} }

// Milliseconds is a UnitMilliseconds value of d.
func Milliseconds(name string, d time.Duration) Value {
	return Value{Name: name, Unit: UnitMilliseconds, Value: float64(d) / float64(time.Millisecond)}
}
