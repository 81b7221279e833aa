package indexfeed_test

import (
	"context"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/pgtest"
	"github.com/cs-assistant/assistant/store/indexfeed"
	"github.com/cs-assistant/assistant/store/pg"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m, pg.Migrate)) }

// heard is what the subscribers of a feed were handed, in order: "name:
// resync" or "name: document".
type heard struct {
	mu  sync.Mutex
	log []string
}

// follower subscribes to f as name.
func (h *heard) follower(f *indexfeed.Feed, name string) (stop func()) {
	return f.Subscribe(func(c domain.IndexChange) { h.add(name + ": " + c.DocumentID) }, func() { h.add(name + ": resync") })
}

func (h *heard) add(s string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.log = append(h.log, s)
}

// waitFor waits until the log holds n entries, and returns them.
func (h *heard) waitFor(t *testing.T, n int) []string {
	t.Helper()
	var got []string
	require.Eventually(t, func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		got = slices.Clone(h.log)
		return len(got) >= n
	}, 10*time.Second, 5*time.Millisecond, "heard %v", got)
	return got
}

// listeners counts the LISTEN connections on the database of pool.
func listeners(t *testing.T, pool *pgxpool.Pool) int {
	t.Helper()
	var n int
	require.NoError(t, pool.QueryRow(context.Background(),
		"SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %'").Scan(&n))
	return n
}

// TestOneConnectionServesEverySubscriber: the subscribers of a feed share
// one LISTEN connection; each resyncs first (when the connection listens,
// or at once if it does already) and then gets every change announced,
// in order, until it stops; a new connection resyncs them all.
func TestOneConnectionServesEverySubscriber(t *testing.T) {
	pool, err := pgxpool.New(context.Background(), pgtest.NewDatabase(t))
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	store := pg.New(pool)
	feed := indexfeed.New(store)
	h := &heard{}
	stopEarly := h.follower(feed, "early")
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { feed.Run(ctx); close(ran) }()
	defer func() { cancel(); <-ran }()

	assert.Equal(t, []string{"early: resync"}, h.waitFor(t, 1), "resynced once the connection listens")
	stopLate := h.follower(feed, "late")
	assert.Equal(t, []string{"early: resync", "late: resync"}, h.waitFor(t, 2), "a late subscriber resyncs at once")
	announce := func(doc string) {
		require.NoError(t, store.AnnounceIndexChange(context.Background(), domain.IndexChange{Tenant: "acme", DocumentID: doc}))
	}
	announce("d1")
	announce("d2")
	assert.Equal(t, []string{"early: d1", "late: d1", "early: d2", "late: d2"}, h.waitFor(t, 6)[2:],
		"every change to every subscriber, in order")
	assert.Equal(t, 1, listeners(t, pool), "one connection for both")

	stopLate()
	announce("d3")
	assert.Equal(t, []string{"early: d3"}, h.waitFor(t, 7)[6:])

	// The connection is lost: its successor resyncs every subscriber
	// before the changes it carries.
	stopLate = h.follower(feed, "late")
	h.waitFor(t, 8)
	_, err = pool.Exec(context.Background(), "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "+
		"WHERE datname = current_database() AND query LIKE 'LISTEN %'")
	require.NoError(t, err)
	got := h.waitFor(t, 10)[8:]
	assert.ElementsMatch(t, []string{"early: resync", "late: resync"}, got)
	require.Eventually(t, func() bool { return listeners(t, pool) == 1 }, 10*time.Second, 5*time.Millisecond)
	announce("d4")
	assert.Equal(t, []string{"early: d4", "late: d4"}, h.waitFor(t, 12)[10:])

	stopEarly()
	stopLate()
	cancel()
	<-ran
	assert.Eventually(t, func() bool { return listeners(t, pool) == 0 }, 10*time.Second, 5*time.Millisecond, "Run ended: nothing listens")
}

// TestAFeedIsAChangeSource: ListenIndexChanges subscribes until its
// context ends, as the store's own does.
func TestAFeedIsAChangeSource(t *testing.T) {
	pool, err := pgxpool.New(context.Background(), pgtest.NewDatabase(t))
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	store := pg.New(pool)
	feed := indexfeed.New(store)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go feed.Run(ctx)

	h := &heard{}
	sub, unsubscribe := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		feed.ListenIndexChanges(sub, func(c domain.IndexChange) { h.add("cache: " + c.DocumentID) }, func() { h.add("cache: resync") })
		close(done)
	}()
	h.waitFor(t, 1)
	require.NoError(t, store.AnnounceIndexChange(context.Background(), domain.IndexChange{Tenant: "acme", DocumentID: "d1", Deleted: true}))
	assert.Equal(t, []string{"cache: resync", "cache: d1"}, h.waitFor(t, 2))
	unsubscribe()
	<-done
	h.follower(feed, "other")
	require.NoError(t, store.AnnounceIndexChange(context.Background(), domain.IndexChange{Tenant: "acme", DocumentID: "d2"}))
	assert.Equal(t, []string{"other: resync", "other: d2"}, h.waitFor(t, 4)[2:], "the cache that stopped hears nothing more")
}
