package dynalite

import (
	"fmt"
	"net"
)

// loopbackHost is the only address dynalite listens on.
const loopbackHost = "127.0.0.1"

// freePort asks the kernel for a loopback port that is free now. Another process may take it
// before dynalite binds it; Start detects that and tries again with a new port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(loopbackHost, "0"))
	if err != nil {
		return 0, fmt.Errorf("dynalite: find a free port: %w", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		return 0, fmt.Errorf("dynalite: release port %d: %w", port, err)
	}
	return port, nil
}
