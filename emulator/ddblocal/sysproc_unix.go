//go:build unix && !linux

package ddblocal

import "syscall"

// processAttributes puts DynamoDB Local in its own process group, so that Close can signal it and any
// children together.
func processAttributes() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
