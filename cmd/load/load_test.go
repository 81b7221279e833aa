package main

import (
	"bytes"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/access"
	"github.com/cs-assistant/assistant/clients/go"
	"github.com/cs-assistant/assistant/internal/pgtest"
	"github.com/cs-assistant/assistant/store/pg"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m, pg.Migrate)) }

// Bounds of the service process: start-up migrates and loads the indexes
// (much slower on a loaded 2-core machine than idle).
const (
	serviceReadyTimeout = 90 * time.Second
	serviceStopTimeout  = 60 * time.Second
)

// startService builds cmd/assistant and runs it on a fresh database, a free
// loopback port and the default rate limits, with a known default key. It
// returns the URL, the key and the process, stopped when the test ends.
func startService(t *testing.T) (url, key string, proc *os.Process) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "assistant")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/cs-assistant/assistant/cmd/assistant").CombinedOutput()
	require.NoError(t, err, "%s", out)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	key = access.NewSecret()
	logFile := filepath.Join(t.TempDir(), "assistant.log")
	f, err := os.Create(logFile)
	require.NoError(t, err)
	defer f.Close()
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "DATABASE_URL="+pgtest.NewDatabase(t), "ASSISTANT_ADDR="+addr,
		"ASSISTANT_DATA_DIR="+t.TempDir(), "ASSISTANT_DEFAULT_API_KEY="+key, "LOG_LEVEL=warn")
	cmd.Stdout, cmd.Stderr = f, f
	require.NoError(t, cmd.Start())
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(serviceStopTimeout):
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			data, _ := os.ReadFile(logFile)
			t.Logf("service log:\n%s", data[max(0, len(data)-8<<10):])
		}
	})
	url = "http://" + addr
	hc := &http.Client{Timeout: 2 * time.Second}
	require.Eventually(t, func() bool {
		select {
		case <-exited:
			return true // fails below
		default:
		}
		res, err := hc.Get(url + "/readyz")
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == http.StatusOK
	}, serviceReadyTimeout, 50*time.Millisecond)
	select {
	case <-exited:
		t.Fatal("the service exited at start; see its log")
	default:
	}
	return url, key, cmd.Process
}

// smallConfig is a run of a few seconds against url: 500 chunks in three
// files, 4 customers for 3 s, the process found from the port.
func smallConfig(url, key string) Config {
	return Config{URL: url, Key: key, Tenant: "load", KBName: "Load test FAQ", Chunks: 500, FileChunks: 200,
		Uploads: 2, IndexTimeout: 2 * time.Minute, Customers: 4, Duration: 3 * time.Second,
		MessageTimeout: 30 * time.Second, RaiseLimits: true, Poll: 100 * time.Millisecond}
}

// The program's core against the real service: it seeds, talks, measures
// sane figures with no errors, finds the service's process by its port,
// reuses the seeded knowledge base on the next run and replaces it when the
// size changes; with a key that cannot lift the limits, 429s are counted
// as their own kind.
func TestLoadAgainstTheRealService(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the real service")
	}
	url, key, proc := startService(t)
	var log bytes.Buffer
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("load's log:\n%s", log.String())
		}
	})

	cfg := smallConfig(url, key)
	rep, err := run(t.Context(), cfg, &log)
	require.NoError(t, err)
	assert.False(t, rep.KB.Reused)
	assert.Equal(t, 500, rep.KB.Chunks, "one chunk per FAQ entry, counted by the service")
	assert.Positive(t, rep.KB.Took)
	assert.Contains(t, rep.Limits, "raised to 1000000 per key")
	assert.Empty(t, rep.Errors, "no errors: %v", rep.Errors)
	// One session per customer, and a new one after each hand-off (the
	// handed-over session waits for a person).
	assert.GreaterOrEqual(t, rep.Sessions, cfg.Customers, "one session per customer")
	assert.LessOrEqual(t, rep.Sessions, cfg.Customers+rep.Transferred, "a new session only after a hand-off")
	assert.Greater(t, rep.Messages, 2*cfg.Customers, "several replies per customer in 3 s")
	assert.Positive(t, rep.Transferred, "the uncovered questions are handed over")
	assert.Greater(t, rep.Messages-rep.Transferred, rep.Transferred, "most questions are covered and answered")
	assert.InDelta(t, float64(rep.Messages)/rep.Elapsed.Seconds(), rep.MsgsPerSec(), 1e-9)
	assert.GreaterOrEqual(t, rep.Elapsed, cfg.Duration)
	assert.Less(t, rep.Elapsed, cfg.Duration+cfg.MessageTimeout)
	assert.Equal(t, rep.Messages, rep.Done.N)
	assert.Equal(t, rep.Messages, rep.FirstDelta.N, "every reply streams a delta before done")
	for _, l := range []Latency{rep.FirstDelta, rep.Done} {
		assert.Positive(t, l.P50)
		assert.LessOrEqual(t, l.P50, l.P95)
		assert.LessOrEqual(t, l.P95, l.P99)
		assert.LessOrEqual(t, l.P99, l.Max)
		assert.Less(t, l.Max, cfg.MessageTimeout)
	}
	// Each reply's first delta comes before its done, so every percentile does.
	assert.LessOrEqual(t, rep.FirstDelta.P50, rep.Done.P50)
	assert.LessOrEqual(t, rep.FirstDelta.P99, rep.Done.P99)
	assert.Equal(t, proc.Pid, rep.PID, "the process listening on the URL's port")
	assert.Greater(t, rep.RSSBefore, int64(10<<20))
	assert.GreaterOrEqual(t, rep.RSSPeak, max(rep.RSSBefore, rep.RSSAfter))
	assert.NotEmpty(t, rep.LoadBefore)
	assert.Positive(t, rep.ServiceCPU, "the service worked")
	assert.Positive(t, rep.LoadCPU)
	assert.GreaterOrEqual(t, rep.MachineCPU, rep.LoadCPU, "the machine's busy time includes this program's")

	var table bytes.Buffer
	rep.write(&table)
	for _, want := range []string{"| knowledge base ", rep.KB.ID + ", 500 chunks, seeded in", "| throughput ", " msgs/s",
		"| to first delta p50 / p95 / p99 / max | ", "| errors ", "| service RSS before / peak / after "} {
		assert.Contains(t, table.String(), want)
	}

	t.Run("the next run reuses the knowledge base", func(t *testing.T) {
		again := cfg
		again.Customers, again.Duration = 2, time.Second
		rep2, err := run(t.Context(), again, &log)
		require.NoError(t, err)
		assert.True(t, rep2.KB.Reused)
		assert.Equal(t, rep.KB.ID, rep2.KB.ID)
		assert.Equal(t, 500, rep2.KB.Chunks)
		assert.Zero(t, rep2.KB.Took)
		assert.Empty(t, rep2.Errors)
		assert.Positive(t, rep2.Messages)
	})

	t.Run("another size replaces it", func(t *testing.T) {
		other := cfg
		other.Chunks, other.Customers, other.Duration, other.PID = 300, 2, time.Second, -1
		rep3, err := run(t.Context(), other, &log)
		require.NoError(t, err)
		assert.False(t, rep3.KB.Reused)
		assert.NotEqual(t, rep.KB.ID, rep3.KB.ID)
		assert.Equal(t, 300, rep3.KB.Chunks)
		assert.Empty(t, rep3.Errors)
		assert.Zero(t, rep3.PID, "-pid -1 measures nothing")
		s, err := newService(url, key, "load", 1)
		require.NoError(t, err)
		kb, err := s.findKB(t.Context(), cfg.KBName)
		require.NoError(t, err)
		require.NotNil(t, kb)
		assert.Equal(t, rep3.KB.ID, kb.Id, "one knowledge base of that name is left")
		assert.Equal(t, marker(300, true), kb.Description)
	})

	t.Run("429s are their own kind of error", func(t *testing.T) {
		tight := tightTenant(t, url, key, "tight", 40)
		c := smallConfig(url, tight)
		c.Tenant, c.Chunks, c.FileChunks, c.Duration, c.Poll = "tight", 50, 50, 2*time.Second, 500*time.Millisecond
		rep4, err := run(t.Context(), c, &log)
		require.NoError(t, err)
		assert.Contains(t, rep4.Limits, "NOT raised")
		assert.Positive(t, rep4.Errors["HTTP 429 rate_limited"], "errors: %v", rep4.Errors)
		assert.Equal(t, rep4.Errors.total(), rep4.Errors["HTTP 429 rate_limited"]+rep4.Errors["open session: HTTP 429 rate_limited"],
			"nothing but 429s: %v", rep4.Errors)
		assert.Positive(t, rep4.Messages, "the first minute's tokens are spent on replies")
	})
}

// tightTenant limits tenant to perMinute requests a minute (per key and for
// the tenant) and returns a new key bound to it, which cannot lift them.
func tightTenant(t *testing.T, url, platformKey, tenant string, perMinute int32) string {
	t.Helper()
	s, err := newService(url, platformKey, tenant, 1)
	require.NoError(t, err)
	_, err = s.prepareTenant(t.Context(), false) // creates the tenant
	require.NoError(t, err)
	up, err := s.api.UpdateTenantWithResponse(t.Context(), tenant, client.TenantUpdateRequest{
		RateLimits: &client.TenantRateLimits{PerKeyPerMinute: &perMinute, PerTenantPerMinute: &perMinute}})
	require.NoError(t, expect(up, err, http.StatusOK, "limit the tenant"))
	k, err := s.api.CreateApiKeyWithResponse(t.Context(), &client.CreateApiKeyParams{}, client.ApiKeyCreateRequest{
		Name: "load test, " + tenant, Scopes: []client.ApiKeyScope{client.ApiKeyScopeAdmin, client.ApiKeyScopeChat}, TenantId: &tenant})
	require.NoError(t, expect(k, err, http.StatusCreated, "create a tenant key"))
	return k.JSON201.Secret
}
