package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/internal/pglocal"
	"github.com/cs-assistant/assistant/store/pg"
)

// dbrClientTimeout ends a request the service never answers. It is far
// above dbrOutageBound, so a request that hits it is reported as a hang
// (a transport error), not merely as slow.
const dbrClientTimeout = 30 * time.Second

// dbrPace is the pause between two requests of one load worker. During the
// outage every request fails at once, and without a pause the workers
// would spin on the two shared cores.
const dbrPace = 25 * time.Millisecond

// dbrDatabase is the database the test creates in its own cluster.
const dbrDatabase = "assistant"

// dbrOwnCluster starts a PostgreSQL cluster of the test's own, so that
// stopping it disturbs no other test. It listens on a fixed free port: a
// restart must keep the URL the replicas were given. It creates and
// migrates a database and returns the cluster and the database's URL.
func dbrOwnCluster(t *testing.T) (*pglocal.Cluster, string) {
	t.Helper()
	dir := t.TempDir()
	// As root, PostgreSQL runs as the postgres OS user, which must be able
	// to enter the directory (t.TempDir makes it 0700).
	require.NoError(t, os.Chmod(dir, 0o755))
	require.NoError(t, os.Chmod(filepath.Dir(dir), 0o755))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())

	c, err := pglocal.New(pglocal.Options{DataDir: filepath.Join(dir, "data"), Port: port, Fast: true})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	require.NoError(t, c.Init(ctx))
	require.NoError(t, c.Start(ctx))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = c.Shutdown(ctx, pglocal.ShutdownImmediate) // it may be stopped already
	})
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	require.NoError(t, err)
	_, err = conn.Exec(ctx, "CREATE DATABASE "+dbrDatabase)
	require.NoError(t, err)
	require.NoError(t, conn.Close(ctx))
	url := c.URL(dbrDatabase)
	require.NoError(t, pg.Migrate(ctx, url), "the project's migrations apply to the new cluster")
	return c, url
}

// dbrSample is one request of the load and what became of it.
type dbrSample struct {
	replica    int
	kind       string
	start, end time.Time
	req        *http.Request
	res        response
	// lastEvent is the name of a stream's last event.
	lastEvent string
	// jobID is the job of an accepted upload.
	jobID string
	// err is a transport error: a refused connection, or a hang that
	// reached dbrClientTimeout.
	err error
}

func (s dbrSample) latency() time.Duration { return s.end.Sub(s.start) }

// code is the problem code of an error answer ("" otherwise).
func (s dbrSample) code() string {
	if s.res.Header.Get("Content-Type") != "application/problem+json" {
		return ""
	}
	var p struct {
		Code string `json:"code"`
	}
	_ = json.Unmarshal(s.res.Body, &p)
	return p.Code
}

// dbrLoad sends requests of every kind to the replicas from several
// goroutines and keeps every sample. Nothing in its goroutines asserts:
// the test judges the samples afterwards, on its own goroutine.
type dbrLoad struct {
	replicas []*env
	// sessions holds each worker's chat session.
	sessions []string
	kb       string
	client   *http.Client

	mu      sync.Mutex
	samples []dbrSample
	seq     int
}

// run sends requests until ctx ends, from one goroutine per session.
func (l *dbrLoad) run(ctx context.Context) (wait func()) {
	var wg sync.WaitGroup
	for w := range l.sessions {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				l.keep(l.once(w, i))
				select {
				case <-ctx.Done():
				case <-time.After(dbrPace):
				}
			}
		})
	}
	return wg.Wait
}

// once sends worker w's i-th request: a chat message as JSON or as a
// stream, a knowledge-base listing, an upload or a readiness probe, in
// turn, to the replicas in turn.
func (l *dbrLoad) once(w, i int) dbrSample {
	replica := (w + i) % len(l.replicas)
	e := l.replicas[replica]
	session := "/api/v1/chat/sessions/" + l.sessions[w] + "/messages"
	var hr *http.Request
	kind := []string{"message", "stream", "list", "message", "upload", "readyz"}[(w+i)%6]
	switch kind {
	case "message":
		hr = l.request(e, "POST", session, "application/json", `{"message":"How long do refunds take?"}`)
	case "stream":
		hr = l.request(e, "POST", session, "application/json", `{"message":"When do orders ship?"}`)
		hr.Header.Set("Accept", "text/event-stream")
	case "list":
		hr = l.request(e, "GET", "/api/v1/admin/kb/knowledge-bases", "", "")
	case "upload":
		body, ctype := dbrUploadForm(l.kb, fmt.Sprintf("load-%d-%d.txt", w, i), dbrDocument(l.nextSeq(), 20))
		hr = l.request(e, "POST", "/api/v1/admin/kb/documents", ctype, body)
	case "readyz":
		hr = l.request(e, "GET", "/readyz", "", "")
	}
	return l.send(replica, kind, hr)
}

func (l *dbrLoad) nextSeq() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	return 1000 + l.seq
}

// request builds a request to e with the root key in tenant acme.
func (l *dbrLoad) request(e *env, method, path, ctype, body string) *http.Request {
	hr, _ := http.NewRequest(method, e.srv.URL+path, strings.NewReader(body))
	if ctype != "" {
		hr.Header.Set("Content-Type", ctype)
	}
	hr.Header.Set("X-API-Key", e.root)
	hr.Header.Set("X-Tenant-Id", "acme")
	return hr
}

// send sends hr and records the answer; a stream is read to its end.
func (l *dbrLoad) send(replica int, kind string, hr *http.Request) dbrSample {
	s := dbrSample{replica: replica, kind: kind, req: hr, start: time.Now()}
	res, err := l.client.Do(hr)
	if err != nil {
		s.end, s.err = time.Now(), err
		return s
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	s.end, s.err = time.Now(), err
	s.res = response{Status: res.StatusCode, Header: res.Header, Body: data}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		s.lastEvent = dbrLastEvent(data)
	}
	if kind == "upload" && res.StatusCode == http.StatusAccepted {
		var accepted struct {
			Job struct {
				ID string `json:"id"`
			} `json:"job"`
		}
		_ = json.Unmarshal(data, &accepted)
		s.jobID = accepted.Job.ID
	}
	return s
}

func (l *dbrLoad) keep(s dbrSample) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.samples = append(l.samples, s)
}

// all returns the samples so far.
func (l *dbrLoad) all() []dbrSample {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]dbrSample(nil), l.samples...)
}

// dbrLastEvent is the name of the last event of a server-sent stream.
func dbrLastEvent(data []byte) string {
	last := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		if name, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
			last = name
		}
	}
	return last
}

// dbrUploadForm is a multipart upload of content into kb.
func dbrUploadForm(kb, name string, content []byte) (body, contentType string) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	_ = w.WriteField("kbId", kb)
	part, _ := w.CreateFormFile("file", name)
	_, _ = part.Write(content)
	_ = w.Close()
	return b.String(), w.FormDataContentType()
}

// dbrDocument is a text document of about paragraphs paragraphs that
// only document n answers: it names its own locker code.
func dbrDocument(n, paragraphs int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "Locker %d\n\nThe code of locker number %d is %s.\n\n", n, n, dbrLockerCode(n))
	for p := range paragraphs {
		fmt.Fprintf(&b, "Section %d of the locker %d handbook. Lockers are opened with their code, kept closed "+
			"at night, and cleaned every week by the building staff, who report damage to the front desk.\n\n", p, n)
	}
	return []byte(b.String())
}

// dbrLockerCode is the word only document n contains.
func dbrLockerCode(n int) string { return fmt.Sprintf("zqx%dkv", n) }
