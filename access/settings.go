package access

import (
	"context"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/tenantcache"
)

// Settings reads tenants' settings through a cache, since every customer
// message reads them (its thresholds, its hand-off text), and writes them
// through to the store. A write drops the cache here at once; the store
// announces it (domain.ConfigSettings), and every other replica drops its
// copy on receipt. The values are shared: callers must not change them.
type Settings struct {
	store domain.SettingsStore
	cache *tenantcache.Cache[domain.TenantID, domain.TenantSettings]
	inv   domain.Invalidator
}

var _ domain.SettingsStore = (*Settings)(nil)

// NewSettings returns the settings reader. A change made by another
// replica is trusted to arrive; ttl bounds how stale a value is when it
// does not. The cache registers with inv (a registry of its own when nil).
func NewSettings(store domain.SettingsStore, ttl time.Duration, inv *tenantcache.Registry) *Settings {
	if inv == nil {
		inv = tenantcache.NewRegistry()
	}
	return &Settings{store: store, inv: inv, cache: tenantcache.New(tenantcache.Config[domain.TenantID, domain.TenantSettings]{
		Name: "tenant settings", Load: store.GetSettings, TTL: ttl, MaxEntries: maxCachedTenants,
		Invalidations: inv, Kind: domain.ConfigSettings,
	})}
}

// GetSettings implements domain.SettingsStore, from the cache.
func (s *Settings) GetSettings(ctx context.Context, tenant domain.TenantID) (domain.TenantSettings, error) {
	return s.cache.Get(ctx, tenant)
}

// UpdateSettings implements domain.SettingsStore; the change applies in
// this process at once.
func (s *Settings) UpdateSettings(ctx context.Context, in domain.TenantSettings) (domain.TenantSettings, error) {
	out, err := s.store.UpdateSettings(ctx, in)
	if err != nil {
		return out, err
	}
	s.inv.Drop(domain.ConfigSettings, in.TenantID)
	return out, nil
}
