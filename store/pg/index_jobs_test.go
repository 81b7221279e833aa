package pg

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/pgtest"
)

// queue is a store on a database of its own, with one knowledge base per
// tenant that queued a job.
type queue struct {
	t   *testing.T
	s   *Store
	kbs map[domain.TenantID]string
}

func newQueue(t *testing.T) *queue {
	t.Helper()
	pool, err := Open(t.Context(), pgtest.NewDatabase(t))
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	return &queue{t: t, s: New(pool), kbs: map[domain.TenantID]string{}}
}

// add uploads a document to the tenant and returns its job's id.
func (q *queue) add(tenant domain.TenantID) string {
	q.t.Helper()
	ctx := q.t.Context()
	kb, ok := q.kbs[tenant]
	if !ok {
		_, err := q.s.EnsureTenant(ctx, tenant)
		require.NoError(q.t, err)
		created, err := q.s.CreateKnowledgeBase(ctx, domain.KnowledgeBase{ID: domain.NewID(domain.PrefixKnowledgeBase), TenantID: tenant, Name: "docs"})
		require.NoError(q.t, err)
		kb, q.kbs[tenant] = created.ID, created.ID
	}
	_, job, err := q.s.CreateDocument(ctx, domain.NewDocument{
		Document: domain.Document{ID: domain.NewID(domain.PrefixDocument), TenantID: tenant, KBID: kb, Name: "a.txt", Kind: "text", SizeBytes: 1},
		Content:  []byte("a"), JobID: domain.NewID(domain.PrefixIndexJob),
	})
	require.NoError(q.t, err)
	return job.ID
}

// claim takes a job as a worker would, with a per-tenant cap; ok is
// false when the queue has nothing for it.
func (q *queue) claim(perTenant int, lease time.Duration) (domain.IndexJob, bool) {
	q.t.Helper()
	job, ok, err := q.s.ClaimJob(q.t.Context(), domain.JobClaim{Owner: "worker", Lease: lease, PerTenant: perTenant})
	require.NoError(q.t, err)
	return job, ok
}

// Tenants take turns: a free worker serves the tenant with the fewest jobs
// running, then the one served longest ago; a tenant at its cap waits while
// the others are served; within a tenant the oldest job goes first.
func TestClaimServesTenantsInTurn(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		// queued is the tenant of each job, in the order they were queued.
		queued    []domain.TenantID
		perTenant int
		// finish ends each claimed job before the next claim; otherwise
		// the claimed jobs keep running.
		finish bool
		// want is the tenant of each claim, "" for a claim that got nothing.
		want []domain.TenantID
	}{
		{"the tenant that queued first does not go twice before the others",
			[]domain.TenantID{"acme", "acme", "acme", "bolt", "cora"}, 0, true,
			[]domain.TenantID{"acme", "bolt", "cora", "acme", "acme", ""}},
		{"a tenant with fewer jobs running goes first",
			[]domain.TenantID{"acme", "acme", "acme", "bolt"}, 0, false,
			[]domain.TenantID{"acme", "bolt", "acme", "acme", ""}},
		{"a tenant at its cap waits, the others do not",
			[]domain.TenantID{"acme", "acme", "acme", "bolt", "bolt", "cora"}, 1, false,
			[]domain.TenantID{"acme", "bolt", "cora", ""}},
		{"a cap of two",
			[]domain.TenantID{"acme", "acme", "acme", "bolt"}, 2, false,
			[]domain.TenantID{"acme", "bolt", "acme", ""}},
		{"a capped tenant goes on as its jobs end",
			[]domain.TenantID{"acme", "acme", "acme"}, 1, true,
			[]domain.TenantID{"acme", "acme", "acme", ""}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			q := newQueue(t)
			order := map[domain.TenantID][]string{}
			for _, tenant := range c.queued {
				order[tenant] = append(order[tenant], q.add(tenant))
			}
			var got []domain.TenantID
			for range c.want {
				job, ok := q.claim(c.perTenant, time.Hour)
				if !ok {
					got = append(got, "")
					continue
				}
				got = append(got, job.TenantID)
				require.NotEmpty(t, order[job.TenantID])
				assert.Equal(t, order[job.TenantID][0], job.ID, "the tenant's oldest job")
				order[job.TenantID] = order[job.TenantID][1:]
				assert.Equal(t, domain.JobParsing, job.State)
				if c.finish {
					require.NoError(t, q.s.SucceedJob(t.Context(), "worker", job, 0, "m"))
				}
			}
			assert.Equal(t, c.want, got)
		})
	}
}

// A job waiting for its retry is passed over, and so is its tenant while
// it has nothing else due; a job whose worker died is taken over, and a
// dead worker's job holds no place under the cap.
func TestClaimPassesOverRetriesAndTakesOverDeadWorkers(t *testing.T) {
	t.Parallel()
	q := newQueue(t)
	ctx := t.Context()
	first := q.add("acme")
	queued, err := q.s.GetIndexJob(ctx, "acme", first)
	require.NoError(t, err)
	assert.Nil(t, queued.NextAttemptAt, "a new job has failed no attempt")
	job, ok := q.claim(1, time.Hour)
	require.True(t, ok)
	require.Equal(t, first, job.ID)
	assert.Nil(t, job.NextAttemptAt, "a running job")
	require.NoError(t, q.s.RetryJob(ctx, "worker", job, time.Hour, domain.ReasonEmbeddingFailed, "down"))
	waiting, err := q.s.GetIndexJob(ctx, "acme", first)
	require.NoError(t, err)
	if assert.NotNil(t, waiting.NextAttemptAt, "the job says when it is tried again") {
		assert.WithinDuration(t, time.Now().Add(time.Hour), *waiting.NextAttemptAt, time.Minute)
	}
	_, ok = q.claim(1, time.Hour)
	assert.False(t, ok, "the retry waits")

	other := q.add("bolt")
	job, ok = q.claim(1, time.Hour)
	require.True(t, ok)
	assert.Equal(t, other, job.ID, "another tenant's job is served meanwhile")

	dead := q.add("cora")
	job, ok = q.claim(1, time.Millisecond)
	require.True(t, ok)
	require.Equal(t, dead, job.ID)
	q.add("cora")
	time.Sleep(20 * time.Millisecond)
	job, ok = q.claim(1, time.Hour)
	require.True(t, ok, "the dead worker's job does not count against the cap")
	assert.Equal(t, dead, job.ID, "the older job, taken over")
	assert.Equal(t, int32(2), job.Attempts)
	_, ok = q.claim(1, time.Hour)
	assert.False(t, ok, "now cora runs one job: its second waits")
}

// Workers claiming at once never take one job twice, and hold a tenant's
// cap between them: claims of one tenant take turns under its lock. A
// worker finding a tenant being claimed waits its turn rather than coming
// back empty while the tenant has room.
func TestConcurrentClaimsHoldTheCap(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name      string
		tenants   []domain.TenantID
		perTenant int
		workers   int
	}{
		{"three tenants, one job each", []domain.TenantID{"acme", "bolt", "cora"}, 1, 12},
		{"three tenants, two jobs each", []domain.TenantID{"acme", "bolt", "cora"}, 2, 12},
		{"one tenant with room for both workers", []domain.TenantID{"acme"}, 2, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			q := newQueue(t)
			for range 6 {
				for _, tenant := range c.tenants {
					q.add(tenant)
				}
			}
			for round := range 5 {
				var wg sync.WaitGroup
				jobs := make(chan domain.IndexJob, c.workers)
				start := make(chan struct{})
				for range c.workers {
					wg.Go(func() {
						<-start
						job, ok, err := q.s.ClaimJob(t.Context(), domain.JobClaim{Owner: "worker", Lease: time.Hour, PerTenant: c.perTenant})
						assert.NoError(t, err)
						if ok {
							jobs <- job
						}
					})
				}
				close(start)
				wg.Wait()
				close(jobs)
				running := map[domain.TenantID]int{}
				want := map[domain.TenantID]int{}
				for _, tenant := range c.tenants {
					want[tenant] = c.perTenant
				}
				seen := map[string]bool{}
				var claimed []domain.IndexJob
				for j := range jobs {
					assert.False(t, seen[j.ID], "job %s claimed twice", j.ID)
					seen[j.ID] = true
					running[j.TenantID]++
					claimed = append(claimed, j)
				}
				require.Equal(t, want, running, "round %d: every tenant served, none past its cap", round)
				for _, j := range claimed { // the next round starts from nothing running
					require.NoError(t, q.s.RetryJob(t.Context(), "worker", j, 0, "test", "again"))
				}
			}
		})
	}
}
