package hybrid

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/store/vector/memindex"
)

const (
	dims  = 4
	model = "test-embed"
)

var errDown = errors.New("database is down")

// fakeDB is the Persistence kept in memory, with the semantics of
// store/pg: per tenant, vectors and chunks keyed by chunk id; a save of
// vectors replaces those of the same chunk ids (and, standing in for the
// index worker's chunk writes, stores their Text as the chunks' text);
// what is read back is a copy. A stream reads a snapshot, taken when it
// starts, as a query does.
type fakeDB struct {
	mu     sync.Mutex
	vecs   map[domain.TenantID]map[string]domain.VectorRecord
	chunks map[domain.TenantID]map[string]domain.Chunk

	// gate, when set, holds every stream after its snapshot until it is
	// closed; started receives the tenant of each stream that reached it.
	gate    chan struct{}
	started chan domain.TenantID
	// docGate, when set, holds LoadDocumentVectors after its read until it
	// is closed, telling docReading first; saved hears of every save.
	docGate, docReading, saved chan struct{}
	// The *Err fields make the matching method fail, changing nothing;
	// streamErr fails the next stream only.
	saveErr, deleteErr, streamErr, docErr error

	loads    map[domain.TenantID]int // vector streams started, per tenant
	docReads int                     // calls of LoadDocumentVectors
}

func newFakeDB() *fakeDB {
	return &fakeDB{vecs: map[domain.TenantID]map[string]domain.VectorRecord{},
		chunks: map[domain.TenantID]map[string]domain.Chunk{}, loads: map[domain.TenantID]int{}}
}

// put stores records as another replica's index worker would: chunks and
// vectors, without telling anyone.
func (p *fakeDB) put(tenant domain.TenantID, recs ...domain.VectorRecord) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.vecs[tenant] == nil {
		p.vecs[tenant], p.chunks[tenant] = map[string]domain.VectorRecord{}, map[string]domain.Chunk{}
	}
	for _, r := range recs {
		r.TenantID = tenant
		r.Vector, r.Metadata = slices.Clone(r.Vector), maps.Clone(r.Metadata)
		p.vecs[tenant][r.ChunkID] = r
		p.chunks[tenant][r.ChunkID] = domain.Chunk{ID: r.ChunkID, TenantID: tenant, KBID: r.KBID, DocumentID: r.DocumentID,
			Text: r.Text, Metadata: maps.Clone(r.Metadata)}
	}
}

// remove deletes the records matching drop, as another replica would.
func (p *fakeDB) remove(tenant domain.TenantID, drop func(kb, doc string) bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for id, r := range p.vecs[tenant] {
		if drop(r.KBID, r.DocumentID) {
			delete(p.vecs[tenant], id)
			delete(p.chunks[tenant], id)
		}
	}
}

func (p *fakeDB) SaveVectors(_ context.Context, tenant domain.TenantID, recs []domain.VectorRecord) error {
	if p.saveErr != nil {
		return p.saveErr
	}
	p.put(tenant, recs...)
	if p.saved != nil {
		p.saved <- struct{}{}
	}
	return nil
}

func (p *fakeDB) DeleteDocumentVectors(_ context.Context, tenant domain.TenantID, documentID string) error {
	if p.deleteErr != nil {
		return p.deleteErr
	}
	p.remove(tenant, func(_, doc string) bool { return doc == documentID })
	return nil
}

func (p *fakeDB) DeleteKnowledgeBaseVectors(_ context.Context, tenant domain.TenantID, kbID string) error {
	if p.deleteErr != nil {
		return p.deleteErr
	}
	p.remove(tenant, func(kb, _ string) bool { return kb == kbID })
	return nil
}

func (p *fakeDB) CountTenantVectors(_ context.Context, tenant domain.TenantID) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.vecs[tenant]), nil
}

// snapshot returns the values of m sorted by key, copied.
func snapshot[V any](m map[string]V) []V {
	out := make([]V, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, m[k])
	}
	return out
}

// hold waits at the gate, if any, after telling started.
func (p *fakeDB) hold(ctx context.Context, tenant domain.TenantID, gate chan struct{}, started chan domain.TenantID) error {
	if started != nil {
		started <- tenant
	}
	if gate == nil {
		return nil
	}
	select {
	case <-gate:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *fakeDB) StreamTenantVectors(ctx context.Context, tenant domain.TenantID, fn func([]domain.VectorRecord) error) error {
	p.mu.Lock()
	p.loads[tenant]++
	err := p.streamErr
	p.streamErr = nil
	recs := snapshot(p.vecs[tenant])
	gate, started := p.gate, p.started
	p.mu.Unlock()
	if err != nil {
		return err
	}
	if err := p.hold(ctx, tenant, gate, started); err != nil {
		return err
	}
	// Two at a time: a few records already take several batches.
	for batch := range slices.Chunk(recs, 2) {
		if err := fn(batch); err != nil {
			return err
		}
	}
	return nil
}

func (p *fakeDB) StreamTenantChunks(_ context.Context, tenant domain.TenantID, fn func([]domain.Chunk) error) error {
	p.mu.Lock()
	chunks := snapshot(p.chunks[tenant])
	p.mu.Unlock()
	for batch := range slices.Chunk(chunks, 2) {
		if err := fn(batch); err != nil {
			return err
		}
	}
	return nil
}

func (p *fakeDB) LoadDocumentVectors(_ context.Context, tenant domain.TenantID, documentID string) ([]domain.VectorRecord, error) {
	p.mu.Lock()
	p.docReads++
	err, gate := p.docErr, p.docGate
	var out []domain.VectorRecord
	for _, r := range snapshot(p.vecs[tenant]) {
		if r.DocumentID == documentID {
			out = append(out, r)
		}
	}
	p.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if gate != nil {
		p.docReading <- struct{}{}
		<-gate
	}
	return out, nil
}

func (p *fakeDB) DocumentChunkTexts(_ context.Context, tenant domain.TenantID, documentID string) ([]domain.Chunk, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []domain.Chunk
	for _, c := range snapshot(p.chunks[tenant]) {
		if c.DocumentID == documentID {
			out = append(out, c)
		}
	}
	return out, nil
}

func (p *fakeDB) ListMetadataFields(context.Context, domain.TenantID, domain.MetadataFieldFilter, domain.PageRequest) (domain.Page[domain.MetadataField], error) {
	return domain.Page[domain.MetadataField]{}, nil
}

func (p *fakeDB) loadsOf(tenant domain.TenantID) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.loads[tenant]
}

// axis returns the unit vector along dimension i.
func axis(i int) []float32 {
	v := make([]float32, dims)
	v[i] = 1
	return v
}

// rec is a record of chunk in document doc of knowledge base kb, found by
// vec and by the words of text.
func rec(chunk, kb, doc, text string, vec []float32) domain.VectorRecord {
	return domain.VectorRecord{ChunkID: chunk, KBID: kb, DocumentID: doc, Model: model, Vector: vec, Text: text}
}

// newIndex returns an index over db bounded to limit bytes (the default
// when 0), its vectors mapped from files in a directory of the test's.
func newIndex(t *testing.T, db *fakeDB, limit int64) *Index {
	x := New(db, Options{Dims: dims, MemoryBytes: limit, Log: slog.New(slog.DiscardHandler),
		Vectors: memindex.Options{VectorDir: t.TempDir()}})
	t.Cleanup(x.Close)
	return x
}

// vectorIDs returns the chunk ids a vector search for vec finds in tenant
// (every row scored: cosine ≥ 0.999), sorted.
func vectorIDs(t *testing.T, x *Index, tenant domain.TenantID, vec []float32) []string {
	t.Helper()
	hits, err := x.Search(context.Background(), tenant, domain.VectorQuery{Vector: vec, Model: model, TopK: 100, MinScore: 0.999})
	require.NoError(t, err)
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ChunkID
	}
	slices.Sort(ids)
	return ids
}

// wordIDs returns the chunk ids a lexical search for text finds in
// tenant, sorted.
func wordIDs(t *testing.T, x *Index, tenant domain.TenantID, text string) []string {
	t.Helper()
	hits, err := x.SearchWords(context.Background(), tenant, domain.LexicalQuery{Text: text, TopK: 100})
	require.NoError(t, err)
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ChunkID
	}
	slices.Sort(ids)
	return ids
}

// both returns what the vector and the lexical search find, for one
// assertion on both sides.
func both(t *testing.T, x *Index, tenant domain.TenantID, vec []float32, text string) [2][]string {
	t.Helper()
	return [2][]string{vectorIDs(t, x, tenant, vec), wordIDs(t, x, tenant, text)}
}

// found is what both finds when the vector search finds vecIDs and the
// lexical one wordIDs (nil for none, as both returns empty slices).
func found(vecIDs, wordIDs []string) [2][]string {
	if vecIDs == nil {
		vecIDs = []string{}
	}
	if wordIDs == nil {
		wordIDs = []string{}
	}
	return [2][]string{vecIDs, wordIDs}
}
