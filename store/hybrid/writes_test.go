package hybrid

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// loaded returns an index over db with tenant acme resident, holding
// chunk a1 (document d1, knowledge base kb1) and b1 (d2, kb2).
func loaded(t *testing.T, db *fakeDB) *Index {
	t.Helper()
	db.put("acme", rec("a1", "kb1", "d1", "refund policy", axis(0)), rec("b1", "kb2", "d2", "shipping times", axis(1)))
	x := newIndex(t, db, 0)
	require.Equal(t, found([]string{"a1"}, []string{"a1"}), both(t, x, "acme", axis(0), "refund"))
	return x
}

// A write reaches the database and both sides of a resident tenant at
// once, metadata included.
func TestUpsertReachesTheDatabaseAndBothSides(t *testing.T) {
	db := newFakeDB()
	x := loaded(t, db)
	r := rec("c1", "kb1", "d3", "warranty claims", axis(2))
	r.Metadata = map[string]any{"lang": "en"}
	require.NoError(t, x.Upsert(context.Background(), "acme", []domain.VectorRecord{r}))
	assert.Equal(t, found([]string{"c1"}, []string{"c1"}), both(t, x, "acme", axis(2), "warranty"))
	hits, err := x.SearchWords(context.Background(), "acme", domain.LexicalQuery{Text: "warranty", TopK: 5,
		Filter: &domain.Filter{Field: "lang", Op: domain.OpEq, Value: "fr"}})
	require.NoError(t, err)
	assert.Empty(t, hits, "the words carry the metadata")
	assert.Len(t, db.vecs["acme"], 3)
	assert.Equal(t, 1, db.loadsOf("acme"), "the write did not reload the tenant")
}

// A write to a tenant that is not resident reaches only the database: the
// tenant loads it with the rest on its first search.
func TestUpsertOfATenantNotResidentOnlyReachesTheDatabase(t *testing.T) {
	db := newFakeDB()
	x := newIndex(t, db, 0)
	require.NoError(t, x.Upsert(context.Background(), "acme", []domain.VectorRecord{rec("a1", "kb1", "d1", "refund policy", axis(0))}))
	assert.Equal(t, Stats{}, x.Stats())
	assert.Zero(t, db.loadsOf("acme"))
	assert.Equal(t, found([]string{"a1"}, []string{"a1"}), both(t, x, "acme", axis(0), "refund"))
}

// What the index would refuse reaches neither the database nor memory.
func TestRefusedRecordsReachNothing(t *testing.T) {
	for name, r := range map[string]domain.VectorRecord{
		"no chunk id":    rec("", "kb1", "d3", "words", axis(0)),
		"wrong length":   rec("c1", "kb1", "d3", "words", []float32{1, 0}),
		"NaN":            rec("c1", "kb1", "d3", "words", []float32{float32(math.NaN()), 0, 0, 0}),
		"no model":       {ChunkID: "c1", KBID: "kb1", DocumentID: "d3", Vector: axis(0), Text: "words"},
		"bad metadata":   {ChunkID: "c1", KBID: "kb1", DocumentID: "d3", Model: model, Vector: axis(0), Metadata: map[string]any{"x": struct{}{}}},
		"another tenant": {ChunkID: "c1", TenantID: "globex", KBID: "kb1", DocumentID: "d3", Model: model, Vector: axis(0)},
	} {
		t.Run(name, func(t *testing.T) {
			db := newFakeDB()
			x := loaded(t, db)
			ok := rec("c2", "kb1", "d3", "words", axis(2))
			err := x.Upsert(context.Background(), "acme", []domain.VectorRecord{ok, r})
			assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
			assert.Len(t, db.vecs["acme"], 2, "nothing saved, not even the good record")
			assert.Equal(t, found(nil, nil), both(t, x, "acme", axis(2), "words"))
		})
	}
}

// A write the database refuses leaves memory as it was.
func TestAFailedSaveLeavesMemoryUnchanged(t *testing.T) {
	db := newFakeDB()
	x := loaded(t, db)
	db.saveErr = errDown
	err := x.Upsert(context.Background(), "acme", []domain.VectorRecord{rec("c1", "kb1", "d3", "warranty", axis(2))})
	require.ErrorIs(t, err, errDown)
	assert.Equal(t, found(nil, nil), both(t, x, "acme", axis(2), "warranty"))
}

// Deleting a document or a knowledge base removes it from the database
// and both sides; a failed delete leaves both.
func TestDeletesReachTheDatabaseAndBothSides(t *testing.T) {
	ctx := context.Background()
	db := newFakeDB()
	x := loaded(t, db)

	db.deleteErr = errDown
	require.ErrorIs(t, x.DeleteDocument(ctx, "acme", "d1"), errDown)
	require.ErrorIs(t, x.DeleteKnowledgeBase(ctx, "acme", "kb2"), errDown)
	assert.Equal(t, found([]string{"a1"}, []string{"a1"}), both(t, x, "acme", axis(0), "refund"))
	assert.Equal(t, found([]string{"b1"}, []string{"b1"}), both(t, x, "acme", axis(1), "shipping"))

	db.deleteErr = nil
	require.NoError(t, x.DeleteDocument(ctx, "acme", "d1"))
	assert.Equal(t, found(nil, nil), both(t, x, "acme", axis(0), "refund"))
	require.NoError(t, x.DeleteKnowledgeBase(ctx, "acme", "kb2"))
	assert.Equal(t, found(nil, nil), both(t, x, "acme", axis(1), "shipping"))
	assert.Empty(t, db.vecs["acme"])
}

// Writes and changes that arrive while a tenant loads are applied when the
// load is done, over whatever its streams read.
func TestWritesDuringALoadAreAppliedWhenItIsDone(t *testing.T) {
	ctx := context.Background()
	db := newFakeDB()
	db.put("acme", rec("a1", "kb1", "d1", "refund policy", axis(0)), rec("b1", "kb2", "d2", "shipping times", axis(1)))
	db.gate, db.started = make(chan struct{}), make(chan domain.TenantID, 1)
	x := newIndex(t, db, 0)
	done := make(chan [2][]string)
	go func() { done <- both(t, x, "acme", axis(2), "warranty") }()
	<-db.started // the streams read their snapshot: a1 and b1

	require.NoError(t, x.Upsert(ctx, "acme", []domain.VectorRecord{rec("c1", "kb1", "d3", "warranty claims", axis(2))}))
	require.NoError(t, x.DeleteDocument(ctx, "acme", "d1"))
	// Another replica re-indexes d2: new text, new vector.
	db.put("acme", rec("b1", "kb2", "d2", "delivery windows", axis(3)))
	require.NoError(t, x.Apply(ctx, domain.IndexChange{Tenant: "acme", DocumentID: "d2"}))
	close(db.gate)

	assert.Equal(t, found([]string{"c1"}, []string{"c1"}), <-done)
	assert.Equal(t, found(nil, nil), both(t, x, "acme", axis(0), "refund"))
	assert.Equal(t, found([]string{"b1"}, []string{"b1"}), both(t, x, "acme", axis(3), "delivery"))
	assert.Equal(t, found(nil, nil), both(t, x, "acme", axis(1), "shipping"))
	assert.Equal(t, 1, db.loadsOf("acme"))
}

// Tenants never see each other's records, whatever their ids.
func TestTenantsAreIsolated(t *testing.T) {
	db := newFakeDB()
	x := loaded(t, db)
	require.NoError(t, x.Upsert(context.Background(), "globex", []domain.VectorRecord{rec("a1", "kb1", "d1", "globex secrets", axis(0))}))
	assert.Equal(t, found(nil, nil), both(t, x, "globex", axis(1), "shipping"), "acme's b1 is acme's")
	assert.Equal(t, found([]string{"a1"}, []string{"a1"}), both(t, x, "globex", axis(0), "secrets"))
	assert.Equal(t, found([]string{"a1"}, nil), both(t, x, "acme", axis(0), "secrets"), "acme's a1 keeps acme's words")
	require.NoError(t, x.DeleteDocument(context.Background(), "globex", "d1"))
	assert.Equal(t, found([]string{"a1"}, []string{"a1"}), both(t, x, "acme", axis(0), "refund"))
}
