//go:build !unix

package ddblocal

import (
	"os/exec"
	"syscall"
)

// processAttributes leaves the defaults: there are no process groups to set up here.
func processAttributes() *syscall.SysProcAttr { return nil }

// terminateGroup kills the command: without process groups there is no gentler signal to send.
func terminateGroup(cmd *exec.Cmd) { killGroup(cmd) }

// killGroup kills the command. An error means it has already ended.
func killGroup(cmd *exec.Cmd) { _ = cmd.Process.Kill() }
