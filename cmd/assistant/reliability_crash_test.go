package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/internal/pgtest"
)

// crashLease is the index-job lease of the crash test: a job of the killed
// process is taken over this long after its last heartbeat.
const crashLease = 2 * time.Second

// kill -9 of the real binary in the middle of a batch of uploads, while
// jobs are being indexed, loses nothing and duplicates nothing: after a
// restart every document is ready with exactly one job, which succeeded;
// each document has exactly its chunkCount chunks and one vector per chunk
// (checked in PostgreSQL, where the embedded store's index is loaded from,
// and through search); and no job is left running once the lease passed.
func TestReliabilityCrashDuringIndexing(t *testing.T) {
	bin := buildService(t)
	cfg := testConfig(t, pgtest.NewDatabase(t))
	p := newServiceProc(t, bin, cfg, "ASSISTANT_INDEX_LEASE="+crashLease.String(), "ASSISTANT_INDEX_WORKERS=2")
	p.start()
	e := remoteEnv(t, cfg, p.URL())
	kb := e.createKB("", "acme", "batch")["id"].(string)
	// Thresholds that let the offline embedder's scores through, so that
	// search can show what the in-memory index holds.
	r := e.do(req{method: "POST", path: "/api/v1/strategy/retrieval/switch", tenant: "acme",
		body: strategyBody(map[string]any{"mode": "hybrid", "scoreThreshold": 0.05, "minTopScore": 0.05})})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	uploads := reliabilitySize(12, 100)

	// The killer waits until half the batch is accepted and a job is being
	// indexed, then sends SIGKILL while the uploads go on.
	var accepted atomic.Int32
	killed := make(chan error, 1)
	go func() { killed <- crashKillWhileIndexing(e.db, p, &accepted, int32(uploads/2)) }()

	docs := map[string]string{} // file name → document id
	var atCrash map[string]int
	var unanswered, storedAnyway string
	var restarted time.Time
	crash := func() {
		require.NoError(t, <-killed)
		require.True(t, p.waitExit(10*time.Second), "SIGKILL did not end the process")
		atCrash = crashJobStates(t, e.db)
		restarted = time.Now()
		p.start()
	}
	for i := range uploads {
		name := fmt.Sprintf("doc-%03d.txt", i)
		content := crashDocument(i)
		if atCrash == nil {
			status, body, err := crashPostDocument(p.URL(), cfg.DefaultAPIKey, kb, name, content)
			if err == nil {
				require.Equal(t, http.StatusAccepted, status, "%s", body)
				docs[name] = crashAcceptedID(t, body)
				accepted.Add(1)
				continue
			}
			// The service died under this upload: it may or may not have
			// stored it. After the restart the client looks before it
			// sends again, so it is neither lost nor doubled.
			unanswered = name
			crash()
			storedAnyway = "no, sent again"
			if id, ok := crashDocumentsByName(t, e)[name]; ok {
				docs[name], storedAnyway = id, "yes, kept"
				continue
			}
		}
		r := e.upload(upload{kbID: kb, partName: name, content: content})
		require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
		docs[name] = r.JSON(t)["document"].(map[string]any)["id"].(string)
	}
	if atCrash == nil { // the batch was accepted before the kill came
		crash()
	}
	require.Len(t, docs, uploads)

	require.Eventually(t, func() bool {
		listed := crashDocumentsByName(t, e)
		ready := 0
		for _, st := range crashDocumentStatuses(t, e) {
			if st == "ready" {
				ready++
			}
		}
		return len(listed) == uploads && ready == uploads
	}, reliabilitySize(2*time.Minute, 10*time.Minute), 100*time.Millisecond, "every document ends ready")
	toReady := time.Since(restarted)
	assert.Equal(t, docs, crashDocumentsByName(t, e), "one document per file: the upload cut by the kill is neither lost nor doubled")

	// Nothing is left running: the jobs the killed process held were
	// taken over once their lease passed, and finished.
	after := crashJobStates(t, e.db)
	assert.Equal(t, map[string]int{"succeeded": uploads}, after, "every job succeeded; none failed, queued or running")
	jobsPerDoc := crashCount(t, e.db, `SELECT count(*) FROM (SELECT document_id FROM index_jobs WHERE tenant_id = 'acme'
		GROUP BY document_id HAVING count(*) <> 1) d`)
	assert.Zero(t, jobsPerDoc, "exactly one job per document")
	takenOver := crashCount(t, e.db, `SELECT count(*) FROM index_jobs WHERE tenant_id = 'acme' AND attempts > 1`)

	dupChunks, dupVectors := crashCheckChunksAndVectors(t, e, docs)
	reportFigure(t, "crash during indexing", "uploads", uploads)
	cut := "none (the kill came between uploads)"
	if unanswered != "" {
		cut = unanswered + " (stored before the kill: " + storedAnyway + ")"
	}
	reportFigure(t, "crash during indexing", "upload cut by the kill", cut)
	reportFigure(t, "crash during indexing", "jobs at the kill (succeeded/failed/running/queued)",
		fmt.Sprintf("%d/%d/%d/%d", atCrash["succeeded"], atCrash["failed"], atCrash["running"], atCrash["queued"]))
	reportFigure(t, "crash during indexing", "jobs after restart (succeeded/failed/running/queued)",
		fmt.Sprintf("%d/%d/%d/%d", after["succeeded"], after["failed"], after["running"], after["queued"]))
	reportFigure(t, "crash during indexing", "jobs taken over after the lease", takenOver)
	reportFigure(t, "crash during indexing", "duplicate chunks", dupChunks)
	reportFigure(t, "crash during indexing", "duplicate vectors", dupVectors)
	reportFigure(t, "crash during indexing", "time from restart to all ready", toReady.Round(100*time.Millisecond))
	assert.NotZero(t, atCrash["running"]+atCrash["queued"], "the kill came while there was indexing to do")
}

// crashDocument is the i-th file of the batch: lines unlike any other
// file's or line's, so a duplicated chunk shows as a repeated text.
func crashDocument(i int) []byte {
	var b strings.Builder
	for line := range 300 {
		fmt.Fprintf(&b, "Document %d, line %d: parcel P%d-%d ships within %d working days; refunds take %d days.\n",
			i, line, i, line, 1+line%5, 2+i%7)
	}
	return []byte(b.String())
}

// crashKillWhileIndexing sends SIGKILL once at least half uploads are accepted
// and a job is being indexed (parsing to indexing), polling the database.
// It runs beside the uploads, so it reports instead of failing the test.
func crashKillWhileIndexing(db *pgxpool.Pool, p *serviceProc, accepted *atomic.Int32, half int32) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for ctx.Err() == nil {
		var running int
		err := db.QueryRow(ctx, `SELECT count(*) FROM index_jobs WHERE state NOT IN ('queued', 'succeeded', 'failed')`).Scan(&running)
		if err == nil && running > 0 && accepted.Load() >= half {
			return p.cmd.Process.Signal(syscall.SIGKILL)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return fmt.Errorf("no job was being indexed after %d uploads were accepted", accepted.Load())
}

// crashPostDocument uploads a file with plain HTTP: the status and body, or the
// transport error of a service that went away.
func crashPostDocument(base, key, kb, name string, content []byte) (int, []byte, error) {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	_ = w.WriteField("kbId", kb)
	part, _ := w.CreateFormFile("file", name)
	_, _ = part.Write(content)
	_ = w.Close()
	hr, err := http.NewRequest("POST", base+"/api/v1/admin/kb/documents", &body)
	if err != nil {
		return 0, nil, err
	}
	hr.Header.Set("Content-Type", w.FormDataContentType())
	hr.Header.Set("X-API-Key", key)
	hr.Header.Set("X-Tenant-Id", "acme")
	res, err := http.DefaultClient.Do(hr)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	return res.StatusCode, data, err
}

// crashAcceptedID is the document id of an upload's 202.
func crashAcceptedID(t *testing.T, body []byte) string {
	var out struct {
		Document struct {
			ID string `json:"id"`
		} `json:"document"`
	}
	require.NoError(t, json.Unmarshal(body, &out), "%s", body)
	require.NotEmpty(t, out.Document.ID, "%s", body)
	return out.Document.ID
}

// crashListDocuments is every document of acme, through the API.
func crashListDocuments(t *testing.T, e *env) []map[string]any {
	var out []map[string]any
	path := "/api/v1/admin/kb/documents?limit=200"
	for {
		r := e.do(req{method: "GET", path: path, tenant: "acme"})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		body := r.JSON(t)
		for _, it := range body["items"].([]any) {
			out = append(out, it.(map[string]any))
		}
		next, ok := body["nextCursor"].(string)
		if !ok {
			return out
		}
		path = "/api/v1/admin/kb/documents?limit=200&cursor=" + next
	}
}

// crashDocumentsByName maps each listed document's name to its id; a name
// listed twice fails the test.
func crashDocumentsByName(t *testing.T, e *env) map[string]string {
	out := map[string]string{}
	for _, d := range crashListDocuments(t, e) {
		name := d["name"].(string)
		require.NotContains(t, out, name, "file %s stored twice", name)
		out[name] = d["id"].(string)
	}
	return out
}

// crashDocumentStatuses maps each listed document's id to its status.
func crashDocumentStatuses(t *testing.T, e *env) map[string]string {
	out := map[string]string{}
	for _, d := range crashListDocuments(t, e) {
		out[d["id"].(string)] = d["status"].(string)
	}
	return out
}

// crashJobStates counts acme's index jobs by state, the four states of a job
// in progress counted together as running.
func crashJobStates(t *testing.T, db *pgxpool.Pool) map[string]int {
	rows, err := db.Query(context.Background(), `SELECT CASE WHEN state IN ('parsing', 'chunking', 'embedding', 'indexing')
		THEN 'running' ELSE state END, count(*) FROM index_jobs WHERE tenant_id = 'acme' GROUP BY 1`)
	require.NoError(t, err)
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var state string
		var n int
		require.NoError(t, rows.Scan(&state, &n))
		out[state] = n
	}
	require.NoError(t, rows.Err())
	return out
}

// crashCount runs a query answering one number.
func crashCount(t *testing.T, db *pgxpool.Pool, query string, args ...any) int {
	var n int
	require.NoError(t, db.QueryRow(context.Background(), query, args...).Scan(&n), "%s", query)
	return n
}

// crashCheckChunksAndVectors checks every document's chunks and vectors in the
// database and through search, and returns the duplicates found: chunks
// repeating another chunk of their document (same index or same text),
// and vectors beyond one per chunk (a vector of a chunk that is gone, of
// another document, or a second one).
func crashCheckChunksAndVectors(t *testing.T, e *env, docs map[string]string) (dupChunks, dupVectors int) {
	db := e.db
	for name, id := range docs {
		doc := e.do(req{method: "GET", path: "/api/v1/admin/kb/documents/" + id, tenant: "acme"}).JSON(t)
		want := int(doc["chunkCount"].(float64))
		require.Positive(t, want, "%s has chunks", name)
		var rows, idxs, texts, vectors, distinctVectors int
		require.NoError(t, db.QueryRow(context.Background(), `SELECT
			(SELECT count(*) FROM chunks WHERE tenant_id = 'acme' AND document_id = $1),
			(SELECT count(DISTINCT idx) FROM chunks WHERE tenant_id = 'acme' AND document_id = $1),
			(SELECT count(DISTINCT text) FROM chunks WHERE tenant_id = 'acme' AND document_id = $1),
			(SELECT count(*) FROM chunk_vectors WHERE tenant_id = 'acme' AND document_id = $1),
			(SELECT count(DISTINCT v.chunk_id) FROM chunk_vectors v JOIN chunks c ON c.id = v.chunk_id AND c.document_id = v.document_id
				WHERE v.tenant_id = 'acme' AND v.document_id = $1)`, id).Scan(&rows, &idxs, &texts, &vectors, &distinctVectors))
		assert.Equal(t, want, rows, "%s: chunks stored = its chunkCount", name)
		assert.Equal(t, []int{rows, rows}, []int{idxs, texts}, "%s: no chunk index or text twice", name)
		assert.Equal(t, want, distinctVectors, "%s: every chunk has its vector", name)
		dupChunks += max(rows-min(idxs, texts), rows-want, 0)
		dupVectors += vectors - distinctVectors
	}
	orphans := crashCount(t, db, `SELECT count(*) FROM chunk_vectors v LEFT JOIN chunks c ON c.id = v.chunk_id AND c.document_id = v.document_id
		WHERE v.tenant_id = 'acme' AND c.id IS NULL`)
	assert.Zero(t, orphans, "no vector without its chunk")
	dupVectors += orphans

	// The restarted process's in-memory index answers each chunk once.
	for i := range min(len(docs), 5) {
		r := e.search("acme", map[string]any{"query": fmt.Sprintf("Document %d line parcel P%d ships", i, i), "topK": 20})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		seen := map[string]bool{}
		for _, it := range r.JSON(t)["items"].([]any) {
			id := it.(map[string]any)["chunkId"].(string)
			if seen[id] {
				dupVectors++
			}
			assert.False(t, seen[id], "search answers chunk %s twice", id)
			seen[id] = true
		}
		require.NotEmpty(t, seen, "search finds document %d", i)
	}
	return dupChunks, dupVectors
}
