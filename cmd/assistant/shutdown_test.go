package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/operate"
)

// serveOnLoopback runs the app's real server loop on a free loopback port,
// as main does; stop is what SIGTERM does, and served yields serve's result.
func serveOnLoopback(t *testing.T, e *env) (addr string, stop context.CancelFunc, served <-chan error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	done := make(chan error, 1)
	go func() { done <- e.app.serve(ctx, ln) }()
	return ln.Addr().String(), cancel, done
}

// An in-flight request finishes when the service is told to stop; new
// connections are refused afterwards.
func TestGracefulShutdownFinishesInFlightRequests(t *testing.T) {
	e := newEnv(t)
	addr, stop, served := serveOnLoopback(t, e)
	url := "http://" + addr + "/api/v1/admin/kb/knowledge-bases"

	// The body arrives in two parts; the request is in flight in between.
	pr, pw := io.Pipe()
	hr, err := http.NewRequest("POST", url, pr)
	require.NoError(t, err)
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("X-API-Key", e.root)
	hr.Header.Set("X-Tenant-Id", "acme")
	answered := make(chan *http.Response, 1)
	go func() {
		res, err := http.DefaultClient.Do(hr)
		if err == nil {
			answered <- res
		}
		close(answered)
	}()
	_, err = pw.Write([]byte(`{"name": "in fl`))
	require.NoError(t, err)
	time.Sleep(100 * time.Millisecond) // let the server start reading

	stop() // what SIGTERM does in main
	time.Sleep(100 * time.Millisecond)
	_, err = pw.Write([]byte(`ight"}`))
	require.NoError(t, err)
	require.NoError(t, pw.Close())

	res, ok := <-answered
	require.True(t, ok, "the in-flight request got an answer")
	defer res.Body.Close()
	assert.Equal(t, http.StatusCreated, res.StatusCode)
	require.NoError(t, <-served, "serve returns cleanly")
	assert.Contains(t, e.logs.String(), `"msg":"stopped"`)

	_, err = http.Get("http://" + addr + "/healthz")
	assert.Error(t, err, "no new connections after shutdown")
}

func TestHealthcheckCommand(t *testing.T) {
	e := newEnv(t)
	addr, stop, served := serveOnLoopback(t, e)
	getenv := func(k string) string {
		if k == "ASSISTANT_ADDR" {
			return addr
		}
		return ""
	}
	assert.Equal(t, 0, operate.Healthcheck(getenv, os.Stderr), "ready")
	stop()
	require.NoError(t, <-served)
	assert.Equal(t, 1, operate.Healthcheck(getenv, os.Stderr), "not serving")
}
