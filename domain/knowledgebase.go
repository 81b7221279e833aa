package domain

import (
	"context"
	"time"
)

// KnowledgeBase groups a tenant's documents for retrieval.
type KnowledgeBase struct {
	ID          string
	TenantID    TenantID
	Name        string
	Description string
	// QuestionGeneration: indexing writes likely customer questions for
	// each passage with the tenant's kb_processing model (see
	// ingest.Questioner).
	QuestionGeneration bool
	DocumentCount      int32
	Version            int32
	CreatedAt          time.Time
	UpdatedAt          time.Time
}

// KnowledgeBaseStore persists knowledge bases. Every method is scoped to one
// tenant: a knowledge base of another tenant is CodeNotFound, exactly like
// one that does not exist, so ids do not leak across tenants.
type KnowledgeBaseStore interface {
	// CreateKnowledgeBase returns CodeConflict if the name is taken in the
	// tenant, and CodeQuotaExceeded at the tenant's knowledge base quota.
	CreateKnowledgeBase(ctx context.Context, kb KnowledgeBase) (KnowledgeBase, error)
	// GetKnowledgeBase returns CodeNotFound if it does not exist in the tenant.
	GetKnowledgeBase(ctx context.Context, tenant TenantID, id string) (KnowledgeBase, error)
	// ListKnowledgeBases lists the tenant's knowledge bases newest first.
	ListKnowledgeBases(ctx context.Context, tenant TenantID, p PageRequest) (Page[KnowledgeBase], error)
	// UpdateKnowledgeBase replaces name, description and question
	// generation if kb.Version is
	// current. Returns CodeNotFound, CodeVersionConflict or CodeConflict.
	UpdateKnowledgeBase(ctx context.Context, kb KnowledgeBase) (KnowledgeBase, error)
	// DeleteKnowledgeBase deletes it and its documents. Returns CodeNotFound
	// if it does not exist in the tenant.
	DeleteKnowledgeBase(ctx context.Context, tenant TenantID, id string) error
}
