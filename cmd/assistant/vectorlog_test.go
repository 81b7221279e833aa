package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestKBVectorLogIsSwitchedByTheSettings(t *testing.T) {
	e := newEnv(t)
	kb := e.createKB("", "acme", "faq")["id"].(string)
	logFile := filepath.Join(e.cfg.DataDir, "tenants", "acme", "logs", "vectors.log")

	_, job := e.uploadAndWait(upload{kbID: kb, partName: "a.txt", content: []byte("first line\nsecond line\n")})
	require.Equal(t, "succeeded", job["state"])
	assert.NoFileExists(t, logFile, "off by default")

	settings := e.do(req{method: "GET", path: "/api/v1/admin/settings", tenant: "acme"}).JSON(t)
	settings["kb_vector_log_enabled"], settings["kb_vector_log_path"] = true, "logs/vectors.log"
	delete(settings, "tenantId")
	delete(settings, "updatedAt")
	require.Equal(t, http.StatusOK, e.do(req{method: "PUT", path: "/api/v1/admin/settings", tenant: "acme", body: settings}).Status)

	doc, job := e.uploadAndWait(upload{kbID: kb, partName: "b.txt", content: []byte("third line\nfourth line\n")})
	require.Equal(t, "succeeded", job["state"])
	f, err := os.Open(logFile)
	require.NoError(t, err, "switched on at run time")
	defer f.Close()
	lines := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var entry map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &entry))
		assert.Equal(t, "acme", entry["tenant"])
		assert.Equal(t, kb, entry["kb"])
		assert.Equal(t, doc["id"], entry["document"])
		assert.Regexp(t, `^chk_`, entry["chunk"])
		assert.Equal(t, "offline-hash-v1", entry["model"])
		assert.EqualValues(t, 768, entry["dims"])
		assert.InDelta(t, 1.0, entry["norm"], 1e-3)
		lines++
	}
	assert.Equal(t, job["progress"].(map[string]any)["total"], float64(lines), "one line per indexed chunk")
}
