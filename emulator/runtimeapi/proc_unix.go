//go:build unix

package runtimeapi

import (
	"os/exec"
	"syscall"
)

// setProcessGroup makes the process the leader of a new process group, so that killing the
// group ends whatever it started too.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killProcessGroup kills a started process and its process group.
func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) //nolint:errcheck // already gone is fine
	}
}
