package qdrant

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// heard records the announcements, each with the number of points
// Qdrant held at that moment.
type heard struct {
	e       *env
	changes []domain.IndexChange
	points  []int
}

func (h *heard) AnnounceIndexChange(_ context.Context, c domain.IndexChange) error {
	h.changes = append(h.changes, c)
	h.points = append(h.points, h.e.fake.Points(testCollection))
	return nil
}

// TestWritesAreAnnouncedOnceQdrantHasThem: every write is announced per
// document (or knowledge base), after Qdrant holds it.
func TestWritesAreAnnouncedOnceQdrantHasThem(t *testing.T) {
	e := newEnv(t)
	h := &heard{e: e}
	a := NewAnnounced(NewAutoIndexed(e.store), h)
	ctx := context.Background()
	other := textRecord(3, "refund", axis(1))
	other.DocumentID = "doc2"
	require.NoError(t, a.Upsert(ctx, "t1", []domain.VectorRecord{textRecord(1, "refund", axis(1)), other, textRecord(2, "refund", axis(0, 1))}))
	assert.Equal(t, []domain.IndexChange{{Tenant: "t1", DocumentID: "doc1"}, {Tenant: "t1", DocumentID: "doc2"}}, h.changes)
	assert.Equal(t, []int{3, 3}, h.points, "announced once the points are in Qdrant")

	require.NoError(t, a.DeleteDocument(ctx, "t1", "doc1"))
	require.NoError(t, a.DeleteKnowledgeBase(ctx, "t1", "kb1"))
	assert.Equal(t, []domain.IndexChange{{Tenant: "t1", DocumentID: "doc1", Deleted: true}, {Tenant: "t1", KBID: "kb1", Deleted: true}}, h.changes[2:])
	assert.Equal(t, []int{1, 0}, h.points[2:], "announced once the points are gone")

	require.NoError(t, a.Upsert(ctx, "t1", nil), "nothing written, nothing announced")
	requireCode(t, domain.CodeValidation, a.DeleteDocument(ctx, "", "doc1"))
	requireCode(t, domain.CodeValidation, a.Upsert(ctx, "t1", []domain.VectorRecord{{ChunkID: chunk(9)}}))
	assert.Len(t, h.changes, 4, "a write refused whole is not announced")
}

// TestAFailedWriteIsAnnouncedAndAFailedAnnouncementFails: a write that
// failed may have changed points, so it is announced, and its own error
// returned; a write whose announcement failed fails.
func TestAFailedWriteIsAnnouncedAndAFailedAnnouncementFails(t *testing.T) {
	e := newEnv(t)
	slow, err := New(context.Background(), Config{URL: e.fake.URL(), Collection: testCollection, Dims: testDims, Timeout: 200 * time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(func() { _ = slow.Close() })
	var changes []domain.IndexChange
	a := NewAnnounced(NewAutoIndexed(slow), announceFunc(func(_ context.Context, c domain.IndexChange) error {
		changes = append(changes, c)
		return nil
	}))
	e.fake.SetHang(true)
	requireCode(t, domain.CodeUnavailable, a.DeleteDocument(context.Background(), "t1", "doc1"))
	e.fake.SetHang(false)
	assert.Equal(t, []domain.IndexChange{{Tenant: "t1", DocumentID: "doc1", Deleted: true}}, changes)

	// A write whose own context ended part way is announced all the same,
	// on a context of its own.
	var live []bool
	cancelled := NewAnnounced(NewAutoIndexed(slow), announceFunc(func(ctx context.Context, c domain.IndexChange) error {
		live = append(live, ctx.Err() == nil)
		return nil
	}))
	e.fake.SetHang(true)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	requireCode(t, domain.CodeUnavailable, cancelled.DeleteDocument(ctx, "t1", "doc2"))
	cancel()
	e.fake.SetHang(false)
	assert.Equal(t, []bool{true}, live, "announced, with a context still live")

	down := errors.New("database down")
	a = NewAnnounced(NewAutoIndexed(e.store), announceFunc(func(context.Context, domain.IndexChange) error { return down }))
	assert.ErrorIs(t, a.Upsert(context.Background(), "t1", []domain.VectorRecord{textRecord(1, "refund", axis(1))}), down)
	assert.Equal(t, 1, e.fake.Points(testCollection), "written, but not announced: the write fails")
}

// announceFunc is an Announcer of a function.
type announceFunc func(ctx context.Context, c domain.IndexChange) error

func (f announceFunc) AnnounceIndexChange(ctx context.Context, c domain.IndexChange) error {
	return f(ctx, c)
}
