package retention_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/retention"
)

func TestPurgeDeletesWhatIsOlderThanEachTenantsRetention(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	old, recent := f.now.Add(-40*day), f.now.Add(-day)

	// acme keeps 30 days of everything; globex 90 days; keeper keeps its
	// messages for good (message retention off) and monitoring the longest.
	f.tenant(t, "acme", 30, 30)
	f.tenant(t, "globex", 90, 90)
	f.tenant(t, "keeper", 3650, 0)
	sessions := map[domain.TenantID][2]string{}
	for _, id := range []domain.TenantID{"acme", "globex", "keeper"} {
		f.monitor(t, id, old)
		f.monitor(t, id, recent)
		// stale holds only an old message; live an old and a recent one.
		sessions[id] = [2]string{f.session(t, id, old), f.session(t, id, old, recent)}
	}
	ancient := f.now.Add(-1000 * day)
	f.monitor(t, "keeper", ancient)
	keeperAncient := f.session(t, "keeper", ancient)

	res, err := f.purger.Purge(ctx, f.now)
	require.NoError(t, err)
	assert.Equal(t, domain.PurgeResult{Ran: true, Tenants: 3, Monitoring: 2, Messages: 2, Sessions: 1}, res)

	// acme: the old records, the old messages and the session they emptied are gone.
	hits, starts := f.monitoring(t, "acme")
	assert.Equal(t, 1, hits)
	assert.EqualValues(t, 1, starts)
	_, ok := f.messages(t, "acme", sessions["acme"][0])
	assert.False(t, ok, "the emptied, idle session is deleted")
	msgs, ok := f.messages(t, "acme", sessions["acme"][1])
	require.True(t, ok)
	assert.Equal(t, []string{recent.Format(time.RFC3339)}, msgs)

	// globex: 40 days is within its 90.
	hits, starts = f.monitoring(t, "globex")
	assert.Equal(t, 2, hits)
	assert.EqualValues(t, 2, starts)
	msgs, ok = f.messages(t, "globex", sessions["globex"][0])
	require.True(t, ok)
	assert.Len(t, msgs, 1)
	msgs, ok = f.messages(t, "globex", sessions["globex"][1])
	require.True(t, ok)
	assert.Len(t, msgs, 2)

	// keeper: everything, even 1000 days old.
	hits, starts = f.monitoring(t, "keeper")
	assert.Equal(t, 3, hits)
	assert.EqualValues(t, 3, starts)
	for _, s := range []string{sessions["keeper"][0], sessions["keeper"][1], keeperAncient} {
		msgs, ok := f.messages(t, "keeper", s)
		require.True(t, ok)
		assert.NotEmpty(t, msgs)
	}

	assert.Contains(t, f.log.String(), "expired records purged")
	assert.Contains(t, f.log.String(), "monitoring=2 messages=2 sessions=1")
}

func TestPurgeAgainDeletesNothingAndLogsNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.tenant(t, "acme", 30, 30)
	f.monitor(t, "acme", f.now.Add(-40*day))
	session := f.session(t, "acme", f.now.Add(-40*day), f.now.Add(-time.Hour))

	first, err := f.purger.Purge(t.Context(), f.now)
	require.NoError(t, err)
	assert.EqualValues(t, 2, first.Monitoring)
	assert.EqualValues(t, 1, first.Messages)
	logged := f.log.String()

	second, err := f.purger.Purge(t.Context(), f.now)
	require.NoError(t, err)
	assert.Equal(t, domain.PurgeResult{Ran: true, Tenants: 1}, second)
	assert.Equal(t, logged, f.log.String(), "a purge that deletes nothing logs nothing")
	msgs, ok := f.messages(t, "acme", session)
	require.True(t, ok)
	assert.Len(t, msgs, 1)
}

func TestPurgeIsExactAtTheFloor(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.tenant(t, "acme", 30, 30)
	floor := f.now.Add(-30 * day)
	f.monitor(t, "acme", floor)                        // exactly 30 days old: kept
	f.monitor(t, "acme", floor.Add(-time.Millisecond)) // just older: purged
	session := f.session(t, "acme", floor.Add(-time.Millisecond), floor)

	res, err := f.purger.Purge(t.Context(), f.now)
	require.NoError(t, err)
	assert.EqualValues(t, 2, res.Monitoring)
	assert.EqualValues(t, 1, res.Messages)
	hits, starts := f.monitoring(t, "acme")
	assert.Equal(t, 1, hits)
	assert.EqualValues(t, 1, starts)
	msgs, ok := f.messages(t, "acme", session)
	require.True(t, ok)
	assert.Equal(t, []string{floor.Format(time.RFC3339)}, msgs)
}

func TestPurgeDrainsMoreThanOneBatch(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.tenant(t, "acme", 30, 0)
	old := f.now.Add(-40 * day)
	hits := make([]domain.GuardHit, retention.Batch+7)
	for i := range hits {
		hits[i] = domain.GuardHit{TenantID: "acme", Stage: domain.GuardInput, Kind: "high_risk", Category: "legal", At: old}
	}
	require.NoError(t, f.store.RecordGuardHits(t.Context(), hits))
	f.monitor(t, "acme", f.now.Add(-day))

	res, err := f.purger.Purge(t.Context(), f.now)
	require.NoError(t, err)
	assert.EqualValues(t, retention.Batch+7, res.Monitoring)
	n, starts := f.monitoring(t, "acme")
	assert.Equal(t, 1, n)
	assert.EqualValues(t, 1, starts)
}

func TestPurgeSkipsWhileAnotherReplicaPurges(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	f.tenant(t, "acme", 30, 30)
	f.monitor(t, "acme", f.now.Add(-40*day))

	// Another replica's purge: the same advisory lock, held on another connection.
	conn, err := f.pool.Acquire(ctx)
	require.NoError(t, err)
	defer conn.Release()
	_, err = conn.Exec(ctx, `SELECT pg_advisory_lock(hashtextextended('retention_purge', 0))`)
	require.NoError(t, err)

	res, err := f.purger.Purge(ctx, f.now)
	require.NoError(t, err)
	assert.Equal(t, domain.PurgeResult{}, res, "Ran false, nothing done")
	hits, _ := f.monitoring(t, "acme")
	assert.Equal(t, 1, hits)
	assert.Empty(t, f.log.String())

	var released bool
	require.NoError(t, conn.QueryRow(ctx, `SELECT pg_advisory_unlock(hashtextextended('retention_purge', 0))`).Scan(&released))
	require.True(t, released)
	res, err = f.purger.Purge(ctx, f.now)
	require.NoError(t, err)
	assert.True(t, res.Ran)
	hits, _ = f.monitoring(t, "acme")
	assert.Zero(t, hits)
}

func TestPurgeStopsWithItsContext(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.tenant(t, "acme", 30, 30)
	f.monitor(t, "acme", f.now.Add(-40*day))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()

	_, err := f.purger.Purge(ctx, f.now)
	require.ErrorIs(t, err, context.Canceled)
	hits, _ := f.monitoring(t, "acme")
	assert.Equal(t, 1, hits, "nothing purged")

	// A cancelled purge leaves no lock behind: the next one runs.
	res, err := f.purger.Purge(t.Context(), f.now)
	require.NoError(t, err)
	assert.True(t, res.Ran)
	hits, _ = f.monitoring(t, "acme")
	assert.Zero(t, hits)
}

func TestRunReturnsWhenItsContextEnds(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.tenant(t, "acme", 30, 30)
	f.monitor(t, "acme", time.Now().Add(-40*day))
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		f.purger.Run(ctx)
		close(done)
	}()
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
	hits, _ := f.monitoring(t, "acme")
	assert.Equal(t, 1, hits, "Run purges only FirstAfter after it starts")
}
