package metadata_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/tenantcache"
	"github.com/cs-assistant/assistant/pipelines/dialogue/metadata"
	"github.com/cs-assistant/assistant/pipelines/dialogue/slots"
	"github.com/cs-assistant/assistant/store/pg"
)

// The cache's mechanics (singleflight, cancellation, bounds, the TTL,
// drops during a load) are tenantcache's and tested there; these tests
// check what this package adds, on the real store: the filtering, the
// writes dropping the cache, and failed loads not kept.

var (
	scopes   = []domain.MetadataScope{domain.ScopeDocument, domain.ScopeChunk, domain.ScopeSlot, domain.ScopeSession}
	roles    = []domain.MetadataRole{domain.RoleFilter, domain.RoleDisplay, domain.RoleRouting}
	statuses = []domain.MetadataFieldStatus{domain.FieldDraft, domain.FieldActive, domain.FieldDeprecated, domain.FieldArchived}
)

// Every filter the store takes answers the same from the cache: the same
// fields in the same order (by scope, then key). The tenant has more
// fields than a page holds, so the cache's load reads several pages.
func TestCacheFiltersAsTheStoreDoes(t *testing.T) {
	t.Parallel()
	store, _ := newStore(t)
	const perScope = 60
	for _, scope := range scopes {
		for i := range perScope {
			// Keys with and without underscores and digits, in no order.
			key := fmt.Sprintf("%c%s%d", 'a'+(i*7)%26, []string{"", "_", "_x", "0"}[i%4], i)
			newField(t, store, acme, scope, key, roles[i%3], statuses[(i/3)%4])
		}
	}
	newField(t, store, other, domain.ScopeDocument, "product", domain.RoleFilter, domain.FieldActive)
	cache := metadata.NewCache(store, time.Hour, nil)

	all, err := cache.MetadataFields(t.Context(), acme, domain.MetadataFieldFilter{AllStatuses: true})
	require.NoError(t, err)
	require.Len(t, all, len(scopes)*perScope, "more than a page (%d)", domain.MaxPageSize)

	var filters []domain.MetadataFieldFilter
	for _, scope := range append([]*domain.MetadataScope{nil}, ptrs(scopes)...) {
		for _, role := range append([]*domain.MetadataRole{nil}, ptrs(roles)...) {
			for _, status := range append([]*domain.MetadataFieldStatus{nil}, ptrs(statuses)...) {
				for _, deprecated := range []bool{false, true} {
					for _, every := range []bool{false, true} {
						filters = append(filters, domain.MetadataFieldFilter{Scope: scope, Role: role, Status: status,
							IncludeDeprecated: deprecated, AllStatuses: every})
					}
				}
			}
		}
	}
	for _, f := range filters {
		want, err := store.MetadataFields(t.Context(), acme, f)
		require.NoError(t, err)
		got, err := cache.MetadataFields(t.Context(), acme, f)
		require.NoError(t, err)
		require.Equal(t, want, got, "%s", describe(f))
	}
}

func ptrs[T any](vs []T) []*T {
	out := make([]*T, len(vs))
	for i := range vs {
		out[i] = &vs[i]
	}
	return out
}

// describe names a filter in a failure message.
func describe(f domain.MetadataFieldFilter) string {
	s := fmt.Sprintf("includeDeprecated=%t allStatuses=%t", f.IncludeDeprecated, f.AllStatuses)
	if f.Scope != nil {
		s += " scope=" + string(*f.Scope)
	}
	if f.Role != nil {
		s += " role=" + string(*f.Role)
	}
	if f.Status != nil {
		s += " status=" + string(*f.Status)
	}
	return s
}

// countedFields is the real store, counting the loads of fields.
type countedFields struct {
	*pg.Store
	loads atomic.Int64
}

func (c *countedFields) MetadataFields(ctx context.Context, tenant domain.TenantID, f domain.MetadataFieldFilter) ([]domain.MetadataField, error) {
	c.loads.Add(1)
	return c.Store.MetadataFields(ctx, tenant, f)
}

// cached is a tenant's fields and slot rules cached as the service wires
// them (an hour's TTL: only drops make them load again), with the
// administration that drops them.
type cached struct {
	svc          *metadata.Service
	fields       *metadata.Cache
	rules        *slots.Cache
	store        *countedFields
	url          string
	hits, misses atomic.Int64
}

func newCached(t *testing.T) *cached {
	t.Helper()
	store, url := newStore(t)
	inv := tenantcache.NewRegistry()
	c := &cached{store: &countedFields{Store: store}, url: url}
	c.fields = metadata.NewCache(c.store, time.Hour, inv)
	c.fields.CountLookups(func(hit bool) {
		if hit {
			c.hits.Add(1)
		} else {
			c.misses.Add(1)
		}
	})
	c.rules = slots.NewCache(store, time.Hour, inv)
	c.svc = metadata.NewService(store, inv)
	return c
}

// filterKeys are the keys of acme's usable filter fields, as the retriever
// reads them.
func (c *cached) filterKeys(t *testing.T) []string {
	t.Helper()
	fields, err := c.fields.MetadataFields(t.Context(), acme, domain.MetadataFieldFilter{
		Role: ptr(domain.RoleFilter), IncludeDeprecated: true})
	require.NoError(t, err)
	keys := []string{}
	for _, f := range fields {
		keys = append(keys, string(f.Scope)+"/"+f.Key)
	}
	return keys
}

func ptr[T any](v T) *T { return &v }

func TestCacheKeepsTheFieldsUntilAWriteDropsThem(t *testing.T) {
	t.Parallel()
	c := newCached(t)
	ctx := t.Context()

	assert.Empty(t, c.filterKeys(t))
	assert.Empty(t, c.filterKeys(t), "having none is kept too")
	assert.EqualValues(t, 1, c.store.loads.Load())
	assert.EqualValues(t, 1, c.hits.Load())
	assert.EqualValues(t, 1, c.misses.Load())

	product := newField(t, c.svc, acme, domain.ScopeDocument, "product", domain.RoleFilter, domain.FieldActive)
	assert.Equal(t, []string{"document/product"}, c.filterKeys(t), "a create drops the tenant's fields")

	product.Role = domain.RoleDisplay
	product, err := c.svc.UpdateMetadataField(ctx, product)
	require.NoError(t, err)
	assert.Empty(t, c.filterKeys(t), "an update drops them")
	product.Role = domain.RoleFilter
	product, err = c.svc.UpdateMetadataField(ctx, product)
	require.NoError(t, err)
	assert.Equal(t, []string{"document/product"}, c.filterKeys(t))

	_, err = c.svc.SetMetadataFieldStatus(ctx, acme, product.ID, domain.FieldDeprecated, 0)
	require.NoError(t, err)
	assert.Equal(t, []string{"document/product"}, c.filterKeys(t), "deprecated fields still filter")
	_, err = c.svc.SetMetadataFieldStatus(ctx, acme, product.ID, domain.FieldArchived, 0)
	require.NoError(t, err)
	assert.Empty(t, c.filterKeys(t), "a status change drops them")
	loads := c.store.loads.Load()

	// Writes that fail change nothing and drop nothing.
	_, err = c.svc.UpdateMetadataField(ctx, product)
	require.Equal(t, domain.CodeVersionConflict, domain.ErrorCodeOf(err))
	_, err = c.svc.SetMetadataFieldStatus(ctx, acme, product.ID, domain.FieldActive, 0)
	require.Equal(t, domain.CodeInvalidTransition, domain.ErrorCodeOf(err))
	require.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(c.svc.DeleteMetadataField(ctx, other, product.ID)))
	c.filterKeys(t)
	assert.Equal(t, loads, c.store.loads.Load())

	// A delete unlinks the slots linked to the field: it drops their rules too.
	region := newField(t, c.svc, acme, domain.ScopeChunk, "region", domain.RoleFilter, domain.FieldActive)
	_, err = c.store.CreateSlotDefinition(ctx, domain.SlotDefinition{ID: domain.NewID(domain.PrefixSlotDefinition),
		TenantID: acme, Key: "region", Type: domain.MetaString, MetadataFieldID: region.ID, Status: domain.SlotActive})
	require.NoError(t, err)
	linked := func() string {
		rules, err := c.rules.SlotRules(ctx, acme)
		require.NoError(t, err)
		d, _ := rules.Get("region")
		return d.MetadataFieldID
	}
	require.Equal(t, region.ID, linked())
	require.Equal(t, []string{"chunk/region"}, c.filterKeys(t))
	require.NoError(t, c.svc.DeleteMetadataField(ctx, acme, region.ID))
	assert.Empty(t, c.filterKeys(t), "a delete drops the fields")
	assert.Empty(t, linked(), "and the slot rules, which it unlinked")

	newField(t, c.svc, acme, domain.ScopeSession, "channel", domain.RoleFilter, domain.FieldActive)
	assert.Equal(t, []string{"session/channel"}, c.filterKeys(t))
	require.NoError(t, c.svc.DeleteMetadataScope(ctx, acme, domain.ScopeSession))
	assert.Empty(t, c.filterKeys(t), "a scope's delete drops them")

	fields, err := c.fields.MetadataFields(ctx, other, domain.MetadataFieldFilter{AllStatuses: true})
	require.NoError(t, err)
	assert.Empty(t, fields, "each tenant has fields of its own")
}

// A failed load is not kept: the next read loads again. The failure is
// the database's own (the table is renamed away for a moment).
func TestCacheKeepsNoFailedLoad(t *testing.T) {
	t.Parallel()
	c := newCached(t)
	newField(t, c.svc, acme, domain.ScopeDocument, "product", domain.RoleFilter, domain.FieldActive)

	exec(t, c.url, "ALTER TABLE metadata_fields RENAME TO metadata_fields_away")
	_, err := c.fields.MetadataFields(t.Context(), acme, domain.MetadataFieldFilter{})
	require.Error(t, err)
	exec(t, c.url, "ALTER TABLE metadata_fields_away RENAME TO metadata_fields")
	assert.Equal(t, []string{"document/product"}, c.filterKeys(t))
	assert.EqualValues(t, 2, c.store.loads.Load())
	assert.EqualValues(t, 2, c.misses.Load())
}
