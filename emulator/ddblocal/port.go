package ddblocal

import (
	"fmt"
	"net"
)

// loopbackHost is the address clients reach DynamoDB Local on. DynamoDB Local has no option to
// choose its listening address: it binds every interface.
const loopbackHost = "127.0.0.1"

// freePort asks the kernel for a port that is free now. Another process may take it before
// DynamoDB Local binds it; Start detects that and tries again with a new port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", ":0")
	if err != nil {
		return 0, fmt.Errorf("ddblocal: find a free port: %w", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		return 0, fmt.Errorf("ddblocal: release port %d: %w", port, err)
	}
	return port, nil
}
