package metadata_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/tenantcache"
	"github.com/cs-assistant/assistant/pipelines/dialogue/metadata"
	"github.com/cs-assistant/assistant/pipelines/dialogue/slots"
)

// replica is another replica's caches of the tenants' fields and slot
// rules, on a store of its own. Their TTL is an hour, and nothing writes
// through this replica: only the change notifications it listens to, as
// the service's listener does, drop them.
type replica struct {
	fields *metadata.Cache
	rules  *slots.Cache
}

func newReplica(t *testing.T, url string) replica {
	t.Helper()
	store := openStore(t, url)
	inv := tenantcache.NewRegistry()
	r := replica{fields: metadata.NewCache(store, time.Hour, inv), rules: slots.NewCache(store, time.Hour, inv)}
	ctx, cancel := context.WithCancel(context.Background())
	var listening sync.WaitGroup
	listening.Go(func() {
		store.ListenInvalidations(ctx, func(i domain.Invalidation) {
			if i.Tenant != "" {
				inv.Drop(i.Kind, i.Tenant)
			}
		})
	})
	t.Cleanup(func() { cancel(); listening.Wait() })
	// A notification sent before the LISTEN is in place is lost (the TTL
	// covers that gap in production).
	conn, err := pgx.Connect(t.Context(), url)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	require.Eventually(t, func() bool {
		var n int
		err := conn.QueryRow(t.Context(), "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %'").Scan(&n)
		return err == nil && n > 0
	}, 10*time.Second, 5*time.Millisecond, "the replica never listened")
	return r
}

// field is acme's field of scope and key as the replica has it cached. A
// failed read fails the test (asserted, not required, so that it can run
// inside require.Eventually).
func (r replica) field(t *testing.T, scope domain.MetadataScope, key string) (domain.MetadataField, bool) {
	all, err := r.fields.MetadataFields(t.Context(), acme, domain.MetadataFieldFilter{Scope: &scope, AllStatuses: true})
	assert.NoError(t, err)
	for _, f := range all {
		if f.Key == key {
			return f, true
		}
	}
	return domain.MetadataField{}, false
}

// slot is acme's slot definition of key as the replica has it cached,
// read as field is.
func (r replica) slot(t *testing.T, key string) (domain.SlotDefinition, bool) {
	rules, err := r.rules.SlotRules(t.Context(), acme)
	assert.NoError(t, err)
	return rules.Get(key)
}

// Every write of a metadata field or a slot definition, made on one
// replica, drops the other replica's cached copy through its change
// notification: the next read there sees it, long before the TTL.
func TestCachesFollowAnotherReplicasWrites(t *testing.T) {
	t.Parallel()
	writer, url := newStore(t) // one replica's store, writing; it caches nothing
	two := newReplica(t, url)
	ctx := t.Context()
	seen := func(what string, cond func() bool) {
		t.Helper()
		require.Eventually(t, cond, 5*time.Second, 5*time.Millisecond, "the other replica never saw %s", what)
	}
	_, ok := two.field(t, domain.ScopeDocument, "product")
	require.False(t, ok)
	_, ok = two.slot(t, "device")
	require.False(t, ok, "both caches hold the tenant's having none")

	product := newField(t, writer, acme, domain.ScopeDocument, "product", domain.RoleFilter, domain.FieldActive)
	seen("a field created", func() bool {
		_, ok := two.field(t, domain.ScopeDocument, "product")
		return ok
	})
	product.Role = domain.RoleDisplay
	product, err := writer.UpdateMetadataField(ctx, product)
	require.NoError(t, err)
	seen("a field updated", func() bool {
		f, _ := two.field(t, domain.ScopeDocument, "product")
		return f.Role == domain.RoleDisplay
	})
	product, err = writer.SetMetadataFieldStatus(ctx, acme, product.ID, domain.FieldDeprecated, 0)
	require.NoError(t, err)
	seen("a field's status changed", func() bool {
		f, _ := two.field(t, domain.ScopeDocument, "product")
		return f.Status == domain.FieldDeprecated
	})

	device, err := writer.CreateSlotDefinition(ctx, domain.SlotDefinition{ID: domain.NewID(domain.PrefixSlotDefinition),
		TenantID: acme, Key: "device", Type: domain.MetaString, MetadataFieldID: product.ID, Status: domain.SlotActive})
	require.NoError(t, err)
	seen("a slot definition created", func() bool {
		d, _ := two.slot(t, "device")
		return d.MetadataFieldID == product.ID
	})
	device.Status = domain.SlotDeprecated
	device, err = writer.UpdateSlotDefinition(ctx, device)
	require.NoError(t, err)
	seen("a slot definition updated", func() bool {
		d, _ := two.slot(t, "device")
		return d.Status == domain.SlotDeprecated
	})

	require.NoError(t, writer.DeleteMetadataField(ctx, acme, product.ID))
	seen("a field deleted", func() bool {
		_, ok := two.field(t, domain.ScopeDocument, "product")
		return !ok
	})
	seen("the slot the deleted field unlinked", func() bool {
		d, _ := two.slot(t, "device")
		return d.MetadataFieldID == ""
	})
	require.NoError(t, writer.DeleteSlotDefinition(ctx, acme, device.ID))
	seen("a slot definition deleted", func() bool {
		_, ok := two.slot(t, "device")
		return !ok
	})

	channel := newField(t, writer, acme, domain.ScopeSession, "channel", domain.RoleRouting, domain.FieldDraft)
	seen("a session field created", func() bool {
		_, ok := two.field(t, domain.ScopeSession, "channel")
		return ok
	})
	_, err = writer.CreateSlotDefinition(ctx, domain.SlotDefinition{ID: domain.NewID(domain.PrefixSlotDefinition),
		TenantID: acme, Key: "channel", Type: domain.MetaString, MetadataFieldID: channel.ID, Status: domain.SlotActive})
	require.NoError(t, err)
	seen("a second slot definition", func() bool {
		d, _ := two.slot(t, "channel")
		return d.MetadataFieldID == channel.ID
	})
	require.NoError(t, writer.DeleteMetadataScope(ctx, acme, domain.ScopeSession))
	seen("a scope deleted", func() bool {
		_, ok := two.field(t, domain.ScopeSession, "channel")
		return !ok
	})
	seen("the slot the deleted scope unlinked", func() bool {
		d, _ := two.slot(t, "channel")
		return d.MetadataFieldID == ""
	})
}
