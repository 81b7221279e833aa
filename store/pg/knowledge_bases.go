package pg

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

const kbNotFound = "Knowledge base not found."

// CreateKnowledgeBase implements domain.KnowledgeBaseStore.
func (s *Store) CreateKnowledgeBase(ctx context.Context, kb domain.KnowledgeBase) (domain.KnowledgeBase, error) {
	var row db.KnowledgeBase
	err := s.inTx(ctx, func(q *db.Queries) error {
		err := s.withinQuotas(ctx, q, kb.TenantID, lockKnowledgeBases, "", adding(domain.QuotaKnowledgeBases, 1))
		if err != nil {
			return err
		}
		row, err = q.CreateKnowledgeBase(ctx, db.CreateKnowledgeBaseParams{
			ID: kb.ID, TenantID: string(kb.TenantID), Name: kb.Name, Description: kb.Description, QuestionGeneration: kb.QuestionGeneration,
		})
		return err
	})
	if err != nil {
		return domain.KnowledgeBase{}, kbNameConflict(mapError(err, kbNotFound))
	}
	return domain.KnowledgeBase{
		ID: row.ID, TenantID: domain.TenantID(row.TenantID), Name: row.Name, Description: row.Description,
		QuestionGeneration: row.QuestionGeneration, Version: row.Version, CreatedAt: row.CreatedAt.UTC(), UpdatedAt: row.UpdatedAt.UTC(),
	}, nil
}

// GetKnowledgeBase implements domain.KnowledgeBaseStore.
func (s *Store) GetKnowledgeBase(ctx context.Context, tenant domain.TenantID, id string) (domain.KnowledgeBase, error) {
	row, err := s.q.GetKnowledgeBase(ctx, db.GetKnowledgeBaseParams{TenantID: string(tenant), ID: id})
	if err != nil {
		return domain.KnowledgeBase{}, mapError(err, kbNotFound)
	}
	return knowledgeBaseFromRow(db.ListKnowledgeBasesRow(row)), nil
}

// ListKnowledgeBases implements domain.KnowledgeBaseStore.
func (s *Store) ListKnowledgeBases(ctx context.Context, tenant domain.TenantID, p domain.PageRequest) (domain.Page[domain.KnowledgeBase], error) {
	rows, err := s.q.ListKnowledgeBases(ctx, db.ListKnowledgeBasesParams{
		TenantID: string(tenant), Before: p.After, Lim: int32(p.Limit + 1),
	})
	if err != nil {
		return domain.Page[domain.KnowledgeBase]{}, mapError(err, "")
	}
	items := make([]domain.KnowledgeBase, len(rows))
	for i, r := range rows {
		items[i] = knowledgeBaseFromRow(r)
	}
	return domain.PageOf(items, p, func(kb domain.KnowledgeBase) string { return kb.ID }), nil
}

// UpdateKnowledgeBase implements domain.KnowledgeBaseStore.
func (s *Store) UpdateKnowledgeBase(ctx context.Context, kb domain.KnowledgeBase) (domain.KnowledgeBase, error) {
	var out domain.KnowledgeBase
	err := s.inTx(ctx, func(q *db.Queries) error {
		_, err := q.UpdateKnowledgeBase(ctx, db.UpdateKnowledgeBaseParams{
			TenantID: string(kb.TenantID), ID: kb.ID, Name: kb.Name, Description: kb.Description,
			QuestionGeneration: kb.QuestionGeneration, Version: kb.Version,
		})
		if err != nil {
			if domain.ErrorCodeOf(mapError(err, "")) != domain.CodeNotFound {
				return err
			}
			exists, exErr := q.KnowledgeBaseExists(ctx, db.KnowledgeBaseExistsParams{TenantID: string(kb.TenantID), ID: kb.ID})
			if exErr != nil {
				return exErr
			}
			if !exists {
				return domain.Errorf(domain.CodeNotFound, kbNotFound)
			}
			return staleVersion()
		}
		row, err := q.GetKnowledgeBase(ctx, db.GetKnowledgeBaseParams{TenantID: string(kb.TenantID), ID: kb.ID})
		out = knowledgeBaseFromRow(db.ListKnowledgeBasesRow(row))
		return err
	})
	if err != nil {
		return domain.KnowledgeBase{}, kbNameConflict(mapError(err, kbNotFound))
	}
	return out, nil
}

// DeleteKnowledgeBase implements domain.KnowledgeBaseStore. Its documents go
// with it (ON DELETE CASCADE), and every replica's index forgets them
// (notifyIndex).
func (s *Store) DeleteKnowledgeBase(ctx context.Context, tenant domain.TenantID, id string) error {
	return mapError(s.inTx(ctx, func(q *db.Queries) error {
		n, err := q.DeleteKnowledgeBase(ctx, db.DeleteKnowledgeBaseParams{TenantID: string(tenant), ID: id})
		if err != nil {
			return err
		}
		if n == 0 {
			return domain.Errorf(domain.CodeNotFound, kbNotFound)
		}
		return notifyIndex(ctx, q, domain.IndexChange{Tenant: tenant, KBID: id, Deleted: true})
	}), kbNotFound)
}

// kbNameConflict gives the one unique rule of knowledge bases a precise message.
func kbNameConflict(err error) error {
	if domain.ErrorCodeOf(err) == domain.CodeConflict {
		return &domain.Error{
			Code: domain.CodeConflict, Message: "A knowledge base with this name already exists in the tenant.",
			Fields: []domain.FieldError{{Field: "/name", Message: "already taken"}}, Err: err,
		}
	}
	return err
}

func knowledgeBaseFromRow(r db.ListKnowledgeBasesRow) domain.KnowledgeBase {
	return domain.KnowledgeBase{
		ID: r.ID, TenantID: domain.TenantID(r.TenantID), Name: r.Name, Description: r.Description,
		QuestionGeneration: r.QuestionGeneration, DocumentCount: r.DocumentCount, Version: r.Version,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}
}
