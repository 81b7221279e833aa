package pglocal

import (
	"fmt"
	"net"
)

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago. The
// port may be taken again before the server binds it; Start retries then.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port on 127.0.0.1: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
