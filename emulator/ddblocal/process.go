package ddblocal

import (
	"os/exec"
	"runtime"
	"time"
)

// process is a started command and the news of its end.
type process struct {
	cmd     *exec.Cmd
	exited  chan struct{} // closed once the command has been waited for
	waitErr error         // how it ended; read only after exited is closed
}

// spawn starts cmd in its own process group and waits for it in the background.
//
// On Linux the child is also killed if this process dies (Pdeathsig). The kernel sends that
// signal when the thread that started the child exits, not the process, so the goroutine that
// starts the child keeps its OS thread until the child has ended.
func spawn(cmd *exec.Cmd) (*process, error) {
	cmd.SysProcAttr = processAttributes()
	p := &process{cmd: cmd, exited: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return p, nil
}

// running reports whether the process has not ended yet.
func (p *process) running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// stop asks the process group to terminate, kills it if it has not ended after grace, and waits
// for the end.
func (p *process) stop(grace time.Duration) {
	if !p.running() {
		return
	}
	terminateGroup(p.cmd)
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-p.exited:
		return
	case <-timer.C:
	}
	killGroup(p.cmd)
	<-p.exited
}
