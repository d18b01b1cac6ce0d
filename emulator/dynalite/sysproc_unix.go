//go:build unix && !linux

package dynalite

import "syscall"

// processAttributes puts dynalite in its own process group, so that Close can signal it and any
// children together.
func processAttributes() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
