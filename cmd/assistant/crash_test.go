package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/internal/pgtest"
)

// A job held by a worker that died (its lease was never renewed) is taken
// over by a live worker once the lease expires, and finishes.
func TestAJobOfADeadWorkerIsTakenOver(t *testing.T) {
	e := newEnv(t)
	kb := e.createKB("", "acme", "support")["id"].(string)
	e.app.stopBackground() // no live worker for now
	e.app.background.Wait()

	r := e.upload(upload{kbID: kb, partName: "a.txt", content: []byte("a line about refunds\nand one about shipping\n")})
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	jobID := r.JSON(t)["job"].(map[string]any)["id"].(string)
	// A worker claims it and dies: the lease is left to expire.
	job, ok, err := e.app.store.ClaimJob(t.Context(), "dead-worker", time.Second)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, jobID, job.ID)

	e.app.startBackground(context.Background()) // a live worker comes up
	t.Cleanup(func() { e.app.stopBackground(); e.app.background.Wait() })
	done := e.waitJob("acme", jobID)
	assert.Equal(t, "succeeded", done["state"])
	assert.EqualValues(t, 2, done["attempts"], "the dead worker's attempt and the live one's")
}

// kill -9 during a batch of uploads loses nothing: after a restart every
// document ends indexed, without duplicated chunks.
func TestKillDuringABatchOfUploadsLosesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the real binary")
	}
	bin := filepath.Join(t.TempDir(), "assistant")
	build := exec.Command("go", "build", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)

	cfg := testConfig(t, pgtest.NewDatabase(t))
	addr := freeAddr(t)
	start := func() *exec.Cmd {
		cmd := exec.Command(bin)
		cmd.Env = append(os.Environ(), "DATABASE_URL="+cfg.DatabaseURL, "ASSISTANT_ADDR="+addr,
			"ASSISTANT_DATA_DIR="+cfg.DataDir, "ASSISTANT_DEFAULT_API_KEY="+cfg.DefaultAPIKey,
			"ASSISTANT_INDEX_LEASE=2s", "ASSISTANT_INDEX_WORKERS=1", "LOG_LEVEL=warn")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		require.NoError(t, cmd.Start())
		require.Eventually(t, func() bool {
			res, err := http.Get("http://" + addr + "/readyz")
			if err != nil {
				return false
			}
			res.Body.Close()
			return res.StatusCode == http.StatusOK
		}, 30*time.Second, 50*time.Millisecond)
		return cmd
	}
	proc := start()
	e := &env{t: t, cfg: cfg, root: cfg.DefaultAPIKey, srv: nil}
	e.attachRemote(t, "http://"+addr)
	kb := e.createKB("", "acme", "batch")["id"].(string)

	const files = 12
	var docs []string
	for i := range files {
		lines := strings.Repeat(fmt.Sprintf("document %d says something about refunds and shipping policies.\n", i), 400)
		r := e.upload(upload{kbID: kb, partName: fmt.Sprintf("doc-%02d.txt", i), content: []byte(lines)})
		require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
		docs = append(docs, r.JSON(t)["document"].(map[string]any)["id"].(string))
	}
	require.NoError(t, proc.Process.Signal(syscall.SIGKILL)) // mid-batch, no goodbye
	_ = proc.Wait()

	proc = start()
	t.Cleanup(func() { _ = proc.Process.Signal(syscall.SIGTERM); _ = proc.Wait() })
	require.Eventually(t, func() bool {
		r := e.do(req{method: "GET", path: "/api/v1/admin/kb/documents?limit=200", tenant: "acme"})
		ready := 0
		for _, it := range r.JSON(t)["items"].([]any) {
			if it.(map[string]any)["status"] == "ready" {
				ready++
			}
		}
		return ready == files
	}, 90*time.Second, 200*time.Millisecond, "every document ends ready")
	for _, id := range docs {
		doc := e.do(req{method: "GET", path: "/api/v1/admin/kb/documents/" + id, tenant: "acme"}).JSON(t)
		assert.Len(t, e.chunks("acme", id), int(doc["chunkCount"].(float64)), "no duplicated chunks")
	}
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().String()
}
