package chunkcache

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// store is a Reader over a map, counting the ids it was asked for.
type store struct {
	mu     sync.Mutex
	chunks map[domain.TenantID]map[string]string
	asked  [][]string
	// during, when set, runs inside a read (a change racing it).
	during func()
}

func (s *store) ChunksByIDs(_ context.Context, tenant domain.TenantID, ids []string) ([]domain.Chunk, error) {
	s.mu.Lock()
	s.asked = append(s.asked, slices.Clone(ids))
	var out []domain.Chunk
	for _, id := range ids {
		if text, ok := s.chunks[tenant][id]; ok {
			out = append(out, domain.Chunk{ID: id, TenantID: tenant, Text: text})
		}
	}
	during := s.during
	s.mu.Unlock()
	if during != nil {
		during()
	}
	return out, nil
}

func (s *store) set(tenant domain.TenantID, id, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.chunks[tenant] == nil {
		s.chunks[tenant] = map[string]string{}
	}
	s.chunks[tenant][id] = text
}

func texts(t *testing.T, c *Cache, tenant domain.TenantID, ids ...string) map[string]string {
	t.Helper()
	got, err := c.ChunksByIDs(context.Background(), tenant, ids)
	require.NoError(t, err)
	out := map[string]string{}
	for _, ch := range got {
		out[ch.ID] = ch.Text
	}
	return out
}

func newStore() *store {
	return &store{chunks: map[domain.TenantID]map[string]string{
		"acme":   {"a": "refunds take 5 days", "b": "we ship to Austria"},
		"globex": {"a": "globex's own chunk a"},
	}}
}

func TestReadsOnlyWhatItDoesNotHold(t *testing.T) {
	s := newStore()
	c := New(s, 0)
	hits, misses := 0, 0
	c.CountLookups(func(hit bool) {
		if hit {
			hits++
		} else {
			misses++
		}
	})
	assert.Equal(t, map[string]string{"a": "refunds take 5 days"}, texts(t, c, "acme", "a"))
	assert.Equal(t, map[string]string{"a": "refunds take 5 days", "b": "we ship to Austria"}, texts(t, c, "acme", "a", "b", "gone"))
	assert.Equal(t, map[string]string{"a": "refunds take 5 days"}, texts(t, c, "acme", "a"))
	assert.Equal(t, [][]string{{"a"}, {"b", "gone"}}, s.asked, "held chunks are not read again; a missing one is")
	assert.Equal(t, 2, hits)
	assert.Equal(t, 3, misses)
}

func TestTenantsDoNotShareChunks(t *testing.T) {
	c := New(newStore(), 0)
	assert.Equal(t, map[string]string{"a": "refunds take 5 days"}, texts(t, c, "acme", "a"))
	assert.Equal(t, map[string]string{"a": "globex's own chunk a"}, texts(t, c, "globex", "a"))
	assert.Equal(t, map[string]string{}, texts(t, c, "initech", "a"))
}

// changes is a ChangeSource fed by the test.
type changes struct {
	started chan struct{}
	fn      func(domain.IndexChange)
	resync  func()
}

func (ch *changes) ListenIndexChanges(ctx context.Context, fn func(domain.IndexChange), resync func()) {
	ch.fn, ch.resync = fn, resync
	close(ch.started)
	<-ctx.Done()
}

func TestAChangeDropsItsTenantAndAResyncDropsAll(t *testing.T) {
	s := newStore()
	c := New(s, 0)
	src := &changes{started: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { c.Follow(ctx, src); close(done) }()
	defer func() { cancel(); <-done }()
	<-src.started

	texts(t, c, "acme", "a")
	texts(t, c, "globex", "a")
	s.set("acme", "a", "refunds take 3 days") // the document is indexed again: same id, new text
	assert.Equal(t, "refunds take 5 days", texts(t, c, "acme", "a")["a"], "not announced yet")
	src.fn(domain.IndexChange{Tenant: "acme", DocumentID: "doc_1"})
	assert.Equal(t, "refunds take 3 days", texts(t, c, "acme", "a")["a"], "the change dropped acme's chunks")
	n := len(s.asked)
	texts(t, c, "globex", "a")
	assert.Len(t, s.asked, n, "another tenant's chunks stay")

	src.resync()
	assert.Equal(t, Stats{}, c.Stats(), "a resync drops everything")
	texts(t, c, "globex", "a")
	assert.Len(t, s.asked, n+1)
}

func TestAReadThatRacedADropIsNotKept(t *testing.T) {
	s := newStore()
	c := New(s, 0)
	s.during = func() { c.Drop("acme") } // the change arrives while the old text is on its way
	texts(t, c, "acme", "a")
	s.during = nil
	texts(t, c, "acme", "a")
	assert.Len(t, s.asked, 2, "the raced read was not cached")
	texts(t, c, "acme", "a")
	assert.Len(t, s.asked, 2, "the next one was")
}

func TestTheBoundEvictsTheLeastRecentlyUsed(t *testing.T) {
	s := newStore()
	one := size(domain.Chunk{ID: "a", TenantID: "acme", Text: "refunds take 5 days"})
	c := New(s, 2*one+1)
	s.set("acme", "c", "refunds take 5 daysX") // a little bigger than a
	texts(t, c, "acme", "a")
	texts(t, c, "acme", "b")
	texts(t, c, "acme", "a") // a is now the most recently used
	texts(t, c, "acme", "c") // over the bound: b goes
	assert.LessOrEqual(t, c.Stats().Bytes, 2*one+1)
	n := len(s.asked)
	texts(t, c, "acme", "a")
	assert.Len(t, s.asked, n, "a stayed")
	texts(t, c, "acme", "b")
	assert.Len(t, s.asked, n+1, "b was evicted")
}
