package ddblocal

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// listensOn reports whether the process pid holds a listening TCP socket on port. DynamoDB Local
// that fails to bind its port keeps running, and another server that took the port may answer in
// its place: Start asks the kernel who listens before it trusts an answer.
func listensOn(pid, port int) (bool, error) {
	fds, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "fd"))
	if err != nil {
		return false, fmt.Errorf("ddblocal: list the sockets of process %d: %w", pid, err)
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		link, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "fd", fd.Name()))
		if inode, ok := strings.CutPrefix(link, "socket:["); err == nil && ok {
			inodes[strings.TrimSuffix(inode, "]")] = true
		}
	}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		found, err := listeningSocketIn(table, port, inodes)
		if err != nil || found {
			return found, err
		}
	}
	return false, nil
}

// listeningSocketIn reports whether the kernel's socket table (the format of /proc/net/tcp) has a
// socket listening on port whose inode is one of inodes.
func listeningSocketIn(table string, port int, inodes map[string]bool) (bool, error) {
	f, err := os.Open(table)
	if os.IsNotExist(err) {
		return false, nil // no IPv6, say
	}
	if err != nil {
		return false, fmt.Errorf("ddblocal: read %s: %w", table, err)
	}
	defer f.Close()
	const listenState = "0A"
	wantPort := fmt.Sprintf(":%04X", port)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
		fields := strings.Fields(sc.Text())
		if len(fields) < 10 || fields[3] != listenState || !strings.HasSuffix(fields[1], wantPort) {
			continue
		}
		if inodes[fields[9]] {
			return true, nil
		}
	}
	if err := sc.Err(); err != nil {
		return false, fmt.Errorf("ddblocal: read %s: %w", table, err)
	}
	return false, nil
}
