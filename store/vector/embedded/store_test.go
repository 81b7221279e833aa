package embedded

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

const (
	dims       = 4
	model      = "test-embed"
	otherModel = "other-embed"

	tenantA domain.TenantID = "tenant-a"
	tenantB domain.TenantID = "tenant-b"
)

var errDown = errors.New("database is down")

// fakeDB is the Persistence of the embedded store kept in memory, with
// the semantics of store/pg: records are keyed by chunk id within a
// tenant, a save replaces those with the same chunk ids, and what is read
// back carries its tenant and is a copy (a database round trip never
// shares memory with the caller).
//
// The *Err fields, when set, make the matching method fail without
// changing anything (a failed transaction).
type fakeDB struct {
	mu   sync.Mutex
	recs map[domain.TenantID]map[string]domain.VectorRecord

	saveErr, deleteErr, loadErr, loadDocErr error
	// batch is how many records LoadVectors hands over at a time (2 when
	// zero, so that a load of a few records already takes several batches).
	batch int

	saves, loadDocs int // calls of SaveVectors and LoadDocumentVectors
}

func newFakeDB() *fakeDB {
	return &fakeDB{recs: map[domain.TenantID]map[string]domain.VectorRecord{}}
}

func cloneRec(r domain.VectorRecord) domain.VectorRecord {
	r.Vector = slices.Clone(r.Vector)
	r.Metadata = maps.Clone(r.Metadata)
	return r
}

func (p *fakeDB) SaveVectors(_ context.Context, tenant domain.TenantID, recs []domain.VectorRecord) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.saves++
	if p.saveErr != nil {
		return p.saveErr
	}
	if p.recs[tenant] == nil {
		p.recs[tenant] = map[string]domain.VectorRecord{}
	}
	for _, r := range recs {
		r = cloneRec(r)
		r.TenantID = tenant
		p.recs[tenant][r.ChunkID] = r
	}
	return nil
}

func (p *fakeDB) deleteWhere(tenant domain.TenantID, match func(domain.VectorRecord) bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.deleteErr != nil {
		return p.deleteErr
	}
	maps.DeleteFunc(p.recs[tenant], func(_ string, r domain.VectorRecord) bool { return match(r) })
	return nil
}

func (p *fakeDB) DeleteDocumentVectors(_ context.Context, tenant domain.TenantID, documentID string) error {
	return p.deleteWhere(tenant, func(r domain.VectorRecord) bool { return r.DocumentID == documentID })
}

func (p *fakeDB) DeleteKnowledgeBaseVectors(_ context.Context, tenant domain.TenantID, kbID string) error {
	return p.deleteWhere(tenant, func(r domain.VectorRecord) bool { return r.KBID == kbID })
}

// sorted returns tenant's records matching keep, by chunk id.
func (p *fakeDB) sorted(tenant domain.TenantID, keep func(domain.VectorRecord) bool) []domain.VectorRecord {
	var out []domain.VectorRecord
	for _, r := range p.recs[tenant] {
		if keep(r) {
			out = append(out, cloneRec(r))
		}
	}
	slices.SortFunc(out, func(a, b domain.VectorRecord) int { return cmp.Compare(a.ChunkID, b.ChunkID) })
	return out
}

func (p *fakeDB) LoadVectors(_ context.Context, fn func(domain.TenantID, []domain.VectorRecord) error) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.loadErr != nil {
		return p.loadErr
	}
	batch := cmp.Or(p.batch, 2)
	for _, tenant := range slices.Sorted(maps.Keys(p.recs)) {
		recs := p.sorted(tenant, func(domain.VectorRecord) bool { return true })
		for chunk := range slices.Chunk(recs, batch) {
			if err := fn(tenant, chunk); err != nil {
				return err
			}
		}
	}
	return nil
}

func (p *fakeDB) LoadDocumentVectors(_ context.Context, tenant domain.TenantID, documentID string) ([]domain.VectorRecord, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.loadDocs++
	if p.loadDocErr != nil {
		return nil, p.loadDocErr
	}
	return p.sorted(tenant, func(r domain.VectorRecord) bool { return r.DocumentID == documentID }), nil
}

// put stores recs as another process would, without going through a Store.
func (p *fakeDB) put(tenant domain.TenantID, recs ...domain.VectorRecord) {
	if err := p.SaveVectors(context.Background(), tenant, recs); err != nil {
		panic(err)
	}
	p.mu.Lock()
	p.saves--
	p.mu.Unlock()
}

// chunks returns the chunk ids stored for tenant, sorted.
func (p *fakeDB) chunks(tenant domain.TenantID) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Sorted(maps.Keys(p.recs[tenant]))
}

// get returns the stored record of chunk.
func (p *fakeDB) get(tenant domain.TenantID, chunk string) (domain.VectorRecord, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r, ok := p.recs[tenant][chunk]
	return r, ok
}

// axis returns the unit vector along dimension i (times scale, which the
// index normalises away).
func axis(i int, scale float32) []float32 {
	v := make([]float32, dims)
	v[i] = scale
	return v
}

func rec(chunk, kb, doc string, vec []float32) domain.VectorRecord {
	return domain.VectorRecord{ChunkID: chunk, KBID: kb, DocumentID: doc, Model: model, Vector: vec}
}

// hits runs a search of tenant for vec (model unless q says otherwise)
// and returns every hit.
func hits(t *testing.T, s *Store, tenant domain.TenantID, vec []float32, q domain.VectorQuery) []domain.VectorHit {
	t.Helper()
	q.Vector = vec
	q.Model = cmp.Or(q.Model, model)
	q.TopK = cmp.Or(q.TopK, 100)
	if q.MinScore == 0 {
		q.MinScore = -1 // every scored row
	}
	out, err := s.Search(context.Background(), tenant, q)
	require.NoError(t, err)
	return out
}

// found returns the chunk ids of the exact matches (cosine ≈ 1) of vec in
// tenant, sorted.
func found(t *testing.T, s *Store, tenant domain.TenantID, vec []float32) []string {
	t.Helper()
	var ids []string
	for _, h := range hits(t, s, tenant, vec, domain.VectorQuery{MinScore: 0.999}) {
		ids = append(ids, h.ChunkID)
	}
	slices.Sort(ids)
	return ids
}

// all returns every chunk id of tenant that a search of model can reach
// (a search scores every row of its model when MinScore is -1), sorted.
func all(t *testing.T, s *Store, tenant domain.TenantID) []string {
	t.Helper()
	var ids []string
	for _, h := range hits(t, s, tenant, []float32{1, 1, 1, 1}, domain.VectorQuery{TopK: 1000}) {
		ids = append(ids, h.ChunkID)
	}
	slices.Sort(ids)
	return ids
}

func TestUpsertPersistsAndIndexes(t *testing.T) {
	ctx := context.Background()
	db := newFakeDB()
	s := New(db, dims)

	require.NoError(t, s.Upsert(ctx, tenantA, []domain.VectorRecord{
		rec("c1", "kb1", "d1", axis(0, 3)),
		rec("c2", "kb1", "d1", []float32{1, 1, 0, 0}),
		rec("c3", "kb2", "d2", axis(2, 0.5)),
	}))
	assert.Equal(t, 1, db.saves)
	assert.Equal(t, []string{"c1", "c2", "c3"}, db.chunks(tenantA))
	stored, _ := db.get(tenantA, "c1")
	assert.Equal(t, axis(0, 3), stored.Vector, "the database keeps the vector as given")
	assert.Equal(t, 3, s.idx.Len(tenantA))

	got := hits(t, s, tenantA, axis(0, 1), domain.VectorQuery{TopK: 2})
	require.Len(t, got, 2)
	assert.Equal(t, domain.VectorHit{ChunkID: "c1", KBID: "kb1", DocumentID: "d1", Score: got[0].Score}, got[0])
	assert.InDelta(t, 1, got[0].Score, 1e-6, "vectors are normalised: the score is the cosine")
	assert.Equal(t, "c2", got[1].ChunkID)
	assert.InDelta(t, 1/math.Sqrt2, got[1].Score, 1e-6)

	// Upserting a chunk again replaces it, in both places.
	require.NoError(t, s.Upsert(ctx, tenantA, []domain.VectorRecord{rec("c1", "kb1", "d1", axis(3, 1))}))
	assert.Equal(t, []string{"c1", "c2", "c3"}, db.chunks(tenantA))
	stored, _ = db.get(tenantA, "c1")
	assert.Equal(t, axis(3, 1), stored.Vector)
	assert.Equal(t, 3, s.idx.Len(tenantA), "no duplicate row")
	assert.Empty(t, found(t, s, tenantA, axis(0, 1)), "the old vector is gone")
	assert.Equal(t, []string{"c1"}, found(t, s, tenantA, axis(3, 1)))
}

func TestUpsertOfNothingTouchesNothing(t *testing.T) {
	db := newFakeDB()
	s := New(db, dims)
	require.NoError(t, s.Upsert(context.Background(), tenantA, nil))
	require.NoError(t, s.Upsert(context.Background(), "", []domain.VectorRecord{}))
	assert.Zero(t, db.saves)
}

// What the index would refuse never reaches the database: a later Load
// could not take it back.
func TestUpsertRefusedRecordsReachNeitherStore(t *testing.T) {
	good := rec("ok", "kb1", "d1", axis(1, 1))
	with := func(change func(*domain.VectorRecord)) domain.VectorRecord {
		r := rec("bad", "kb1", "d1", axis(0, 1))
		change(&r)
		return r
	}
	for name, tc := range map[string]struct {
		tenant domain.TenantID
		bad    domain.VectorRecord
	}{
		"vector too short":     {tenantA, rec("bad", "kb1", "d1", []float32{1, 0, 0})},
		"vector too long":      {tenantA, rec("bad", "kb1", "d1", []float32{1, 0, 0, 0, 0})},
		"NaN element":          {tenantA, rec("bad", "kb1", "d1", []float32{1, float32(math.NaN()), 0, 0})},
		"infinite element":     {tenantA, rec("bad", "kb1", "d1", []float32{float32(math.Inf(1)), 0, 0, 0})},
		"no chunk id":          {tenantA, rec("", "kb1", "d1", axis(0, 1))},
		"no model":             {tenantA, with(func(r *domain.VectorRecord) { r.Model = "" })},
		"other tenant's":       {tenantA, with(func(r *domain.VectorRecord) { r.TenantID = tenantB })},
		"bad metadata":         {tenantA, with(func(r *domain.VectorRecord) { r.Metadata = map[string]any{"m": map[string]any{}} })},
		"no tenant":            {"", rec("bad", "kb1", "d1", axis(0, 1))},
		"model of other width": {tenantA, with(func(r *domain.VectorRecord) { r.Model, r.Vector = otherModel, make([]float32, 8) })},
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			db := newFakeDB()
			s := New(db, dims)
			require.NoError(t, s.Upsert(ctx, tenantA, []domain.VectorRecord{rec("before", "kb0", "d0", axis(0, 1))}))

			err := s.Upsert(ctx, tc.tenant, []domain.VectorRecord{good, tc.bad})
			require.Error(t, err)
			assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
			assert.Equal(t, 1, db.saves, "the refused batch was not saved")
			assert.Equal(t, []string{"before"}, db.chunks(tenantA))
			assert.Empty(t, db.chunks(""))
			assert.Equal(t, 1, s.idx.Len(tenantA), "the good record of the batch was not indexed either")
			assert.Empty(t, found(t, s, tenantA, axis(1, 1)))
		})
	}
}

func TestUpsertPersistenceFailureLeavesIndexUnchanged(t *testing.T) {
	ctx := context.Background()
	db := newFakeDB()
	s := New(db, dims)
	require.NoError(t, s.Upsert(ctx, tenantA, []domain.VectorRecord{rec("c1", "kb1", "d1", axis(0, 1))}))

	db.saveErr = errDown
	err := s.Upsert(ctx, tenantA, []domain.VectorRecord{
		rec("c1", "kb1", "d1", axis(1, 1)), // a replacement
		rec("c2", "kb1", "d1", axis(2, 1)), // a new chunk
	})
	require.ErrorIs(t, err, errDown)

	assert.Equal(t, 1, s.idx.Len(tenantA))
	assert.Equal(t, []string{"c1"}, found(t, s, tenantA, axis(0, 1)), "c1 keeps its old vector")
	assert.Empty(t, found(t, s, tenantA, axis(1, 1)))
	assert.Empty(t, found(t, s, tenantA, axis(2, 1)), "c2 was not indexed")
	assert.Equal(t, []string{"c1"}, db.chunks(tenantA))

	// Once the database is back, the same batch goes through.
	db.saveErr = nil
	require.NoError(t, s.Upsert(ctx, tenantA, []domain.VectorRecord{
		rec("c1", "kb1", "d1", axis(1, 1)),
		rec("c2", "kb1", "d1", axis(2, 1)),
	}))
	assert.Equal(t, []string{"c1"}, found(t, s, tenantA, axis(1, 1)))
	assert.Equal(t, []string{"c2"}, found(t, s, tenantA, axis(2, 1)))
}

// seed upserts, in tenant: kb1 = {d1: c1 c2, d2: c3}, kb2 = {d3: c4}.
func seed(t *testing.T, s *Store, tenant domain.TenantID) {
	t.Helper()
	require.NoError(t, s.Upsert(context.Background(), tenant, []domain.VectorRecord{
		rec("c1", "kb1", "d1", axis(0, 1)),
		rec("c2", "kb1", "d1", axis(1, 1)),
		rec("c3", "kb1", "d2", axis(2, 1)),
		rec("c4", "kb2", "d3", axis(3, 1)),
	}))
}

func TestDeleteDocument(t *testing.T) {
	ctx := context.Background()
	db := newFakeDB()
	s := New(db, dims)
	seed(t, s, tenantA)

	require.NoError(t, s.DeleteDocument(ctx, tenantA, "d1"))
	assert.Equal(t, []string{"c3", "c4"}, db.chunks(tenantA))
	assert.Equal(t, []string{"c3", "c4"}, all(t, s, tenantA))
	assert.Empty(t, found(t, s, tenantA, axis(0, 1)))
	assert.Empty(t, found(t, s, tenantA, axis(1, 1)))

	// A document that has no vectors (any more) is no error.
	require.NoError(t, s.DeleteDocument(ctx, tenantA, "d1"))
	require.NoError(t, s.DeleteDocument(ctx, tenantB, "d3"))
	assert.Equal(t, []string{"c3", "c4"}, all(t, s, tenantA))
}

func TestDeleteKnowledgeBase(t *testing.T) {
	ctx := context.Background()
	db := newFakeDB()
	s := New(db, dims)
	seed(t, s, tenantA)

	require.NoError(t, s.DeleteKnowledgeBase(ctx, tenantA, "kb1"))
	assert.Equal(t, []string{"c4"}, db.chunks(tenantA))
	assert.Equal(t, []string{"c4"}, all(t, s, tenantA))
	assert.Equal(t, 1, s.idx.Len(tenantA))

	require.NoError(t, s.DeleteKnowledgeBase(ctx, tenantA, "kb1"))
	require.NoError(t, s.DeleteKnowledgeBase(ctx, tenantA, "kb2"))
	assert.Empty(t, db.chunks(tenantA))
	assert.Empty(t, all(t, s, tenantA))
	assert.Zero(t, s.idx.Len(tenantA))
}

func TestDeletePersistenceFailureLeavesIndexUnchanged(t *testing.T) {
	ctx := context.Background()
	db := newFakeDB()
	s := New(db, dims)
	seed(t, s, tenantA)
	db.deleteErr = errDown

	require.ErrorIs(t, s.DeleteDocument(ctx, tenantA, "d1"), errDown)
	require.ErrorIs(t, s.DeleteKnowledgeBase(ctx, tenantA, "kb1"), errDown)

	everything := []string{"c1", "c2", "c3", "c4"}
	assert.Equal(t, everything, db.chunks(tenantA))
	assert.Equal(t, everything, all(t, s, tenantA))
	assert.Equal(t, []string{"c1"}, found(t, s, tenantA, axis(0, 1)))
}

func TestLoadRebuildsIndexFromDatabase(t *testing.T) {
	ctx := context.Background()
	db := newFakeDB()
	first := New(db, dims)
	seed(t, first, tenantA)
	seed(t, first, tenantB)
	require.NoError(t, first.Upsert(ctx, tenantA, []domain.VectorRecord{
		{ChunkID: "c5", KBID: "kb1", DocumentID: "d4", Model: model, Vector: []float32{1, 1, 0, 0},
			Metadata: map[string]any{"lang": "de", "tags": []string{"x", "y"}, "page": 7.0}},
		{ChunkID: "c6", KBID: "kb1", DocumentID: "d4", Model: otherModel, Vector: axis(0, 1)},
	}))
	require.NoError(t, first.DeleteDocument(ctx, tenantB, "d2"))

	// A process starting on the same database: empty until Load.
	db.batch = 3
	restarted := New(db, dims)
	assert.Empty(t, all(t, restarted, tenantA))
	n, err := restarted.Load(ctx)
	require.NoError(t, err)
	assert.Equal(t, 6+3, n, "every stored vector, in every batch")
	assert.Equal(t, 6, restarted.idx.Len(tenantA))
	assert.Equal(t, 3, restarted.idx.Len(tenantB))

	// It answers as the process that wrote the vectors does.
	queries := []domain.VectorQuery{
		{Vector: []float32{0.9, 0.3, 0.1, 0}},
		{Vector: []float32{0.2, 0.7, 0.5, 0.1}, KBIDs: []string{"kb1"}},
		{Vector: []float32{0.2, 0.7, 0.5, 0.1}, KBIDs: []string{"kb2"}},
		{Vector: []float32{1, 1, 1, 1}, Filter: &domain.Filter{Field: "lang", Op: domain.OpEq, Value: "de"}},
		{Vector: []float32{1, 1, 1, 1}, Filter: &domain.Filter{Field: "tags", Op: domain.OpIn, Value: []string{"y"}}},
		{Vector: []float32{1, 1, 1, 1}, Filter: &domain.Filter{Field: "page", Op: domain.OpGte, Value: 7.0}},
		{Vector: []float32{1, 0, 0, 0}, Model: otherModel},
	}
	for _, tenant := range []domain.TenantID{tenantA, tenantB} {
		for i, q := range queries {
			want := hits(t, first, tenant, q.Vector, q)
			got := hits(t, restarted, tenant, q.Vector, q)
			assert.Equal(t, want, got, "tenant %s, query %d", tenant, i)
		}
	}
	assert.Equal(t, []string{"c5"}, found(t, restarted, tenantA, []float32{1, 1, 0, 0}))
	assert.Equal(t, []string{"c1", "c2", "c4"}, all(t, restarted, tenantB), "tenant b's deleted document stayed deleted")

	// Loading again (a reload) duplicates nothing.
	n, err = restarted.Load(ctx)
	require.NoError(t, err)
	assert.Equal(t, 9, n)
	assert.Equal(t, 6, restarted.idx.Len(tenantA))
}

func TestLoadOfEmptyDatabase(t *testing.T) {
	s := New(newFakeDB(), dims)
	n, err := s.Load(context.Background())
	require.NoError(t, err)
	assert.Zero(t, n)
	assert.Empty(t, all(t, s, tenantA))
}

func TestLoadFailure(t *testing.T) {
	ctx := context.Background()

	t.Run("database error", func(t *testing.T) {
		db := newFakeDB()
		db.put(tenantA, rec("c1", "kb1", "d1", axis(0, 1)))
		db.loadErr = errDown
		_, err := New(db, dims).Load(ctx)
		require.ErrorIs(t, err, errDown)
	})

	t.Run("records the index refuses", func(t *testing.T) {
		// Vectors written by a store of another width (the embedding model
		// changed): Load reports them rather than serving a partial index.
		db := newFakeDB()
		db.put(tenantA, rec("c1", "kb1", "d1", make([]float32, dims+1)))
		_, err := New(db, dims).Load(ctx)
		require.Error(t, err)
		assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
	})
}

// Two replicas over one database: what one writes, the other follows
// through Apply (the notification store/pg sends for every change).
func TestApplyFollowsAnotherReplica(t *testing.T) {
	ctx := context.Background()
	db := newFakeDB()
	writer, follower := New(db, dims), New(db, dims)
	_, err := follower.Load(ctx)
	require.NoError(t, err)

	// A document indexed by the writer.
	require.NoError(t, writer.Upsert(ctx, tenantA, []domain.VectorRecord{
		rec("c1", "kb1", "d1", axis(0, 1)),
		rec("c2", "kb1", "d1", axis(1, 1)),
		rec("c3", "kb1", "d2", axis(2, 1)),
		rec("c4", "kb2", "d3", axis(3, 1)),
	}))
	assert.Empty(t, all(t, follower, tenantA), "nothing before the change is applied")
	for _, doc := range []string{"d1", "d2", "d3"} {
		require.NoError(t, follower.Apply(ctx, Change{Tenant: tenantA, DocumentID: doc}))
	}
	assert.Equal(t, all(t, writer, tenantA), all(t, follower, tenantA))
	assert.Equal(t, []string{"c1"}, found(t, follower, tenantA, axis(0, 1)))

	// The document re-indexed: c1 moved, c2 dropped, c5 added.
	require.NoError(t, writer.DeleteDocument(ctx, tenantA, "d1"))
	require.NoError(t, writer.Upsert(ctx, tenantA, []domain.VectorRecord{
		rec("c1", "kb1", "d1", axis(3, 1)),
		rec("c5", "kb1", "d1", []float32{1, 1, 1, 1}),
	}))
	require.NoError(t, follower.Apply(ctx, Change{Tenant: tenantA, DocumentID: "d1"}))
	assert.Equal(t, []string{"c1", "c3", "c4", "c5"}, all(t, follower, tenantA))
	assert.Empty(t, found(t, follower, tenantA, axis(0, 1)), "c1's old vector is gone")
	assert.Empty(t, found(t, follower, tenantA, axis(1, 1)), "c2 is gone")
	assert.Equal(t, []string{"c1", "c4"}, found(t, follower, tenantA, axis(3, 1)))
	for _, q := range [][]float32{{1, 0, 0, 0}, {0.1, 0.5, 0.2, 0.9}, {1, 1, 1, 1}} {
		assert.Equal(t, hits(t, writer, tenantA, q, domain.VectorQuery{}), hits(t, follower, tenantA, q, domain.VectorQuery{}))
	}

	// A deleted document.
	require.NoError(t, writer.DeleteDocument(ctx, tenantA, "d2"))
	require.NoError(t, follower.Apply(ctx, Change{Tenant: tenantA, DocumentID: "d2", Deleted: true}))
	assert.Equal(t, []string{"c1", "c4", "c5"}, all(t, follower, tenantA))

	// A deleted knowledge base.
	require.NoError(t, writer.DeleteKnowledgeBase(ctx, tenantA, "kb2"))
	require.NoError(t, follower.Apply(ctx, Change{Tenant: tenantA, KBID: "kb2", Deleted: true}))
	assert.Equal(t, []string{"c1", "c5"}, all(t, follower, tenantA))
	assert.Equal(t, all(t, writer, tenantA), all(t, follower, tenantA))
}

func TestApplyOfDocumentGoneSinceRemovesIt(t *testing.T) {
	// The notification of a re-indexing can arrive after the document was
	// deleted: reading it back finds nothing, and nothing must stay.
	ctx := context.Background()
	db := newFakeDB()
	s := New(db, dims)
	seed(t, s, tenantA)
	require.NoError(t, db.DeleteDocumentVectors(ctx, tenantA, "d1"))

	require.NoError(t, s.Apply(ctx, Change{Tenant: tenantA, DocumentID: "d1"}))
	assert.Equal(t, []string{"c3", "c4"}, all(t, s, tenantA))
}

func TestApplyFailureLeavesIndexUnchanged(t *testing.T) {
	ctx := context.Background()
	db := newFakeDB()
	s := New(db, dims)
	seed(t, s, tenantA)
	db.put(tenantA, rec("c9", "kb1", "d1", []float32{1, 1, 1, 1}))
	db.loadDocErr = errDown

	require.ErrorIs(t, s.Apply(ctx, Change{Tenant: tenantA, DocumentID: "d1"}), errDown)
	assert.Equal(t, []string{"c1", "c2", "c3", "c4"}, all(t, s, tenantA), "d1 keeps its old chunks")
}

func TestApplyWithNothingToDo(t *testing.T) {
	ctx := context.Background()
	db := newFakeDB()
	s := New(db, dims)
	seed(t, s, tenantA)
	db.put(tenantA, rec("c9", "kb1", "d1", []float32{1, 1, 1, 1}))

	for _, c := range []Change{
		{},
		{Tenant: tenantA},
		{Tenant: tenantA, Deleted: true},
		{Tenant: tenantA, KBID: "kb1"}, // a knowledge base is never re-indexed whole
	} {
		require.NoError(t, s.Apply(ctx, c), "%+v", c)
	}
	assert.Zero(t, db.loadDocs, "no change needed a read")
	assert.Equal(t, []string{"c1", "c2", "c3", "c4"}, all(t, s, tenantA))
}

// Apply must leave the index as it was when it cannot take in what the
// database holds, as it does when the database cannot be read.
func TestApplyOfRefusedRecordsLeavesIndexUnchanged(t *testing.T) {
	ctx := context.Background()
	db := newFakeDB()
	s := New(db, dims)
	seed(t, s, tenantA)
	db.put(tenantA, rec("c9", "kb1", "d1", make([]float32, dims+1)))

	err := s.Apply(ctx, Change{Tenant: tenantA, DocumentID: "d1"})
	require.Error(t, err)
	assert.Equal(t, []string{"c1", "c2", "c3", "c4"}, all(t, s, tenantA))
}

func TestTenantIsolation(t *testing.T) {
	ctx := context.Background()
	db := newFakeDB()
	s := New(db, dims)
	// The same knowledge base and document ids and the same vectors in
	// both tenants.
	require.NoError(t, s.Upsert(ctx, tenantA, []domain.VectorRecord{
		rec("a1", "kb1", "d1", axis(0, 1)),
		rec("a2", "kb2", "d2", axis(1, 1)),
	}))
	require.NoError(t, s.Upsert(ctx, tenantB, []domain.VectorRecord{
		rec("b1", "kb1", "d1", axis(0, 1)),
		rec("b2", "kb2", "d2", axis(1, 1)),
	}))

	assert.Equal(t, []string{"a1"}, found(t, s, tenantA, axis(0, 1)))
	assert.Equal(t, []string{"b1"}, found(t, s, tenantB, axis(0, 1)))
	assert.Equal(t, []string{"a1"}, ids(hits(t, s, tenantA, axis(0, 1), domain.VectorQuery{KBIDs: []string{"kb1"}})))
	assert.Empty(t, all(t, s, "tenant-c"))
	assert.Equal(t, []string{"a1", "a2"}, db.chunks(tenantA))
	assert.Equal(t, []string{"b1", "b2"}, db.chunks(tenantB))

	require.NoError(t, s.DeleteDocument(ctx, tenantA, "d1"))
	assert.Equal(t, []string{"a2"}, all(t, s, tenantA))
	assert.Equal(t, []string{"b1", "b2"}, all(t, s, tenantB))
	assert.Equal(t, []string{"b1", "b2"}, db.chunks(tenantB))

	require.NoError(t, s.DeleteKnowledgeBase(ctx, tenantB, "kb2"))
	assert.Equal(t, []string{"a2"}, all(t, s, tenantA))
	assert.Equal(t, []string{"b1"}, all(t, s, tenantB))
	assert.Equal(t, []string{"a2"}, db.chunks(tenantA))

	// Changes another replica made in tenant b touch only tenant b (the
	// same document and knowledge base ids of tenant a stay).
	require.NoError(t, s.Upsert(ctx, tenantA, []domain.VectorRecord{rec("a3", "kb2", "d2", axis(2, 1))}))
	db.put(tenantB, rec("b3", "kb2", "d2", axis(2, 1)))
	require.NoError(t, s.Apply(ctx, Change{Tenant: tenantB, DocumentID: "d2"}))
	assert.Equal(t, []string{"a2", "a3"}, all(t, s, tenantA))
	assert.Equal(t, []string{"b1", "b3"}, all(t, s, tenantB))
	assert.Equal(t, []string{"a3"}, found(t, s, tenantA, axis(2, 1)))
	assert.Equal(t, []string{"b3"}, found(t, s, tenantB, axis(2, 1)))

	require.NoError(t, db.DeleteDocumentVectors(ctx, tenantB, "d2"))
	require.NoError(t, s.Apply(ctx, Change{Tenant: tenantB, DocumentID: "d2", Deleted: true}))
	assert.Equal(t, []string{"a2", "a3"}, all(t, s, tenantA))
	assert.Equal(t, []string{"b1"}, all(t, s, tenantB))

	require.NoError(t, db.DeleteKnowledgeBaseVectors(ctx, tenantB, "kb1"))
	require.NoError(t, s.Apply(ctx, Change{Tenant: tenantB, KBID: "kb1", Deleted: true}))
	assert.Equal(t, []string{"a2", "a3"}, all(t, s, tenantA))
	assert.Empty(t, all(t, s, tenantB))

	// After a restart too.
	restarted := reload(t, db)
	assert.Equal(t, []string{"a2", "a3"}, all(t, restarted, tenantA))
	assert.Empty(t, all(t, restarted, tenantB))
}

func TestModelSeparation(t *testing.T) {
	ctx := context.Background()
	db := newFakeDB()
	s := New(db, dims)
	// The same vector made by two models: the same direction means nothing
	// across models.
	other := func(chunk string, vec []float32) domain.VectorRecord {
		r := rec(chunk, "kb1", "d1", vec)
		r.Model = otherModel
		return r
	}
	require.NoError(t, s.Upsert(ctx, tenantA, []domain.VectorRecord{
		rec("m1", "kb1", "d1", axis(0, 1)),
		other("o1", axis(0, 1)),
		other("o2", axis(1, 1)),
	}))

	for _, tc := range []struct {
		model string
		want  []string
	}{
		{model, []string{"m1"}},
		{otherModel, []string{"o1", "o2"}},
		{"unknown-model", nil},
	} {
		for _, st := range []*Store{s, reload(t, db)} {
			got := hits(t, st, tenantA, axis(0, 1), domain.VectorQuery{Model: tc.model})
			gotIDs := ids(got)
			slices.Sort(gotIDs)
			assert.Equal(t, tc.want, gotIDs, "model %s", tc.model)
		}
	}

	// Only the records of the model asked for fill the top k.
	got := hits(t, s, tenantA, axis(1, 1), domain.VectorQuery{TopK: 1})
	assert.Equal(t, []string{"m1"}, ids(got))
	assert.InDelta(t, 0, got[0].Score, 1e-6)

	// A query needs a model.
	_, err := s.Search(ctx, tenantA, domain.VectorQuery{Vector: axis(0, 1), TopK: 10})
	assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
}

// reload returns a store freshly loaded from db.
func reload(t *testing.T, db *fakeDB) *Store {
	t.Helper()
	s := New(db, dims)
	_, err := s.Load(context.Background())
	require.NoError(t, err)
	return s
}

// ids returns the chunk ids of hits, in order (nil for none).
func ids(hits []domain.VectorHit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.ChunkID)
	}
	return out
}
