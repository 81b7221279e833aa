package main

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/config"
)

// The service's client of model providers keeps its connections to a
// provider between calls, however many run at once: ten rounds of eight
// concurrent calls open at most eight connections (the default transport
// kept two and dialled six again every round).
func TestProviderClientReusesConcurrentConnections(t *testing.T) {
	var opened atomic.Int64
	var arrived sync.WaitGroup
	var mu sync.Mutex
	release := make(chan struct{})
	provider := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		round := release
		mu.Unlock()
		arrived.Done()
		<-round // all eight calls are in flight at once
		_, _ = io.WriteString(w, `{"ok":true}`)
	}))
	provider.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			opened.Add(1)
		}
	}
	provider.Start()
	defer provider.Close()

	a := &app{cfg: config.Config{}, log: slog.New(slog.DiscardHandler)}
	require.NoError(t, a.buildTelemetry(t.Context()))
	const calls, rounds = 8, 10
	for range rounds {
		arrived.Add(calls)
		var done sync.WaitGroup
		for range calls {
			done.Go(func() {
				resp, err := a.outbound.For(true).Get(provider.URL)
				if !assert.NoError(t, err) {
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
			})
		}
		arrived.Wait()
		mu.Lock()
		close(release)
		release = make(chan struct{})
		mu.Unlock()
		done.Wait()
	}
	require.LessOrEqual(t, opened.Load(), int64(calls), "connections opened in %d rounds of %d calls", rounds, calls)
}
