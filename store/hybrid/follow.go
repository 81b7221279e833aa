package hybrid

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
)

// Follow applies every replica's index changes to the resident tenants
// until ctx ends (run it in the background). A change that cannot be
// followed (the database failed meanwhile) drops its tenant, which loads
// again on its next use; a new connection of src drops every tenant
// (resync), since changes sent while none listened are lost.
func (x *Index) Follow(ctx context.Context, src ChangeSource) {
	src.ListenIndexChanges(ctx, func(c domain.IndexChange) {
		if err := x.Apply(ctx, c); err != nil {
			x.log.Warn("following a change of the search index failed; the tenant loads again on its next search",
				"tenant", string(c.Tenant), "document", c.DocumentID, "err", err)
			x.forget(c.Tenant)
		}
	}, x.resync)
}

// Apply brings a resident tenant in step with change c, made by any
// replica: a deleted document or knowledge base goes from both sides, a
// changed document is read again from the database. A tenant being loaded
// gets c when its load is done; one not resident ignores it (it will load
// fresh).
func (x *Index) Apply(ctx context.Context, c domain.IndexChange) error {
	return x.write(c.Tenant, []domain.IndexChange{c}, func(t *entry) error {
		return x.apply(ctx, t.vectors, t.words, c)
	})
}
