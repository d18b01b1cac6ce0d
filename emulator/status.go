package emulator

import (
	"sync"
	"time"
)

// ExecutionStatus is the status of an execution.
type ExecutionStatus string

// The execution statuses.
const (
	StatusRunning   ExecutionStatus = "RUNNING"
	StatusSucceeded ExecutionStatus = "SUCCEEDED"
	StatusFailed    ExecutionStatus = "FAILED"
	StatusTimedOut  ExecutionStatus = "TIMED_OUT"
	StatusAborted   ExecutionStatus = "ABORTED"
)

// StatusChange is an execution's change of status: its description at that moment, with the
// fields of EventBridge's "Step Functions Execution Status Change" event detail. It is sent when
// an execution starts or is redriven (RUNNING) and when it ends.
type StatusChange struct {
	ExecutionDescription
	// Time is when the change happened.
	Time time.Time
}

// statusDispatcher delivers status changes to listeners in order on its own goroutine.
type statusDispatcher struct {
	mu        sync.Mutex
	listeners []func(StatusChange)
	queue     []queuedChange
	hold      func() (release func()) // the clock's Hold: a queued change is work in flight
	wake      chan struct{}
	done      chan struct{}
	closing   bool
}

// queuedChange is a change waiting for delivery, with the busy token it holds meanwhile.
type queuedChange struct {
	change  StatusChange
	release func()
}

func newStatusDispatcher(hold func() (release func())) *statusDispatcher {
	d := &statusDispatcher{wake: make(chan struct{}, 1), done: make(chan struct{}), hold: hold}
	go d.loop()
	return d
}

func (d *statusDispatcher) subscribe(f func(StatusChange)) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.listeners = append(d.listeners, f)
}

// publish queues a change; it never blocks.
func (d *statusDispatcher) publish(c StatusChange) {
	d.mu.Lock()
	if d.closing || len(d.listeners) == 0 {
		d.mu.Unlock()
		return
	}
	d.queue = append(d.queue, queuedChange{change: c, release: d.hold()})
	d.mu.Unlock()
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

func (d *statusDispatcher) loop() {
	defer close(d.done)
	for {
		d.mu.Lock()
		batch, listeners, closing := d.queue, d.listeners, d.closing
		d.queue = nil
		d.mu.Unlock()
		for _, c := range batch {
			for _, f := range listeners {
				f(c.change)
			}
			c.release()
		}
		if len(batch) > 0 {
			continue
		}
		if closing {
			return
		}
		<-d.wake
	}
}

// close delivers what is queued, then stops the dispatcher and waits for it.
func (d *statusDispatcher) close() {
	d.mu.Lock()
	d.closing = true
	d.mu.Unlock()
	select {
	case d.wake <- struct{}{}:
	default:
	}
	<-d.done
}
