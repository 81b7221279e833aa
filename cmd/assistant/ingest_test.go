package main

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/encoding/simplifiedchinese"
)

func TestUploadIndexAndSearchATextFile(t *testing.T) {
	e := newEnv(t)
	kb := e.createKB("", "acme", "support")["id"].(string)
	e.createField("acme", map[string]any{"key": "product", "type": "enum", "enumValues": []string{"router", "camera"}, "scope": "document", "role": "filter"})
	e.createField("acme", map[string]any{"key": "lang", "type": "string", "scope": "document", "role": "filter"})

	gbk, err := simplifiedchinese.GBK.NewEncoder().Bytes([]byte("退款政策\n收到商品七天内可以申请退款。\n退款将在三个工作日内原路退回。\n"))
	require.NoError(t, err)
	doc, job := e.uploadAndWait(upload{kbID: kb, partName: "%E9%80%80%E6%AC%BE.txt", content: gbk, metadata: `{"product": "router", "lang": "zh"}`})
	require.Equal(t, "succeeded", job["state"], "%v", job)
	assert.Equal(t, "退款.txt", doc["name"], "the URL-encoded name is stored decoded")
	assert.Equal(t, "text", doc["kind"])
	assert.Equal(t, map[string]any{"product": "router", "lang": "zh"}, doc["metadata"], "metadata is returned as stored")
	progress := job["progress"].(map[string]any)
	assert.Equal(t, progress["total"], progress["done"])
	assert.NotZero(t, progress["total"])

	got := e.do(req{method: "GET", path: "/api/v1/admin/kb/documents/" + doc["id"].(string), tenant: "acme"}).JSON(t)
	assert.Equal(t, "ready", got["status"])
	assert.Equal(t, "offline-hash-v1", got["embeddingModel"])

	chunks := e.chunks("acme", doc["id"].(string))
	require.NotEmpty(t, chunks)
	var texts []string
	for _, c := range chunks {
		texts = append(texts, c["text"].(string))
	}
	assert.Equal(t, []string{"收到商品七天内可以申请退款。", "退款将在三个工作日内原路退回。"}, texts, "GBK decoded, a unit per sentence")
	assert.Equal(t, []any{"退款政策"}, chunks[0]["headingPath"], "the title line is the heading of what follows it, no unit")
	assert.Equal(t, "router", chunks[0]["metadata"].(map[string]any)["product"])

	t.Run("search finds it, under a matching filter only", func(t *testing.T) {
		r := e.search("acme", map[string]any{"query": "退款几个工作日退回", "filter": map[string]any{"product": map[string]any{"$in": []string{"router"}}}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		items := r.JSON(t)["items"].([]any)
		require.NotEmpty(t, items)
		hit := items[0].(map[string]any)
		assert.Equal(t, "退款.txt", hit["documentName"])
		assert.Equal(t, kb, hit["kbId"])
		assert.Greater(t, hit["score"], 0.0)

		r = e.search("acme", map[string]any{"query": "退款几个工作日退回", "filter": map[string]any{"product": "camera"}})
		assert.Empty(t, r.JSON(t)["items"])
		r = e.search("acme", map[string]any{"query": "退款", "filter": map[string]any{"colour": "red"}})
		assert.Equal(t, "validation_failed", r.Code(t))
		assert.Equal(t, "filter.colour", r.JSON(t)["errors"].([]any)[0].(map[string]any)["field"])
	})
	t.Run("another tenant finds nothing", func(t *testing.T) {
		r := e.search("globex", map[string]any{"query": "退款多久到账"})
		assert.Empty(t, r.JSON(t)["items"])
	})
	t.Run("the knowledge base counts the document", func(t *testing.T) {
		kbJSON := e.do(req{method: "GET", path: "/api/v1/admin/kb/knowledge-bases/" + kb, tenant: "acme"}).JSON(t)
		assert.EqualValues(t, 1, kbJSON["documentCount"])
	})
	t.Run("reindex runs a new job; deleting leaves nothing behind", func(t *testing.T) {
		r := e.do(req{method: "POST", path: "/api/v1/admin/kb/documents/" + doc["id"].(string) + "/reindex", tenant: "acme"})
		require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
		job := e.waitJob("acme", r.JSON(t)["job"].(map[string]any)["id"].(string))
		assert.Equal(t, "succeeded", job["state"])
		assert.Len(t, e.chunks("acme", doc["id"].(string)), len(chunks), "re-running never duplicates chunks")
		var vectors int
		require.NoError(t, e.db.QueryRow(t.Context(), "SELECT count(*) FROM chunk_vectors WHERE document_id = $1", doc["id"]).Scan(&vectors))
		assert.Equal(t, len(chunks), vectors, "nor vectors")

		require.Equal(t, http.StatusNoContent, e.do(req{method: "DELETE", path: "/api/v1/admin/kb/documents/" + doc["id"].(string), tenant: "acme"}).Status)
		for _, table := range []string{"chunks", "chunk_vectors", "index_jobs", "document_files"} {
			var n int
			require.NoError(t, e.db.QueryRow(t.Context(), "SELECT count(*) FROM "+table+" WHERE document_id = $1", doc["id"]).Scan(&n))
			assert.Zero(t, n, table)
		}
		assert.Empty(t, e.search("acme", map[string]any{"query": "退款多久到账"}).JSON(t)["items"], "nor anything in the index")
	})
}

func TestRefusedUploadsStoreNothing(t *testing.T) {
	e := newEnv(t)
	kb := e.createKB("", "acme", "support")["id"].(string)
	e.createField("acme", map[string]any{"key": "product", "type": "enum", "enumValues": []string{"router"}, "scope": "document", "role": "filter", "required": true})
	pdfBytes := []byte("%PDF-1.4\n%junk\n")
	cases := []struct {
		name   string
		u      upload
		status int
		code   string
	}{
		{"content contradicting the name", upload{kbID: kb, partName: "report.docx", content: pdfBytes, metadata: `{"product":"router"}`}, 415, "unsupported_media_type"},
		{"an unsupported kind", upload{kbID: kb, partName: "tool.exe", content: []byte("MZ\x90\x00\x03\x00\x00\x00"), metadata: `{"product":"router"}`}, 415, "unsupported_media_type"},
		{"metadata missing a required field", upload{kbID: kb, partName: "a.txt", content: []byte("hello")}, 400, "metadata_invalid"},
		{"metadata outside the enum", upload{kbID: kb, partName: "a.txt", content: []byte("hello"), metadata: `{"product":"toaster"}`}, 400, "metadata_invalid"},
		{"metadata that is not an object", upload{kbID: kb, partName: "a.txt", content: []byte("hello"), metadata: `[1]`}, 400, "validation_failed"},
		{"an unknown knowledge base", upload{kbID: "kb_0123456789abcdef0123456789abcdef", partName: "a.txt", content: []byte("hello"), metadata: `{"product":"router"}`}, 404, "not_found"},
		{"a malformed knowledge base id", upload{kbID: "nope", partName: "a.txt", content: []byte("hello")}, 400, "validation_failed"},
		{"no file", upload{kbID: kb, metadata: `{"product":"router"}`}, 400, "validation_failed"},
		{"a file over the upload limit", upload{kbID: kb, partName: "big.txt", content: bytes.Repeat([]byte("a"), 3<<20), metadata: `{"product":"router"}`}, 413, "payload_too_large"},
		{"another tenant's knowledge base", upload{kbID: kb, partName: "a.txt", content: []byte("hello"), tenant: "globex"}, 404, "not_found"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.upload(c.u)
			require.Equal(t, c.status, r.Status, "%s", r.Body)
			assert.Equal(t, c.code, r.Code(t))
		})
	}
	t.Run("the detected kind is named", func(t *testing.T) {
		r := e.upload(cases[0].u)
		assert.Contains(t, strings.ToLower(r.JSON(t)["detail"].(string)), "pdf")
	})
	t.Run("not multipart", func(t *testing.T) {
		r := e.do(req{method: "POST", path: "/api/v1/admin/kb/documents", tenant: "acme", body: `{"kbId": "x"}`})
		assert.Equal(t, http.StatusUnsupportedMediaType, r.Status)
	})
	var n int
	require.NoError(t, e.db.QueryRow(t.Context(), "SELECT count(*) FROM documents").Scan(&n))
	assert.Zero(t, n)
}

func TestHostileFilesFailWithAReasonAndTheServiceKeepsServing(t *testing.T) {
	e := newEnv(t)
	kb := e.createKB("", "acme", "support")["id"].(string)
	cases := []struct {
		name, file string
		content    []byte
		reason     string
	}{
		{"an empty file", "empty.txt", []byte{}, "empty_file"},
		{"a corrupt docx", "broken.docx", []byte("PK\x03\x04 this is not a zip"), "corrupt_file"},
		{"a truncated PDF", "cut.pdf", []byte("%PDF-1.7\n1 0 obj\n<< /Type /Catalog"), "corrupt_file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc, job := e.uploadAndWait(upload{kbID: kb, partName: c.file, content: c.content})
			assert.Equal(t, "failed", job["state"])
			assert.Equal(t, c.reason, job["reason"], "%v", job)
			assert.NotEmpty(t, job["detail"])
			got := e.do(req{method: "GET", path: "/api/v1/admin/kb/documents/" + doc["id"].(string), tenant: "acme"}).JSON(t)
			assert.Equal(t, "failed", got["status"])
		})
	}
	assert.Equal(t, http.StatusOK, e.do(req{method: "GET", path: "/healthz", key: "-"}).Status)
}

// Two replicas on one database: a document indexed through one is found
// through the other, and deleting it through one removes it from both.
func TestEveryReplicaSearchesWhatAnyReplicaIndexed(t *testing.T) {
	one := newEnv(t)
	two := startEnv(t, one.cfg)
	one.waitReplicasListening(2)
	kb := one.createKB("", "acme", "faq")["id"].(string)
	doc, job := one.uploadAndWait(upload{kbID: kb, partName: "faq.txt", content: []byte("parcels ship within two days\n")})
	require.Equal(t, "succeeded", job["state"])
	found := func(e *env) bool {
		return len(e.search("acme", map[string]any{"query": "parcels ship"}).JSON(t)["items"].([]any)) > 0
	}
	assert.True(t, found(one))
	assert.Eventually(t, func() bool { return found(two) }, 5*time.Second, 20*time.Millisecond)
	require.Equal(t, http.StatusNoContent, two.do(req{method: "DELETE", path: "/api/v1/admin/kb/documents/" + doc["id"].(string), tenant: "acme"}).Status)
	assert.Eventually(t, func() bool { return !found(one) }, 5*time.Second, 20*time.Millisecond)
}
