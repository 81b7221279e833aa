package main

import (
	"fmt"
	"net"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A /proc/net/tcp table: the listening socket of a port is found, not
// connections to it nor listeners on other ports.
func TestListeningInodes(t *testing.T) {
	table := `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4242 1 0000000000000000 100 0 0 10 0
   1: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 5151 1 0000000000000000 20 4 30 10 -1
   2: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 999 1 0000000000000000 100 0 0 10 0
`
	assert.Equal(t, []string{"4242"}, listeningInodes(strings.NewReader(table), 8080))
	assert.Equal(t, []string{"999"}, listeningInodes(strings.NewReader(table), 22))
	assert.Empty(t, listeningInodes(strings.NewReader(table), 9090))
}

// The process listening on a URL's port is found: here, this test.
func TestListenerOfFindsThisProcess(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	pid, err := listenerOf(fmt.Sprintf("http://%s/", ln.Addr()))
	require.NoError(t, err)
	assert.Equal(t, os.Getpid(), pid)
	rss, err := rssBytes(pid)
	require.NoError(t, err)
	assert.Greater(t, rss, int64(1<<20))
	assert.NotEmpty(t, procName(pid))
	cpu, err := cpuTime(pid)
	require.NoError(t, err)
	assert.Positive(t, cpu, "this test binary has run")
	assert.Positive(t, selfCPU())
	busy, err := machineBusy()
	require.NoError(t, err)
	assert.GreaterOrEqual(t, busy, cpu, "the machine was busy at least while this process was")

	_, err = listenerOf("http://192.0.2.1:8080") // TEST-NET-1: not this machine
	assert.ErrorContains(t, err, "not this machine")
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	_, err = listenerOf(fmt.Sprintf("http://127.0.0.1:%d", port))
	assert.ErrorContains(t, err, "no socket listens")
}
