package access_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/access"
	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/pgtest"
	"github.com/cs-assistant/assistant/store/pg"
)

// quotaEnv is a store held to policy, with the tenant and quota services
// over it.
type quotaEnv struct {
	store   *pg.Store
	tenants *access.Tenants
	quotas  *access.Quotas
}

func newQuotaEnv(t *testing.T, policy domain.QuotaPolicy) quotaEnv {
	pool, err := pg.Open(t.Context(), pgtest.NewDatabase(t))
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	store := pg.New(pool, pg.WithQuotas(policy))
	tenants := access.NewTenants(store, time.Hour, nil)
	return quotaEnv{store: store, tenants: tenants, quotas: access.NewQuotas(policy, store, tenants)}
}

// limits returns quota values with the given entries set.
func limits(set map[domain.Quota]int64) domain.QuotaValues {
	var v domain.QuotaValues
	for q, n := range set {
		v[q] = n
	}
	return v
}

// inTenant is a request's context: key acting in the tenant as entered.
func (e quotaEnv) inTenant(t *testing.T, tenant domain.TenantID, key string) context.Context {
	rec, err := e.tenants.Enter(t.Context(), platform(), tenant)
	require.NoError(t, err)
	ctx := domain.WithPrincipal(t.Context(), domain.Principal{KeyID: key, Scopes: []domain.Scope{domain.ScopeChat}})
	return domain.WithTenant(ctx, rec)
}

// The store counts what a tenant holds within its quotas, the platform's
// defaults with the overrides a platform key set, and usage shows both.
func TestQuotasOfWhatATenantHolds(t *testing.T) {
	policy := domain.QuotaPolicy{Defaults: limits(map[domain.Quota]int64{domain.QuotaKnowledgeBases: 2, domain.QuotaPromptTemplates: 5}),
		IndexBytes: func(chunks, text int64) int64 { return chunks*1000 + text }}
	e := newQuotaEnv(t, policy)
	ctx := t.Context()
	acme, err := e.tenants.Enter(ctx, platform(), "acme")
	require.NoError(t, err)
	createKB := func(tenant domain.TenantID, name string) error {
		_, err := e.store.CreateKnowledgeBase(ctx, domain.KnowledgeBase{ID: domain.NewID("kb_"), TenantID: tenant, Name: name})
		return err
	}
	require.NoError(t, createKB("acme", "one"))
	require.NoError(t, createKB("acme", "two"))
	err = createKB("acme", "three")
	require.Equal(t, domain.CodeQuotaExceeded, domain.ErrorCodeOf(err), "%v", err)
	got, ok := domain.QuotaOf(err)
	require.True(t, ok)
	assert.Equal(t, domain.QuotaExceeded{Quota: domain.QuotaKnowledgeBases, Limit: 2, Used: 2}, got)
	_, err = e.tenants.Enter(ctx, platform(), "globex")
	require.NoError(t, err)
	require.NoError(t, createKB("globex", "one"), "another tenant counts its own")

	u, err := e.quotas.Usage(ctx, acme)
	require.NoError(t, err)
	assert.EqualValues(t, 2, u.Limits[domain.QuotaKnowledgeBases])
	assert.EqualValues(t, 2, u.Used[domain.QuotaKnowledgeBases])
	assert.EqualValues(t, 5, u.Limits[domain.QuotaPromptTemplates])
	assert.Zero(t, u.Limits[domain.QuotaDocuments], "no default, no limit")

	over := limits(map[domain.Quota]int64{domain.QuotaKnowledgeBases: 3})
	acme, err = e.tenants.Update(ctx, platform(), "acme", domain.TenantPatch{Quotas: &over})
	require.NoError(t, err)
	assert.Equal(t, over, acme.Quotas)
	require.NoError(t, createKB("acme", "three"), "the override raised the limit")
	u, err = e.quotas.Usage(ctx, acme)
	require.NoError(t, err)
	assert.EqualValues(t, 3, u.Limits[domain.QuotaKnowledgeBases])
	assert.EqualValues(t, 5, u.Limits[domain.QuotaPromptTemplates], "the other quotas keep their defaults")
}

// Concurrent writes cannot pass a quota together.
func TestConcurrentCreatesStayWithinTheQuota(t *testing.T) {
	e := newQuotaEnv(t, domain.QuotaPolicy{Defaults: limits(map[domain.Quota]int64{domain.QuotaKnowledgeBases: 3})})
	_, err := e.tenants.Enter(t.Context(), platform(), "acme")
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make(chan error, 12)
	for i := range 12 {
		wg.Go(func() {
			_, err := e.store.CreateKnowledgeBase(t.Context(), domain.KnowledgeBase{ID: domain.NewID("kb_"), TenantID: "acme", Name: fmt.Sprint("kb ", i)})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	codes := map[domain.ErrorCode]int{}
	for err := range errs {
		if err == nil {
			codes["created"]++
			continue
		}
		codes[domain.ErrorCodeOf(err)]++
	}
	assert.Equal(t, map[domain.ErrorCode]int{"created": 3, domain.CodeQuotaExceeded: 9}, codes)
}

// Each API key has its tenant's quota of open event streams, counted
// per tenant and key until each stream closes.
func TestStreamsPerKey(t *testing.T) {
	e := newQuotaEnv(t, domain.QuotaPolicy{Defaults: limits(map[domain.Quota]int64{domain.QuotaStreamsPerKey: 2})})
	type open struct {
		tenant  domain.TenantID
		key     string
		refused bool
	}
	for _, tc := range []struct {
		name  string
		opens []open
	}{
		{"a key opens up to its quota", []open{{"acme", "a", false}, {"acme", "a", false}, {"acme", "a", true}}},
		{"another key of the tenant has its own", []open{{"acme", "a", false}, {"acme", "a", false}, {"acme", "b", false}, {"acme", "b", false}, {"acme", "b", true}}},
		{"a key counts apart in each tenant", []open{{"acme", "p", false}, {"acme", "p", false}, {"globex", "p", false}, {"acme", "p", true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var closers []func()
			for i, o := range tc.opens {
				closeStream, err := e.quotas.OpenStream(e.inTenant(t, o.tenant, o.key))
				if !o.refused {
					require.NoError(t, err, "open %d", i)
					closers = append(closers, closeStream)
					continue
				}
				require.Equal(t, domain.CodeQuotaExceeded, domain.ErrorCodeOf(err), "open %d", i)
				got, _ := domain.QuotaOf(err)
				assert.Equal(t, domain.QuotaExceeded{Quota: domain.QuotaStreamsPerKey, Limit: 2, Used: 2}, got)
			}
			for _, c := range closers {
				c()
				c() // a second close counts nothing
			}
			acme, err := e.tenants.Resolve(t.Context(), "acme")
			require.NoError(t, err)
			u, err := e.quotas.Usage(t.Context(), acme)
			require.NoError(t, err)
			assert.Zero(t, u.Used[domain.QuotaStreamsPerKey], "every stream closed")
		})
	}

	t.Run("usage shows the most one key has open, and a closed stream frees its place", func(t *testing.T) {
		first, err := e.quotas.OpenStream(e.inTenant(t, "acme", "a"))
		require.NoError(t, err)
		second, err := e.quotas.OpenStream(e.inTenant(t, "acme", "a"))
		require.NoError(t, err)
		third, err := e.quotas.OpenStream(e.inTenant(t, "acme", "b"))
		require.NoError(t, err)
		acme, err := e.tenants.Resolve(t.Context(), "acme")
		require.NoError(t, err)
		u, err := e.quotas.Usage(t.Context(), acme)
		require.NoError(t, err)
		assert.EqualValues(t, 2, u.Used[domain.QuotaStreamsPerKey])
		assert.EqualValues(t, 2, u.Limits[domain.QuotaStreamsPerKey])
		first()
		again, err := e.quotas.OpenStream(e.inTenant(t, "acme", "a"))
		require.NoError(t, err)
		for _, c := range []func(){second, third, again} {
			c()
		}
	})
}

// The embedded index's share of a tenant is its index memory quota: the
// platform's default or the tenant's override; none without an embedded
// index.
func TestIndexShares(t *testing.T) {
	estimate := func(chunks, text int64) int64 { return chunks + text }
	e := newQuotaEnv(t, domain.QuotaPolicy{Defaults: limits(map[domain.Quota]int64{domain.QuotaIndexMemoryBytes: 1 << 20}), IndexBytes: estimate})
	assert.EqualValues(t, 1<<20, e.quotas.IndexShare(t.Context(), "acme"))
	over := limits(map[domain.Quota]int64{domain.QuotaIndexMemoryBytes: 4 << 20})
	_, err := e.tenants.Update(t.Context(), platform(), "acme", domain.TenantPatch{Quotas: &over})
	require.NoError(t, err)
	assert.EqualValues(t, 4<<20, e.quotas.IndexShare(t.Context(), "acme"))
	assert.EqualValues(t, 1<<20, e.quotas.IndexShare(t.Context(), "globex"))

	noIndex := access.NewQuotas(domain.QuotaPolicy{Defaults: over}, e.store, e.tenants)
	assert.Zero(t, noIndex.IndexShare(t.Context(), "acme"), "vectors in Qdrant: no share")
}
