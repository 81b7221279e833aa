package guard

import (
	"context"
	"fmt"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/tenantcache"
)

// LoadFunc reads a tenant's whole guardrail configuration.
type LoadFunc func(ctx context.Context, tenant domain.TenantID) (domain.GuardConfig, error)

// Guards hands out each tenant's compiled Guard (a tenantcache.Cache): a
// miss loads and compiles the tenant's configuration, concurrent misses
// sharing one load, and the Guard is kept for a TTL; a write drops it
// through the registry (domain.ConfigGuardrails). A check in flight keeps
// the Guard it started with. Safe for concurrent use.
type Guards struct {
	c *tenantcache.Cache[domain.TenantID, *Guard]
}

// NewGuards returns a cache that loads configurations with load, keeps
// each compiled Guard for ttl (tenantcache.DefaultTTL when ttl <= 0) and
// registers with inv (when not nil).
func NewGuards(load LoadFunc, ttl time.Duration, inv *tenantcache.Registry) *Guards {
	return &Guards{c: tenantcache.New(tenantcache.Config[domain.TenantID, *Guard]{
		Name: "guardrails", TTL: ttl, Invalidations: inv, Kind: domain.ConfigGuardrails,
		Load: func(ctx context.Context, tenant domain.TenantID) (*Guard, error) {
			cfg, err := load(ctx, tenant)
			if err != nil {
				return nil, err
			}
			c := ConfigFrom(cfg, false)
			c.Stored = true
			g, err := Compile(c)
			if err != nil {
				return nil, &domain.Error{Code: domain.CodeInternal, Message: "internal error",
					Err: fmt.Errorf("the stored guardrails of %s do not compile: %w", tenant, err)}
			}
			return g, nil
		},
	})}
}

// For returns the tenant's compiled Guard: its enabled behaviour rules,
// forbidden words, settings and the built-in high-risk lists (unless the
// tenant skips them). A caller whose ctx ends stops waiting with ctx's
// error; the load goes on for the others. A configuration that no longer
// compiles (it was valid when written) is a CodeInternal error.
func (c *Guards) For(ctx context.Context, tenant domain.TenantID) (*Guard, error) {
	return c.c.Get(ctx, tenant)
}
