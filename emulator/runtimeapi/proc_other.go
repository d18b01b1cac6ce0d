//go:build !unix

package runtimeapi

import "os/exec"

// setProcessGroup does nothing where there are no process groups.
func setProcessGroup(*exec.Cmd) {}

// killProcessGroup kills a started process.
func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Kill() //nolint:errcheck // already gone is fine
	}
}
