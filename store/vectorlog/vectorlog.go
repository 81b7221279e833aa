// Package vectorlog writes the KB vector log: when a tenant turns it on in
// its settings, every indexed chunk appends one JSON line (time, tenant,
// knowledge base, document, chunk, model, dimensions, norm) to a file under
// the tenant's folder of the data dir, rotated by size.
package vectorlog

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"gopkg.in/natefinch/lumberjack.v2"

	"github.com/cs-assistant/assistant/domain"
)

// Rotation: files of at most maxSizeMB, keeping maxBackups old ones.
const (
	maxSizeMB  = 10
	maxBackups = 5
)

// Log appends vector-log lines for the tenants that asked for them. The
// switch and path are read from the settings on every call, so a change
// applies to the next indexed document without a restart.
type Log struct {
	settings domain.SettingsStore
	root     string
	now      func() time.Time

	mu    sync.Mutex
	files map[string]*lumberjack.Logger
}

// New returns a log writing under root/tenants/<tenant>/.
func New(settings domain.SettingsStore, root string) *Log {
	return &Log{settings: settings, root: root, now: time.Now, files: make(map[string]*lumberjack.Logger)}
}

// line is one entry of the log.
type line struct {
	Time     time.Time `json:"time"`
	Tenant   string    `json:"tenant"`
	KB       string    `json:"kb"`
	Document string    `json:"document"`
	Chunk    string    `json:"chunk"`
	Model    string    `json:"model"`
	Dims     int       `json:"dims"`
	Norm     float64   `json:"norm"`
}

// Record appends one line per record when the tenant's log is on.
func (l *Log) Record(ctx context.Context, tenant domain.TenantID, recs []domain.VectorRecord) error {
	s, err := l.settings.GetSettings(ctx, tenant)
	if err != nil || !s.KBVectorLogEnabled || len(recs) == 0 {
		return err
	}
	w, err := l.file(tenant, s.KBVectorLogPath)
	if err != nil {
		return err
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	now := l.now().UTC()
	for _, r := range recs {
		if err := enc.Encode(line{Time: now, Tenant: string(tenant), KB: r.KBID, Document: r.DocumentID,
			Chunk: r.ChunkID, Model: r.Model, Dims: len(r.Vector), Norm: norm(r.Vector)}); err != nil {
			return err
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return writeLines(w, b.String(), maxSizeMB<<20)
}

// writeLines writes text, whole lines, to w: in one write when it fits in
// a log file of limit bytes, so that a batch stays in one file; else in
// pieces of at most half of it, cut after a line, since the rotating
// writer refuses a write larger than its file and the batch would be lost.
func writeLines(w io.Writer, text string, limit int) error {
	for len(text) > limit {
		cut := strings.LastIndexByte(text[:limit/2], '\n') + 1
		if cut == 0 {
			cut = min(len(text), limit/2) // one line longer than that: the writer says no
		}
		if _, err := io.WriteString(w, text[:cut]); err != nil {
			return err
		}
		text = text[cut:]
	}
	_, err := io.WriteString(w, text)
	return err
}

// file returns the rotating writer of a tenant's log path; the path stays
// inside the tenant's folder whatever the settings say.
func (l *Log) file(tenant domain.TenantID, rel string) (*lumberjack.Logger, error) {
	dir := filepath.Join(l.root, "tenants", string(tenant))
	path := filepath.Join(dir, filepath.Clean("/"+rel))
	if !strings.HasPrefix(path, dir+string(filepath.Separator)) {
		return nil, fmt.Errorf("vector log path %q leaves the tenant folder", rel)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if w, ok := l.files[path]; ok {
		return w, nil
	}
	w := &lumberjack.Logger{Filename: path, MaxSize: maxSizeMB, MaxBackups: maxBackups}
	l.files[path] = w
	return w, nil
}

// Close closes every open log file.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var first error
	for _, w := range l.files {
		if err := w.Close(); err != nil && first == nil {
			first = err
		}
	}
	clear(l.files)
	return first
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}
