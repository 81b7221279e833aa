package lexical

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

func TestTenantIsolation(t *testing.T) {
	x := New()
	// The same chunk ids, knowledge bases and documents in two tenants.
	require.NoError(t, x.Upsert("t1", []Doc{
		{ChunkID: "c1", KBID: "kb", DocumentID: "d", Text: "router reset guide", Metadata: map[string]any{"owner": "t1"}},
		{ChunkID: "c2", KBID: "kb", DocumentID: "d", Text: "router firmware"},
	}))
	require.NoError(t, x.Upsert("t2", []Doc{
		{ChunkID: "c1", KBID: "kb", DocumentID: "d", Text: "password reset", Metadata: map[string]any{"owner": "t2"}},
	}))
	// c2 is shorter, so its one "router" weighs more.
	assert.Equal(t, []string{"c2", "c1"}, ids(search(t, x, "t1", Query{Text: "router"})))
	assert.Equal(t, []Hit{}, search(t, x, "t2", Query{Text: "router"}))
	assert.Equal(t, []Hit{}, search(t, x, "t1", Query{Text: "password"}))
	assert.Equal(t, []Hit{}, search(t, x, "t1", Query{Text: "reset", Filter: &domain.Filter{Field: "owner", Op: domain.OpEq, Value: "t2"}}))

	// Statistics are per tenant: "reset" is in 1 of 2 chunks of t1 and in
	// the only chunk of t2, so the idf differs.
	h1 := search(t, x, "t1", Query{Text: "reset"})
	h2 := search(t, x, "t2", Query{Text: "reset"})
	require.Len(t, h1, 1)
	require.Len(t, h2, 1)
	assert.NotEqual(t, h1[0].Score, h2[0].Score)

	// Deletes touch one tenant only.
	assert.Equal(t, 2, x.DeleteDocument("t1", "d"))
	assert.Equal(t, 0, x.Len("t1"))
	assert.Equal(t, 1, x.Len("t2"))
	assert.Equal(t, []string{"c1"}, ids(search(t, x, "t2", Query{Text: "password"})))
	assert.Equal(t, 1, x.DeleteKnowledgeBase("t2", "kb"))
	assert.Equal(t, 0, x.Len("t2"))
	assert.Equal(t, 0, x.DeleteDocument("nobody", "d"))
	assert.Equal(t, 0, x.DeleteKnowledgeBase("nobody", "kb"))
}

func TestUpsertReplaces(t *testing.T) {
	x := New()
	require.NoError(t, x.Upsert("t1", []Doc{
		{ChunkID: "c1", KBID: "kb1", DocumentID: "d1", Text: "apple pie", Metadata: map[string]any{"lang": "en"}},
		{ChunkID: "c2", KBID: "kb1", DocumentID: "d1", Text: "apple juice"},
	}))
	require.NoError(t, x.Upsert("t1", []Doc{
		{ChunkID: "c1", KBID: "kb2", DocumentID: "d2", Text: "banana bread", Metadata: map[string]any{"lang": "de"}},
	}))
	assert.Equal(t, 2, x.Len("t1"))
	assert.Equal(t, []string{"c2"}, ids(search(t, x, "t1", Query{Text: "apple"})))
	hits := search(t, x, "t1", Query{Text: "banana"})
	require.Len(t, hits, 1)
	assert.Equal(t, Hit{ChunkID: "c1", KBID: "kb2", DocumentID: "d2", Score: hits[0].Score}, hits[0])
	// The old metadata, knowledge base and document are gone with the text.
	assert.Equal(t, []Hit{}, search(t, x, "t1", Query{Text: "banana", Filter: &domain.Filter{Field: "lang", Op: domain.OpEq, Value: "en"}}))
	assert.Len(t, search(t, x, "t1", Query{Text: "banana", Filter: &domain.Filter{Field: "lang", Op: domain.OpEq, Value: "de"}}), 1)
	assert.Equal(t, []Hit{}, search(t, x, "t1", Query{Text: "banana", KBIDs: []string{"kb1"}}))
	assert.Equal(t, 0, x.DeleteDocument("t1", "d1")-1, "d1 keeps only c2")

	// Within one batch the last of a chunk id wins.
	require.NoError(t, x.Upsert("t1", []Doc{
		{ChunkID: "c3", Text: "first"},
		{ChunkID: "c3", Text: "second"},
	}))
	assert.Equal(t, []Hit{}, search(t, x, "t1", Query{Text: "first"}))
	assert.Equal(t, []string{"c3"}, ids(search(t, x, "t1", Query{Text: "second"})))

	// Re-upserting the same chunk leaves the scores unchanged.
	before := search(t, x, "t1", Query{Text: "banana bread second"})
	require.NoError(t, x.Upsert("t1", []Doc{{ChunkID: "c1", KBID: "kb2", DocumentID: "d2", Text: "banana bread"}}))
	assert.Equal(t, before, search(t, x, "t1", Query{Text: "banana bread second"}))
	checkInvariants(t, x, "t1")
}

func TestDeletes(t *testing.T) {
	x := New()
	require.NoError(t, x.Upsert("t1", []Doc{
		{ChunkID: "a1", KBID: "kbA", DocumentID: "doc1", Text: "printer jam"},
		{ChunkID: "a2", KBID: "kbA", DocumentID: "doc1", Text: "printer toner"},
		{ChunkID: "a3", KBID: "kbA", DocumentID: "doc2", Text: "printer driver"},
		{ChunkID: "b1", KBID: "kbB", DocumentID: "doc3", Text: "printer warranty"},
	}))
	assert.Equal(t, []string{"a3", "b1"}, ids(search(t, x, "t1", Query{Text: "driver warranty"})))
	assert.Equal(t, []string{"b1"}, ids(search(t, x, "t1", Query{Text: "printer", KBIDs: []string{"kbB", "kbZ"}})))
	assert.Equal(t, []Hit{}, search(t, x, "t1", Query{Text: "printer", KBIDs: []string{"kbZ"}}))

	assert.Equal(t, 2, x.DeleteDocument("t1", "doc1"))
	assert.Equal(t, 0, x.DeleteDocument("t1", "doc1"), "twice")
	assert.Equal(t, []Hit{}, search(t, x, "t1", Query{Text: "jam toner"}))
	assert.Equal(t, []string{"a3", "b1"}, ids(search(t, x, "t1", Query{Text: "printer"})))

	assert.Equal(t, 1, x.DeleteKnowledgeBase("t1", "kbA"))
	assert.Equal(t, 0, x.DeleteKnowledgeBase("t1", "kbA"), "twice")
	assert.Equal(t, []string{"b1"}, ids(search(t, x, "t1", Query{Text: "printer"})))
	assert.Equal(t, 0, x.DeleteKnowledgeBase("t1", "unknown"))
	checkInvariants(t, x, "t1")

	// The dictionary forgets terms of deleted chunks.
	s := x.shards.Get("t1", false)
	_, ok := s.dict["jam"]
	assert.False(t, ok)

	// A knowledge base emptied and filled again.
	require.NoError(t, x.Upsert("t1", []Doc{{ChunkID: "a1", KBID: "kbA", DocumentID: "doc1", Text: "printer jam"}}))
	assert.Equal(t, []string{"a1"}, ids(search(t, x, "t1", Query{Text: "jam", KBIDs: []string{"kbA"}})))
	checkInvariants(t, x, "t1")
}

func TestUpsertValidation(t *testing.T) {
	x := New()
	good := Doc{ChunkID: "ok", Text: "fine"}
	for name, c := range map[string]struct {
		tenant domain.TenantID
		doc    Doc
	}{
		"no tenant":       {"", good},
		"no chunk id":     {"t1", Doc{Text: "x"}},
		"map metadata":    {"t1", Doc{ChunkID: "c", Metadata: map[string]any{"m": map[string]any{}}}},
		"mixed array":     {"t1", Doc{ChunkID: "c", Metadata: map[string]any{"m": []any{"a", 1.0}}}},
		"NaN":             {"t1", Doc{ChunkID: "c", Metadata: map[string]any{"m": func() float64 { z := 0.0; return z / z }()}}},
		"empty field":     {"t1", Doc{ChunkID: "c", Metadata: map[string]any{"": "x"}}},
		"number array":    {"t1", Doc{ChunkID: "c", Metadata: map[string]any{"m": []float64{1}}}},
		"struct metadata": {"t1", Doc{ChunkID: "c", Metadata: map[string]any{"m": struct{}{}}}},
	} {
		err := x.Upsert(c.tenant, []Doc{good, c.doc})
		assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err), name)
	}
	assert.Equal(t, 0, x.Len("t1"), "a refused batch is not applied in part")
	assert.NoError(t, x.Upsert("t1", nil))
	assert.NoError(t, x.Upsert("t1", []Doc{{ChunkID: "empty"}}), "a chunk without text is kept, and found by nothing")
	assert.Equal(t, 1, x.Len("t1"))
	assert.NoError(t, x.Upsert("t1", []Doc{{ChunkID: "nil", Text: "x", Metadata: map[string]any{"absent": nil}}}))
	assert.Equal(t, []string{"nil"}, ids(search(t, x, "t1", Query{Text: "x", Filter: &domain.Filter{Field: "absent", Op: domain.OpNe, Value: "v"}})))
}

// The index copies what it keeps: a caller reusing its buffers cannot
// change indexed chunks.
func TestUpsertCopies(t *testing.T) {
	x := New()
	tags := []string{"billing"}
	meta := map[string]any{"tags": tags}
	require.NoError(t, x.Upsert("t1", []Doc{{ChunkID: "c1", Text: "invoice", Metadata: meta}}))
	tags[0] = "shipping"
	meta["tags"] = "other"
	f := &domain.Filter{Field: "tags", Op: domain.OpEq, Value: "billing"}
	assert.Equal(t, []string{"c1"}, ids(search(t, x, "t1", Query{Text: "invoice", Filter: f})))
}
