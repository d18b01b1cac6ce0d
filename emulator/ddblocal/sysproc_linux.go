package ddblocal

import "syscall"

// processAttributes puts DynamoDB Local in its own process group, so that Close can signal it and any
// children together, and has the kernel kill it if this process dies first.
func processAttributes() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
