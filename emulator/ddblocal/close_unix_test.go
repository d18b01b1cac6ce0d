//go:build unix

package ddblocal

import (
	"errors"
	"net"
	"net/url"
	"syscall"
	"testing"
)

func TestCloseLeavesNoProcessBehind(t *testing.T) {
	srv, err := Start(t.Context(), Options{})
	if errors.Is(err, ErrNotInstalled) || errors.Is(err, ErrJavaMissing) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	pid := srv.proc.cmd.Process.Pid
	if err := syscall.Kill(-pid, 0); err != nil {
		t.Fatalf("process group %d before Close: %v, want it alive", pid, err)
	}

	if err := srv.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := syscall.Kill(-pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("signal 0 to process group %d after Close: %v, want ESRCH (no such process)", pid, err)
	}
	u, err := url.Parse(srv.Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	if conn, err := net.Dial("tcp", u.Host); err == nil {
		conn.Close()
		t.Errorf("%s still accepts connections after Close", u.Host)
	}
	if err := srv.Close(); err != nil {
		t.Errorf("second Close: %v, want nil", err)
	}
}

func TestCloseReportsAServerThatDied(t *testing.T) {
	srv, err := Start(t.Context(), Options{})
	if errors.Is(err, ErrNotInstalled) || errors.Is(err, ErrJavaMissing) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	if err := syscall.Kill(srv.proc.cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-srv.proc.exited

	err = srv.Close()
	var perr *ProcessError
	if !errors.As(err, &perr) || !errors.Is(err, ErrExited) || perr.Exit == nil {
		t.Fatalf("Close = %v, want a *ProcessError wrapping ErrExited with the exit status", err)
	}
}
