package hybrid

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// fakeSource is a ChangeSource that starts listening (resync), runs
// connected, and delivers changes, then stops.
type fakeSource struct {
	connected func()
	changes   []domain.IndexChange
}

func (s fakeSource) ListenIndexChanges(_ context.Context, fn func(domain.IndexChange), resync func()) {
	resync()
	if s.connected != nil {
		s.connected()
	}
	for _, c := range s.changes {
		fn(c)
	}
}

// Another replica's changes reach a resident tenant: a re-indexed
// document is read again, both sides (chunks it no longer has go), a
// deleted document or knowledge base goes.
func TestApplyFollowsAnotherReplica(t *testing.T) {
	ctx := context.Background()
	db := newFakeDB()
	db.put("acme", rec("a2", "kb1", "d1", "claim form", axis(2)))
	x := loaded(t, db)

	// d1 is indexed again as one chunk: a2 is gone, a1 says something else.
	db.remove("acme", func(_, doc string) bool { return doc == "d1" })
	db.put("acme", rec("a1", "kb1", "d1", "returns window", axis(3)))
	require.NoError(t, x.Apply(ctx, domain.IndexChange{Tenant: "acme", DocumentID: "d1"}))
	assert.Equal(t, found([]string{"a1"}, []string{"a1"}), both(t, x, "acme", axis(3), "returns"))
	assert.Equal(t, found(nil, nil), both(t, x, "acme", axis(0), "refund"))
	assert.Equal(t, found(nil, nil), both(t, x, "acme", axis(2), "form"))

	db.remove("acme", func(_, doc string) bool { return doc == "d1" })
	require.NoError(t, x.Apply(ctx, domain.IndexChange{Tenant: "acme", DocumentID: "d1", Deleted: true}))
	assert.Equal(t, found(nil, nil), both(t, x, "acme", axis(3), "returns"))

	db.remove("acme", func(kb, _ string) bool { return kb == "kb2" })
	require.NoError(t, x.Apply(ctx, domain.IndexChange{Tenant: "acme", KBID: "kb2", Deleted: true}))
	assert.Equal(t, found(nil, nil), both(t, x, "acme", axis(1), "shipping"))
	assert.Equal(t, 1, db.loadsOf("acme"), "followed, not reloaded")
}

// A change for a tenant that is not resident is ignored: it will load
// fresh.
func TestChangesOfTenantsNotResidentAreIgnored(t *testing.T) {
	db := newFakeDB()
	x := newIndex(t, db, 0)
	require.NoError(t, x.Apply(context.Background(), domain.IndexChange{Tenant: "globex", DocumentID: "d1"}))
	assert.Zero(t, db.docReads, "nothing read")
	assert.Equal(t, Stats{}, x.Stats())
}

// A new connection drops every resident tenant (changes may have been
// missed while none listened): each loads again, current, on its next
// search.
func TestANewConnectionResyncs(t *testing.T) {
	db := newFakeDB()
	x := loaded(t, db)
	db.put("acme", rec("c1", "kb1", "d3", "warranty claims", axis(2))) // unannounced
	x.Follow(context.Background(), fakeSource{connected: func() {
		assert.Equal(t, Stats{Loads: 1, Evictions: 0}, x.Stats(), "nothing resident once connected")
	}})
	assert.Equal(t, found([]string{"c1"}, []string{"c1"}), both(t, x, "acme", axis(2), "warranty"))
	assert.Equal(t, 2, db.loadsOf("acme"))
}

// A change that cannot be followed drops its tenant, which loads again,
// current, on its next search.
func TestAChangeThatCannotBeFollowedDropsTheTenant(t *testing.T) {
	db := newFakeDB()
	x := newIndex(t, db, 0)
	db.put("acme", rec("a1", "kb1", "d1", "refund policy", axis(0)))
	x.Follow(context.Background(), fakeSource{
		connected: func() {
			require.Equal(t, found([]string{"a1"}, []string{"a1"}), both(t, x, "acme", axis(0), "refund"))
			db.put("acme", rec("c1", "kb1", "d3", "warranty claims", axis(2)))
			db.docErr = errDown
		},
		changes: []domain.IndexChange{{Tenant: "acme", DocumentID: "d3"}},
	})
	assert.Equal(t, 1, db.docReads, "the change was tried")
	assert.Equal(t, Stats{Loads: 1}, x.Stats(), "and its tenant dropped")
	db.docErr = nil
	assert.Equal(t, found([]string{"c1"}, []string{"c1"}), both(t, x, "acme", axis(2), "warranty"))
	assert.Equal(t, 2, db.loadsOf("acme"))
}

// A resync during a load makes it load again: what changed between its
// snapshot and the resync is not lost.
func TestAResyncDuringALoadLoadsAgain(t *testing.T) {
	db := newFakeDB()
	db.put("acme", rec("a1", "kb1", "d1", "refund policy", axis(0)))
	db.gate, db.started = make(chan struct{}), make(chan domain.TenantID, 2)
	x := newIndex(t, db, 0)
	done := make(chan [2][]string)
	go func() { done <- both(t, x, "acme", axis(2), "warranty") }()
	<-db.started
	db.put("acme", rec("c1", "kb1", "d3", "warranty claims", axis(2))) // unannounced
	x.resync()
	close(db.gate)
	assert.Equal(t, found([]string{"c1"}, []string{"c1"}), <-done)
	assert.Equal(t, 2, db.loadsOf("acme"))
	assert.Equal(t, 1, x.Stats().Loads, "one load, read twice")
}

// A change read from the database before a write of this replica
// committed is applied before that write, not over it: the replica keeps
// reading its own write.
func TestAChangeReadBeforeAWriteDoesNotUndoIt(t *testing.T) {
	ctx := context.Background()
	db := newFakeDB()
	x := loaded(t, db)
	db.docGate, db.docReading, db.saved = make(chan struct{}), make(chan struct{}), make(chan struct{}, 1)
	applied := make(chan error)
	go func() { applied <- x.Apply(ctx, domain.IndexChange{Tenant: "acme", DocumentID: "d1"}) }()
	<-db.docReading // it read d1 as it was: a1 along axis 0

	written := make(chan error)
	go func() {
		written <- x.Upsert(ctx, "acme", []domain.VectorRecord{rec("a1", "kb1", "d1", "refund window", axis(3))})
	}()
	<-db.saved // the write is in the database
	close(db.docGate)
	require.NoError(t, <-applied)
	require.NoError(t, <-written)
	assert.Equal(t, found([]string{"a1"}, []string{"a1"}), both(t, x, "acme", axis(3), "window"))
	assert.Equal(t, found(nil, nil), both(t, x, "acme", axis(0), "policy"))
}
