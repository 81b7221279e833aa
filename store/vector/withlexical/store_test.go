package withlexical_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/store/lexical"
	"github.com/cs-assistant/assistant/store/vector/embedded"
	"github.com/cs-assistant/assistant/store/vector/withlexical"
)

const (
	dims  = 4
	model = "test-embed"
)

// memPersistence is the embedded store's database kept in memory; fail,
// when set, makes every write fail (a database that is down).
type memPersistence struct {
	mu   sync.Mutex
	fail error
	recs map[domain.TenantID]map[string]domain.VectorRecord
}

func (p *memPersistence) SaveVectors(_ context.Context, tenant domain.TenantID, recs []domain.VectorRecord) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fail != nil {
		return p.fail
	}
	if p.recs == nil {
		p.recs = map[domain.TenantID]map[string]domain.VectorRecord{}
	}
	if p.recs[tenant] == nil {
		p.recs[tenant] = map[string]domain.VectorRecord{}
	}
	for _, r := range recs {
		p.recs[tenant][r.ChunkID] = r
	}
	return nil
}

func (p *memPersistence) deleteWhere(tenant domain.TenantID, match func(domain.VectorRecord) bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fail != nil {
		return p.fail
	}
	for id, r := range p.recs[tenant] {
		if match(r) {
			delete(p.recs[tenant], id)
		}
	}
	return nil
}

func (p *memPersistence) DeleteDocumentVectors(_ context.Context, tenant domain.TenantID, documentID string) error {
	return p.deleteWhere(tenant, func(r domain.VectorRecord) bool { return r.DocumentID == documentID })
}

func (p *memPersistence) DeleteKnowledgeBaseVectors(_ context.Context, tenant domain.TenantID, kbID string) error {
	return p.deleteWhere(tenant, func(r domain.VectorRecord) bool { return r.KBID == kbID })
}

func (p *memPersistence) LoadVectors(context.Context, func(domain.TenantID, []domain.VectorRecord) error) error {
	return nil
}

func (p *memPersistence) LoadDocumentVectors(context.Context, domain.TenantID, string) ([]domain.VectorRecord, error) {
	return nil, nil
}

// newStore returns the wrapper over a real embedded store and a real
// lexical index, and the persistence behind the embedded store.
func newStore() (*withlexical.Store, *memPersistence) {
	db := &memPersistence{}
	return &withlexical.Store{VectorStore: embedded.New(db, dims), Lexical: lexical.New()}, db
}

// axis returns a unit vector along dimension i, so that a search with
// axis(i) finds exactly the chunks stored with it at score 1.
func axis(i int) []float32 {
	v := make([]float32, dims)
	v[i] = 1
	return v
}

func rec(chunk, kb, doc, text string, vec []float32) domain.VectorRecord {
	return domain.VectorRecord{ChunkID: chunk, KBID: kb, DocumentID: doc, Model: model, Vector: vec, Text: text}
}

// wordIDs returns the chunk ids a lexical search for text finds in tenant.
func wordIDs(t *testing.T, s *withlexical.Store, tenant domain.TenantID, text string) []string {
	t.Helper()
	hits, err := s.Lexical.Search(context.Background(), tenant, lexical.Query{Text: text, TopK: 100})
	require.NoError(t, err)
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ChunkID
	}
	return ids
}

// vectorIDs returns the chunk ids a vector search for vec finds in tenant
// (only exact direction matches: MinScore 0.99).
func vectorIDs(t *testing.T, s *withlexical.Store, tenant domain.TenantID, vec []float32) []string {
	t.Helper()
	hits, err := s.Search(context.Background(), tenant, domain.VectorQuery{Vector: vec, Model: model, TopK: 100, MinScore: 0.99})
	require.NoError(t, err)
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ChunkID
	}
	return ids
}

// seed stores, in tenant t1: doc d1 (kb1) with chunks c1 "refund policy"
// and c2 "shipping times", doc d2 (kb1) with c3 "warranty claims", and doc
// d3 (kb2) with c4 "refund form".
func seed(t *testing.T, s *withlexical.Store) {
	t.Helper()
	require.NoError(t, s.Upsert(context.Background(), "t1", []domain.VectorRecord{
		rec("c1", "kb1", "d1", "refund policy", axis(0)),
		rec("c2", "kb1", "d1", "shipping times", axis(1)),
		rec("c3", "kb1", "d2", "warranty claims", axis(2)),
		rec("c4", "kb2", "d3", "refund form", axis(3)),
	}))
}

func TestUpsertReachesVectorsAndWords(t *testing.T) {
	s, db := newStore()
	ctx := context.Background()
	require.NoError(t, s.Upsert(ctx, "t1", []domain.VectorRecord{
		rec("c1", "kb1", "d1", "How to request a refund for error E1234", axis(0)),
	}))

	// The vector store has it.
	hits, err := s.Search(ctx, "t1", domain.VectorQuery{Vector: axis(0), Model: model, TopK: 5})
	require.NoError(t, err)
	require.Len(t, hits, 1)
	assert.Equal(t, "c1", hits[0].ChunkID)
	assert.Equal(t, "kb1", hits[0].KBID)
	assert.Equal(t, "d1", hits[0].DocumentID)
	assert.InDelta(t, 1, hits[0].Score, 1e-6)
	assert.Len(t, db.recs["t1"], 1, "the inner store persisted the record")

	// The lexical index has it, with its knowledge base and document.
	words, err := s.Lexical.Search(ctx, "t1", lexical.Query{Text: "e1234", TopK: 5})
	require.NoError(t, err)
	require.Len(t, words, 1)
	assert.Equal(t, "c1", words[0].ChunkID)
	assert.Equal(t, "kb1", words[0].KBID)
	assert.Equal(t, "d1", words[0].DocumentID)
	assert.Positive(t, words[0].Score)
	assert.Equal(t, []string{"c1"}, wordIDs(t, s, "t1", "refund"))
	assert.Equal(t, 1, s.Lexical.Len("t1"))
}

func TestUpsertPassesMetadataToTheWords(t *testing.T) {
	s, _ := newStore()
	ctx := context.Background()
	en := rec("en", "kb1", "d1", "reset the router", axis(0))
	en.Metadata = map[string]any{"lang": "en"}
	zh := rec("zh", "kb1", "d2", "reset the router", axis(1))
	zh.Metadata = map[string]any{"lang": "zh"}
	require.NoError(t, s.Upsert(ctx, "t1", []domain.VectorRecord{en, zh}))

	filter := &domain.Filter{Field: "lang", Op: domain.OpEq, Value: "zh"}
	words, err := s.Lexical.Search(ctx, "t1", lexical.Query{Text: "router", TopK: 5, Filter: filter})
	require.NoError(t, err)
	require.Len(t, words, 1)
	assert.Equal(t, "zh", words[0].ChunkID)

	// The same filter on the vector side agrees.
	hits, err := s.Search(ctx, "t1", domain.VectorQuery{Vector: axis(1), Model: model, TopK: 5, Filter: filter})
	require.NoError(t, err)
	require.Len(t, hits, 1)
	assert.Equal(t, "zh", hits[0].ChunkID)
}

func TestUpsertReplacesAChunkInBoth(t *testing.T) {
	s, _ := newStore()
	ctx := context.Background()
	require.NoError(t, s.Upsert(ctx, "t1", []domain.VectorRecord{rec("c1", "kb1", "d1", "old wording", axis(0))}))
	require.NoError(t, s.Upsert(ctx, "t1", []domain.VectorRecord{rec("c1", "kb1", "d1", "new phrasing", axis(1))}))

	assert.Empty(t, wordIDs(t, s, "t1", "wording"), "the old text is no longer searchable")
	assert.Equal(t, []string{"c1"}, wordIDs(t, s, "t1", "phrasing"))
	assert.Equal(t, 1, s.Lexical.Len("t1"), "re-upserting never duplicates words")
	assert.Empty(t, vectorIDs(t, s, "t1", axis(0)), "the old vector is gone")
	assert.Equal(t, []string{"c1"}, vectorIDs(t, s, "t1", axis(1)))
}

func TestUpsertNothingIsANoOp(t *testing.T) {
	s, db := newStore()
	require.NoError(t, s.Upsert(context.Background(), "t1", nil))
	require.NoError(t, s.Upsert(context.Background(), "t1", []domain.VectorRecord{}))
	assert.Equal(t, 0, s.Lexical.Len("t1"))
	assert.Empty(t, db.recs)
}

func TestDeletesRemoveFromBoth(t *testing.T) {
	tests := []struct {
		name   string
		delete func(*withlexical.Store) error
		gone   []string // chunks deleted
		kept   []string // chunks left
	}{
		{
			name:   "DeleteDocument removes only that document's chunks",
			delete: func(s *withlexical.Store) error { return s.DeleteDocument(context.Background(), "t1", "d1") },
			gone:   []string{"c1", "c2"},
			kept:   []string{"c3", "c4"},
		},
		{
			name:   "DeleteKnowledgeBase removes only that knowledge base's chunks",
			delete: func(s *withlexical.Store) error { return s.DeleteKnowledgeBase(context.Background(), "t1", "kb1") },
			gone:   []string{"c1", "c2", "c3"},
			kept:   []string{"c4"},
		},
		{
			name:   "DeleteDocument of an unknown document removes nothing",
			delete: func(s *withlexical.Store) error { return s.DeleteDocument(context.Background(), "t1", "nope") },
			kept:   []string{"c1", "c2", "c3", "c4"},
		},
		{
			name:   "DeleteKnowledgeBase of an unknown knowledge base removes nothing",
			delete: func(s *withlexical.Store) error { return s.DeleteKnowledgeBase(context.Background(), "t1", "nope") },
			kept:   []string{"c1", "c2", "c3", "c4"},
		},
	}
	// Each chunk's own word and vector, as seed stores them.
	word := map[string]string{"c1": "policy", "c2": "shipping", "c3": "warranty", "c4": "form"}
	vec := map[string][]float32{"c1": axis(0), "c2": axis(1), "c3": axis(2), "c4": axis(3)}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, db := newStore()
			seed(t, s)
			require.NoError(t, tt.delete(s))

			for _, c := range tt.gone {
				assert.Empty(t, wordIDs(t, s, "t1", word[c]), "%s still found by its words", c)
				assert.Empty(t, vectorIDs(t, s, "t1", vec[c]), "%s still found by its vector", c)
				assert.NotContains(t, db.recs["t1"], c, "%s still persisted", c)
			}
			for _, c := range tt.kept {
				assert.Equal(t, []string{c}, wordIDs(t, s, "t1", word[c]), "%s lost its words", c)
				assert.Equal(t, []string{c}, vectorIDs(t, s, "t1", vec[c]), "%s lost its vector", c)
			}
			assert.Equal(t, len(tt.kept), s.Lexical.Len("t1"))
		})
	}
}

func TestTenantsAreIsolated(t *testing.T) {
	s, _ := newStore()
	ctx := context.Background()
	seed(t, s)
	// Tenant t2 has a chunk with the same ids and words as one of t1's.
	require.NoError(t, s.Upsert(ctx, "t2", []domain.VectorRecord{rec("c1", "kb1", "d1", "refund policy", axis(0))}))

	assert.Empty(t, wordIDs(t, s, "t2", "warranty"), "t2 finds t1's words")
	assert.Empty(t, vectorIDs(t, s, "t2", axis(2)), "t2 finds t1's vectors")
	assert.Equal(t, []string{"c1", "c4"}, wordIDs(t, s, "t1", "refund"))
	assert.Equal(t, []string{"c1"}, wordIDs(t, s, "t2", "refund"))
	assert.Empty(t, wordIDs(t, s, "t3", "refund"), "a tenant without chunks finds nothing")

	// Deleting t2's document and knowledge base leaves t1's alone.
	require.NoError(t, s.DeleteDocument(ctx, "t2", "d1"))
	require.NoError(t, s.DeleteKnowledgeBase(ctx, "t2", "kb1"))
	assert.Empty(t, wordIDs(t, s, "t2", "refund"))
	assert.Empty(t, vectorIDs(t, s, "t2", axis(0)))
	assert.Equal(t, 4, s.Lexical.Len("t1"))
	assert.Equal(t, []string{"c1", "c4"}, wordIDs(t, s, "t1", "refund"))
	assert.Equal(t, []string{"c1"}, vectorIDs(t, s, "t1", axis(0)))

	// And the other way round.
	require.NoError(t, s.Upsert(ctx, "t2", []domain.VectorRecord{rec("c1", "kb1", "d1", "refund policy", axis(0))}))
	require.NoError(t, s.DeleteKnowledgeBase(ctx, "t1", "kb1"))
	assert.Equal(t, []string{"c1"}, wordIDs(t, s, "t2", "refund"))
	assert.Equal(t, []string{"c1"}, vectorIDs(t, s, "t2", axis(0)))
}

// A batch the vector store refuses must not reach the words either, or
// the two would no longer search the same chunks.
func TestRefusedUpsertReachesNeither(t *testing.T) {
	dbDown := errors.New("database down")
	tests := []struct {
		name    string
		dbFail  error
		recs    []domain.VectorRecord
		wantErr func(*testing.T, error)
	}{
		{
			name: "vector of the wrong dimension",
			recs: []domain.VectorRecord{
				rec("ok", "kb1", "d1", "refund policy", axis(0)),
				rec("bad", "kb1", "d1", "refund form", []float32{1, 0}),
			},
			wantErr: func(t *testing.T, err error) { assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err)) },
		},
		{
			name: "record without a model",
			recs: []domain.VectorRecord{{ChunkID: "c1", KBID: "kb1", DocumentID: "d1", Vector: axis(0), Text: "refund policy"}},
			wantErr: func(t *testing.T, err error) {
				assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
			},
		},
		{
			name:    "the vector store's database fails",
			dbFail:  dbDown,
			recs:    []domain.VectorRecord{rec("c1", "kb1", "d1", "refund policy", axis(0))},
			wantErr: func(t *testing.T, err error) { assert.ErrorIs(t, err, dbDown) },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, db := newStore()
			db.fail = tt.dbFail
			err := s.Upsert(context.Background(), "t1", tt.recs)
			require.Error(t, err)
			tt.wantErr(t, err)
			assert.Equal(t, 0, s.Lexical.Len("t1"), "the words were indexed although the vectors were refused")
			assert.Empty(t, wordIDs(t, s, "t1", "refund"))
			db.fail = nil
			assert.Empty(t, vectorIDs(t, s, "t1", axis(0)))
		})
	}
}

// A delete the vector store fails keeps the words too: the chunks stay
// searchable both ways, and a retry removes them from both.
func TestFailedDeleteKeepsBoth(t *testing.T) {
	dbDown := errors.New("database down")
	tests := []struct {
		name   string
		delete func(*withlexical.Store) error
	}{
		{"DeleteDocument", func(s *withlexical.Store) error { return s.DeleteDocument(context.Background(), "t1", "d1") }},
		{"DeleteKnowledgeBase", func(s *withlexical.Store) error {
			return s.DeleteKnowledgeBase(context.Background(), "t1", "kb1")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, db := newStore()
			seed(t, s)
			db.fail = dbDown
			require.ErrorIs(t, tt.delete(s), dbDown)
			assert.Equal(t, []string{"c1"}, wordIDs(t, s, "t1", "policy"))
			assert.Equal(t, []string{"c1"}, vectorIDs(t, s, "t1", axis(0)))
			assert.Equal(t, 4, s.Lexical.Len("t1"))

			db.fail = nil
			require.NoError(t, tt.delete(s))
			assert.Empty(t, wordIDs(t, s, "t1", "policy"))
			assert.Empty(t, vectorIDs(t, s, "t1", axis(0)))
		})
	}
}

// acceptAll is a vector store that takes anything and remembers what it
// was given.
type acceptAll struct {
	domain.VectorStore // nil: only Upsert is called
	got                []domain.VectorRecord
}

func (a *acceptAll) Upsert(_ context.Context, _ domain.TenantID, recs []domain.VectorRecord) error {
	a.got = append(a.got, recs...)
	return nil
}

// When the vector store accepts a batch the lexical index refuses, the
// refusal is reported, not swallowed.
func TestLexicalRefusalIsReported(t *testing.T) {
	inner := &acceptAll{}
	s := &withlexical.Store{VectorStore: inner, Lexical: lexical.New()}
	err := s.Upsert(context.Background(), "t1", []domain.VectorRecord{
		{KBID: "kb1", DocumentID: "d1", Model: model, Vector: axis(0), Text: "no chunk id"},
	})
	require.Error(t, err)
	assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
	assert.Len(t, inner.got, 1, "the vector store was written first")
	assert.Equal(t, 0, s.Lexical.Len("t1"))
}
