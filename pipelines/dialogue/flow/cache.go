package flow

import (
	"context"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/tenantcache"
)

// Cache keeps the tenants' compiled flows (a tenantcache.Cache), one per
// flow: loaded and compiled on a miss, kept for a TTL, and dropped through
// the registry under domain.ConfigScriptFlows after every write, here and
// on the other replicas. It is the dialogue's view of the flows
// (turn.Flows): each flow's regexes are compiled once, not per answer.
type Cache struct {
	c *tenantcache.Cache[flowKey, *Compiled]
}

// flowKey is one flow of one tenant.
type flowKey struct {
	tenant domain.TenantID
	id     string
}

// FlowReader reads a stored flow: a domain.ScriptFlowStore.
type FlowReader interface {
	// GetScriptFlow returns CodeNotFound if the flow does not exist in the
	// tenant.
	GetScriptFlow(ctx context.Context, tenant domain.TenantID, id string) (domain.ScriptFlow, error)
}

// NewCache returns a cache over store keeping compiled flows for ttl
// (tenantcache.DefaultTTL when ttl <= 0), registered with inv (when not
// nil). A flow that does not exist is not kept: it is looked up again on
// the next call, as it was before flows were cached.
func NewCache(store FlowReader, ttl time.Duration, inv *tenantcache.Registry) *Cache {
	return &Cache{c: tenantcache.New(tenantcache.Config[flowKey, *Compiled]{
		Name: "script flows", TTL: ttl, Invalidations: inv, Kind: domain.ConfigScriptFlows,
		Tenant: func(k flowKey) domain.TenantID { return k.tenant },
		Load: func(ctx context.Context, k flowKey) (*Compiled, error) {
			f, err := store.GetScriptFlow(ctx, k.tenant, k.id)
			if err != nil {
				return nil, err
			}
			c, err := Compile(f)
			if err != nil {
				// Flows are validated on write: this is bad stored data,
				// not the client's fault.
				return nil, &domain.Error{Code: domain.CodeInternal, Message: "internal error", Err: err}
			}
			return c, nil
		},
	})}
}

// Flow returns the tenant's flow id compiled, and whether it is enabled.
// An unknown flow is CodeNotFound.
func (c *Cache) Flow(ctx context.Context, tenant domain.TenantID, id string) (*Compiled, bool, error) {
	f, err := c.c.Get(ctx, flowKey{tenant, id})
	if err != nil {
		return nil, false, err
	}
	return f, f.flow.Enabled, nil
}
