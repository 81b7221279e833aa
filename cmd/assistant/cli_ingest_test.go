package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/pgtest"
	"github.com/cs-assistant/assistant/internal/testfiles"
	"github.com/cs-assistant/assistant/store/pg"
)

// writeFiles lays out files (by relative path) under a new folder.
func writeFiles(t *testing.T, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, content, 0o644))
	}
	return dir
}

// documentsByName lists a knowledge base's documents through the API.
func (e *env) documentsByName(tenant, kb string) map[string]map[string]any {
	e.t.Helper()
	r := e.do(req{method: "GET", path: "/api/v1/admin/kb/documents?limit=100&kbId=" + kb, tenant: tenant})
	require.Equal(e.t, http.StatusOK, r.Status, "%s", r.Body)
	out := map[string]map[string]any{}
	for _, it := range r.JSON(e.t)["items"].([]any) {
		d := it.(map[string]any)
		out[d["name"].(string)] = d
	}
	return out
}

func TestCLIIngest(t *testing.T) {
	e := newEnv(t)
	kb := e.createKB("", "acme", "handbook")["id"].(string)
	dir := writeFiles(t, map[string][]byte{
		"refunds.txt": []byte("Approved refunds reach the original payment method within five business days.\n"),
		"policies/returns.docx": testfiles.DOCX(
			testfiles.DOCXHeading(1, "Returns handbook"),
			testfiles.DOCXParagraph("Every camera can be returned within thirty days of delivery."),
		),
		"policies/stores.xlsx": testfiles.XLSX(testfiles.Sheet{Name: "Stores",
			Rows: [][]any{{"City", "Address"}, {"Lisbon", "Rua Augusta 12"}}}),
		"broken.pdf":       []byte("%PDF-1.7\n1 0 obj\n<< /Type /Catalog"),
		"tools/setup.exe":  []byte("MZ\x90\x00 not for the knowledge base"),
		".git/config":      []byte("[core]\n"),
		".notes-draft.txt": []byte("hidden drafts stay out"),
	})

	r := e.cli(t, "ingest", dir, "--kb", kb)
	t.Logf("stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)

	t.Run("one failure makes the exit code non-zero and is listed with its job's error", func(t *testing.T) {
		assert.Equal(t, exitFail, r.code)
		assert.Contains(t, r.stdout, kb+" (tenant acme): 3 file(s) indexed, 1 failed, 1 skipped\n")
		require.Contains(t, r.stdout, "failed:\n")
		failed := r.stdout[strings.Index(r.stdout, "failed:\n"):]
		assert.Regexp(t, `(?m)^  broken\.pdf: .+ \(corrupt_file, job job_\w+\)$`, failed)
		assert.Equal(t, 1, strings.Count(failed, "\n  "), "only the PDF failed")
	})
	t.Run("unsupported files are listed as skipped, hidden ones left out", func(t *testing.T) {
		assert.Contains(t, r.stdout, "skipped:\n  tools/setup.exe: not a supported kind (.exe)\n")
		assert.NotContains(t, r.stdout, ".git")
		assert.NotContains(t, r.stdout, "notes-draft")
	})
	t.Run("progress goes to stderr, a line per change off a terminal", func(t *testing.T) {
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		require.NotEmpty(t, lines)
		assert.Equal(t, "ingest: sent 4/4, succeeded 3, failed 1, remaining 0", lines[len(lines)-1])
		assert.Contains(t, r.stderr, "ingest: sent 0/4, succeeded 0, failed 0, remaining 4")
		assert.NotContains(t, r.stderr, "\r", "no bar drawn into a pipe")
	})
	t.Run("the others are indexed and searchable on the running service", func(t *testing.T) {
		docs := e.documentsByName("acme", kb)
		require.Len(t, docs, 4, "every supported file became a document")
		for name, status := range map[string]string{"refunds.txt": "ready", "returns.docx": "ready", "stores.xlsx": "ready", "broken.pdf": "failed"} {
			assert.Equal(t, status, docs[name]["status"], name)
		}
		for query, doc := range map[string]string{
			"refunds original payment method business days": docs["refunds.txt"]["id"].(string),
			"camera returned within thirty days":            docs["returns.docx"]["id"].(string),
			"store address Lisbon Rua Augusta":              docs["stores.xlsx"]["id"].(string),
		} {
			// The service hears of vectors written by the command's
			// process through a change notification.
			assert.Eventually(t, func() bool {
				items := e.search("acme", map[string]any{"query": query}).JSON(t)["items"].([]any)
				return len(items) > 0 && items[0].(map[string]any)["documentId"] == doc
			}, 10*time.Second, 50*time.Millisecond, "%q finds %s", query, doc)
		}
	})
	t.Run("a knowledge base of another tenant, or none, is refused", func(t *testing.T) {
		r := e.cli(t, "ingest", dir, "--kb", kb, "--tenant", "globex")
		assert.Equal(t, exitFail, r.code)
		assert.Contains(t, r.stderr, "--tenant globex: no such tenant")
		e.createKB("", "globex", "other")
		r = e.cli(t, "ingest", dir, "--kb", kb, "--tenant", "globex")
		assert.Equal(t, exitFail, r.code)
		assert.Contains(t, r.stderr, "--kb "+kb+": tenant globex has no such knowledge base")
		r = e.cli(t, "ingest", dir, "--kb", "kb_0123456789abcdef0123456789abcdef")
		assert.Equal(t, exitFail, r.code)
		assert.Contains(t, r.stderr, "no active tenant has this knowledge base")
		assert.Len(t, e.documentsByName("acme", kb), 4, "nothing more was uploaded")
	})
}

// With no server running, the command's own workers index everything: a
// folder of good files exits 0.
func TestCLIIngestWithoutAServer(t *testing.T) {
	cfg := testConfig(t, pgtest.NewDatabase(t))
	pool, err := pg.Open(t.Context(), cfg.DatabaseURL)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	store := pg.New(pool)
	_, err = store.EnsureTenant(t.Context(), "acme")
	require.NoError(t, err)
	kb, err := store.CreateKnowledgeBase(t.Context(), domain.KnowledgeBase{ID: domain.NewID(domain.PrefixKnowledgeBase), TenantID: "acme", Name: "faq"})
	require.NoError(t, err)
	dir := writeFiles(t, map[string][]byte{
		"a.md":        []byte("# Shipping\nShipping is free above fifty euros.\n"),
		"nested/b.md": []byte("# Warranty\nRouters carry a two-year warranty.\n"),
	})

	r := runWith(t, cliEnviron(cfg), "ingest", "--tenant", "acme", "--kb", kb.ID, dir)
	require.Equal(t, exitOK, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	assert.Equal(t, kb.ID+" (tenant acme): 2 file(s) indexed, 0 failed, 0 skipped\n", r.stdout)
	docs, err := store.ListDocuments(t.Context(), "acme", domain.DocumentFilter{KBID: &kb.ID}, domain.PageRequest{Limit: 10})
	require.NoError(t, err)
	require.Len(t, docs.Items, 2)
	for _, d := range docs.Items {
		assert.Equal(t, domain.DocReady, d.Status, d.Name)
		assert.Positive(t, d.ChunkCount, d.Name)
	}
}
