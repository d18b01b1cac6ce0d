//go:build unix

package ddblocal

import (
	"os/exec"
	"syscall"
)

// terminateGroup sends SIGTERM to the command's process group.
func terminateGroup(cmd *exec.Cmd) { signalGroup(cmd, syscall.SIGTERM) }

// killGroup sends SIGKILL to the command's process group.
func killGroup(cmd *exec.Cmd) { signalGroup(cmd, syscall.SIGKILL) }

// signalGroup signals every process of the group that the command leads. An error means the
// group is already gone, which is what the caller wants.
func signalGroup(cmd *exec.Cmd, sig syscall.Signal) {
	_ = syscall.Kill(-cmd.Process.Pid, sig)
}
