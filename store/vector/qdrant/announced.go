package qdrant

import (
	"context"
	"slices"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// Announcer tells every replica, this one included, that searchable
// chunks of a tenant changed (*pg.Store).
type Announcer interface {
	AnnounceIndexChange(ctx context.Context, c domain.IndexChange) error
}

// Announced is the auto-indexed store whose writes are announced to every
// replica once Qdrant holds them. The database announces each change of
// chunks and documents as it commits, which is before Qdrant has it: an
// index job stores the chunks, embeds them, and only then upserts the
// points; a delete removes the rows, then the points. What keeps state
// read from Qdrant (TermStatsCache's counts) drops it on this second
// announcement too, after which Qdrant answers with the change.
type Announced struct {
	*AutoIndexed
	to Announcer
}

var _ domain.VectorStore = (*Announced)(nil)

// announceTimeout bounds the announcements of one write.
const announceTimeout = 5 * time.Second

// NewAnnounced wraps s, announcing its writes through to.
func NewAnnounced(s *AutoIndexed, to Announcer) *Announced {
	return &Announced{AutoIndexed: s, to: to}
}

// Upsert implements domain.VectorStore, then announces a change of each
// document the records belong to.
func (a *Announced) Upsert(ctx context.Context, tenant domain.TenantID, recs []domain.VectorRecord) error {
	err := a.AutoIndexed.Upsert(ctx, tenant, recs)
	docs := make([]string, 0, 1)
	for _, r := range recs {
		docs = append(docs, r.DocumentID)
	}
	slices.Sort(docs)
	changes := make([]domain.IndexChange, 0, 1)
	for _, doc := range slices.Compact(docs) {
		changes = append(changes, domain.IndexChange{Tenant: tenant, DocumentID: doc})
	}
	return a.announce(ctx, err, changes...)
}

// DeleteDocument implements domain.VectorStore, then announces it.
func (a *Announced) DeleteDocument(ctx context.Context, tenant domain.TenantID, documentID string) error {
	err := a.AutoIndexed.DeleteDocument(ctx, tenant, documentID)
	return a.announce(ctx, err, domain.IndexChange{Tenant: tenant, DocumentID: documentID, Deleted: true})
}

// DeleteKnowledgeBase implements domain.VectorStore, then announces it.
func (a *Announced) DeleteKnowledgeBase(ctx context.Context, tenant domain.TenantID, kbID string) error {
	err := a.AutoIndexed.DeleteKnowledgeBase(ctx, tenant, kbID)
	return a.announce(ctx, err, domain.IndexChange{Tenant: tenant, KBID: kbID, Deleted: true})
}

// announce announces the changes of a write that returned err: a write
// that failed part way may have changed points too, so only one refused
// whole (CodeValidation: nothing was written) is not announced. The
// write's error comes first, then the announcement's.
//
// It announces even when the write's context has ended (a write cancelled
// part way may have changed points), within announceTimeout.
func (a *Announced) announce(ctx context.Context, err error, changes ...domain.IndexChange) error {
	if domain.ErrorCodeOf(err) == domain.CodeValidation {
		return err
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), announceTimeout)
	defer cancel()
	for _, c := range changes {
		if aerr := a.to.AnnounceIndexChange(ctx, c); err == nil {
			err = aerr
		}
	}
	return err
}
