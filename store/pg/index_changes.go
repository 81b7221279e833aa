package pg

import (
	"context"
	"encoding/json"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

// indexChannel carries the changes of searchable chunks to every replica
// (named for the vectors it first carried).
const indexChannel = "assistant_vectors"

// indexChangePayload is a domain.IndexChange on the wire.
type indexChangePayload struct {
	Tenant     domain.TenantID `json:"t"`
	DocumentID string          `json:"d,omitempty"`
	KBID       string          `json:"k,omitempty"`
	Deleted    bool            `json:"x,omitempty"`
}

// notifyIndex announces c to every replica when the transaction of q
// commits (and never if it rolls back). Every write of chunks, vectors,
// documents and knowledge bases calls it, so that the in-memory indexes
// follow whatever wrote: the index workers, an upload, a delete.
func notifyIndex(ctx context.Context, q *db.Queries, c domain.IndexChange) error {
	payload, err := json.Marshal(indexChangePayload(c))
	if err != nil {
		return err
	}
	return q.NotifyVectors(ctx, string(payload))
}

// AnnounceIndexChange announces c to every replica, this one included, at
// once rather than with a transaction's commit: for a change the database
// does not hold. Qdrant keeps the chunks' words and vectors itself, and
// has a change only after the database announced it; qdrant.Announced
// announces it again once Qdrant has it.
func (s *Store) AnnounceIndexChange(ctx context.Context, c domain.IndexChange) error {
	return mapError(notifyIndex(ctx, s.q, c), "")
}

// ListenIndexChanges calls fn for every change of searchable chunks, this
// process's own included, in commit order, until ctx ends (one dedicated
// connection, reconnecting as needed). Changes sent while no connection
// listened are lost, deletions included: resync runs once each
// connection's LISTEN is in place (the first one's too), before any
// change it carries, and must forget whatever the caller loaded before.
func (s *Store) ListenIndexChanges(ctx context.Context, fn func(domain.IndexChange), resync func()) {
	s.listen(ctx, indexChannel, func(payload string) {
		var c indexChangePayload
		if json.Unmarshal([]byte(payload), &c) == nil && c.Tenant != "" {
			fn(domain.IndexChange(c))
		}
	}, func(context.Context, time.Time) error {
		resync()
		return nil
	})
}
