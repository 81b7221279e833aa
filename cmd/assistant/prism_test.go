package main

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/internal/gencheck"
)

// prismPath is Stoplight Prism, pinned in tools/npm (make tools installs
// it; make test runs make tools first).
const prismPath = "../../tools/npm/node_modules/.bin/prism"

// prismProxy runs Prism in proxy mode in front of the env: it forwards
// each request to the service and checks request and response against the
// contract the way front-end contract testers do, reporting violations in
// the sl-violations header.
type prismProxy struct {
	t    *testing.T
	base string
	key  string
}

func startPrism(t *testing.T, e *env) *prismProxy {
	if _, err := os.Stat(prismPath); err != nil {
		t.Skip("Prism is not installed (make tools installs it; make test runs it): ", err)
	}
	// Prism starts through `env node`: the Node.js make tools fetched, or
	// the machine's.
	node := findNode(gencheck.RepoRoot(t))
	if node == "" {
		t.Skip("no Node.js for Prism (make tools fetches one; make test runs it)")
	}
	addr := freeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	spec, err := filepath.Abs("../../openapi/openapi.yaml")
	require.NoError(t, err)
	logs := &syncBuffer{}
	cmd := exec.Command(prismPath, "proxy", spec, e.srv.URL+"/api/v1", "--host", "127.0.0.1", "--port", port, "--errors")
	cmd.Stdout, cmd.Stderr = logs, logs
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"))
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	require.Eventually(t, func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	}, 90*time.Second, 200*time.Millisecond, "Prism did not start:\n%s", logs)
	return &prismProxy{t: t, base: "http://" + addr, key: e.root}
}

// do sends one request through Prism and fails on any contract violation
// it reports.
func (p *prismProxy) do(method, path, contentType string, body []byte, header map[string]string) (int, []byte) {
	p.t.Helper()
	hr, err := http.NewRequest(method, p.base+path, bytes.NewReader(body))
	require.NoError(p.t, err)
	hr.Header.Set("X-API-Key", p.key)
	hr.Header.Set("X-Tenant-Id", "acme")
	if contentType != "" {
		hr.Header.Set("Content-Type", contentType)
	}
	for k, v := range header {
		hr.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(hr)
	require.NoError(p.t, err)
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	require.NoError(p.t, err)
	require.Empty(p.t, res.Header.Get("sl-violations"), "Prism reports contract violations for %s %s: %s", method, path, out)
	return res.StatusCode, out
}

func (p *prismProxy) json(method, path string, body any) (int, map[string]any) {
	p.t.Helper()
	var data []byte
	ct := ""
	if body != nil {
		data, _ = json.Marshal(body)
		ct = "application/json"
	}
	status, out := p.do(method, path, ct, data, nil)
	var m map[string]any
	if len(out) > 0 {
		require.NoError(p.t, json.Unmarshal(out, &m), "%s", out)
	}
	return status, m
}

// A scripted conversation through Prism in proxy mode: a knowledge base, an
// upload, covered and uncovered questions, a stream, the stored history and
// some errors. Prism reports no violation of the contract.
func TestPrismInProxyModeFindsNoContractViolation(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Prism")
	}
	e := newEnv(t)
	p := startPrism(t, e)

	status, kb := p.json("POST", "/admin/kb/knowledge-bases", map[string]any{"name": "faq"})
	require.Equal(t, http.StatusCreated, status)
	var form bytes.Buffer
	w := multipart.NewWriter(&form)
	require.NoError(t, w.WriteField("kbId", kb["id"].(string)))
	fw, err := w.CreateFormFile("file", "faq.txt")
	require.NoError(t, err)
	_, _ = fw.Write([]byte(faq))
	require.NoError(t, w.Close())
	status, out := p.do("POST", "/admin/kb/documents", w.FormDataContentType(), form.Bytes(), nil)
	require.Equal(t, http.StatusAccepted, status, "%s", out)
	var up map[string]any
	require.NoError(t, json.Unmarshal(out, &up))
	jobID := up["job"].(map[string]any)["id"].(string)
	require.Eventually(t, func() bool {
		_, job := p.json("GET", "/admin/kb/index/jobs/"+jobID, nil)
		return job["state"] == "succeeded"
	}, 60*time.Second, 200*time.Millisecond)

	status, session := p.json("POST", "/chat/sessions", map[string]any{})
	require.Equal(t, http.StatusCreated, status)
	messages := "/chat/sessions/" + session["id"].(string) + "/messages"
	status, reply := p.json("POST", messages, map[string]any{"message": covered})
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, false, reply["shouldTransfer"])
	status, reply = p.json("POST", messages, map[string]any{"message": "Do you sell concert tickets?"})
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, true, reply["shouldTransfer"])
	assert.NotEmpty(t, reply["transferCode"])

	status, stream := p.do("POST", messages, "application/json", []byte(`{"message":"`+covered+`"}`), map[string]string{"Accept": "text/event-stream"})
	require.Equal(t, http.StatusOK, status)
	assert.Contains(t, string(stream), "event: done")

	status, history := p.json("GET", messages, nil)
	require.Equal(t, http.StatusOK, status)
	assert.Len(t, history["items"], 6)
	for _, path := range []string{"/admin/kb/documents", "/admin/settings", "/admin/sessions", "/strategy/retrieval/current"} {
		status, _ := p.json("GET", path, nil)
		assert.Equal(t, http.StatusOK, status, path)
	}
	status, problem := p.json("GET", "/chat/sessions/ses_00000000000000000000000000000000", nil)
	assert.Equal(t, http.StatusNotFound, status)
	assert.Equal(t, "not_found", problem["code"])
	status, problem = p.json("POST", "/admin/kb/knowledge-bases", map[string]any{"name": ""})
	assert.Equal(t, http.StatusUnprocessableEntity, status, "Prism refuses the invalid request itself: %v", problem)
}
