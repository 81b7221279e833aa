package ingest

import (
	"context"
	"crypto/sha256"
	"errors"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/ingest/parse"
)

// Service takes uploads and removes documents, keeping the database and
// the vector index in step.
type Service struct {
	docs     domain.DocumentStore
	kbs      domain.KnowledgeBaseStore
	metadata domain.MetadataStore
	vectors  domain.VectorStore
	// wake tells local workers a job is waiting (others hear LISTEN/NOTIFY).
	wake func()
	// proposer, when set, proposes metadata for uploads that ask (Propose).
	proposer Proposer
}

// NewService returns the ingestion service.
func NewService(docs domain.DocumentStore, kbs domain.KnowledgeBaseStore, metadata domain.MetadataStore, vectors domain.VectorStore, wake func()) *Service {
	return &Service{docs: docs, kbs: kbs, metadata: metadata, vectors: vectors, wake: wake}
}

// Upload is one uploaded file.
type Upload struct {
	Tenant   domain.TenantID
	KBID     string
	FileName string
	Content  []byte
	Metadata map[string]any
	// ProposeMetadata asks for metadata proposals (Service.Propose).
	ProposeMetadata bool
}

// Upload validates and stores an upload with a queued index job. Returns
// CodeUnsupportedMediaType when the content is not a supported kind or
// contradicts the name, CodeMetadataInvalid for metadata that does not fit
// the tenant's document fields, CodeNotFound for an unknown knowledge
// base. Warnings name deprecated metadata fields that were accepted.
func (s *Service) Upload(ctx context.Context, u Upload) (domain.Document, domain.IndexJob, []string, error) {
	name, err := CleanFileName(u.FileName)
	if err != nil {
		return domain.Document{}, domain.IndexJob{}, nil, err
	}
	kind, err := detectKind(u.Content, name)
	if err != nil {
		return domain.Document{}, domain.IndexJob{}, nil, err
	}
	fields, err := domain.AllMetadataFields(ctx, s.metadata, u.Tenant, domain.MetadataFieldFilter{
		Scope: ptr(domain.ScopeDocument), IncludeDeprecated: true,
	})
	if err != nil {
		return domain.Document{}, domain.IndexJob{}, nil, err
	}
	meta, warnings, err := domain.ValidateMetadata(fields, u.Metadata)
	if err != nil {
		return domain.Document{}, domain.IndexJob{}, nil, err
	}
	sum := sha256.Sum256(u.Content)
	doc, job, err := s.docs.CreateDocument(ctx, domain.NewDocument{
		Document: domain.Document{
			ID: domain.NewID(domain.PrefixDocument), TenantID: u.Tenant, KBID: u.KBID, Name: name, Kind: string(kind),
			SizeBytes: int64(len(u.Content)), SHA256: sum[:], Metadata: meta,
		},
		Content: u.Content,
		JobID:   domain.NewID(domain.PrefixIndexJob),
	})
	if err != nil {
		return domain.Document{}, domain.IndexJob{}, nil, err
	}
	s.wake()
	return doc, job, warnings, nil
}

// detectKind takes the kind from the content, checked against the name.
// Content too broken to tell (empty, an unreadable zip) takes the name's
// kind, so the job fails with the parser's reason where users can see it.
func detectKind(content []byte, name string) (parse.Kind, error) {
	kind, err := parse.Detect(newBytesSource(content), name)
	if err == nil {
		return kind, nil
	}
	var pe *parse.Error
	if errors.As(err, &pe) && (pe.Reason == parse.ReasonEmptyFile || pe.Reason == parse.ReasonCorrupt) {
		if k, ok := kindFromName(name); ok {
			return k, nil
		}
	}
	msg := "The file's kind is not supported."
	if pe != nil {
		msg = pe.Detail
	}
	return "", &domain.Error{Code: domain.CodeUnsupportedMediaType, Message: msg, Err: err}
}

// Reindex queues a new index job for a stored document.
func (s *Service) Reindex(ctx context.Context, tenant domain.TenantID, documentID string) (domain.Document, domain.IndexJob, error) {
	doc, job, err := s.docs.ReindexDocument(ctx, tenant, documentID, domain.NewID(domain.PrefixIndexJob))
	if err != nil {
		return domain.Document{}, domain.IndexJob{}, err
	}
	s.wake()
	return doc, job, nil
}

// Reindexed is the outcome of ReindexAll.
type Reindexed struct {
	// Jobs are the new jobs, in the order the documents were listed.
	Jobs []domain.IndexJob
	// Documents[i] is the document of Jobs[i], as it was queued.
	Documents []domain.Document
	// AlreadyQueued counts documents that had a queued or running job.
	AlreadyQueued int
}

// ReindexScope says which of a tenant's documents ReindexAll queues.
type ReindexScope struct {
	// KBID, when not "", keeps to that knowledge base.
	KBID string
	// StaleOnly keeps to the documents left stale by an embedding model
	// change (domain.DocStale).
	StaleOnly bool
}

// ReindexAll queues a new index job for every document of the tenant in
// scope, skipping documents whose job is already queued or running: the
// one implementation behind POST /admin/kb/reindex and `assistant
// reindex`. Returns CodeNotFound for an unknown knowledge base.
func (s *Service) ReindexAll(ctx context.Context, tenant domain.TenantID, scope ReindexScope) (Reindexed, error) {
	var f domain.DocumentFilter
	if scope.KBID != "" {
		if _, err := s.kbs.GetKnowledgeBase(ctx, tenant, scope.KBID); err != nil {
			return Reindexed{}, err
		}
		f.KBID = &scope.KBID
	}
	if scope.StaleOnly {
		f.Status = ptr(domain.DocStale)
	}
	var out Reindexed
	// Pages follow the id (keyset), so documents leaving the stale filter
	// as they are queued do not shift the next page.
	page := domain.PageRequest{Limit: domain.MaxPageSize}
	for {
		docs, err := s.docs.ListDocuments(ctx, tenant, f, page)
		if err != nil {
			return out, err
		}
		for _, d := range docs.Items {
			doc, job, err := s.docs.ReindexDocument(ctx, tenant, d.ID, domain.NewID(domain.PrefixIndexJob))
			switch {
			case domain.ErrorCodeOf(err) == domain.CodeJobActive:
				out.AlreadyQueued++
			case domain.ErrorCodeOf(err) == domain.CodeNotFound:
				// Deleted since it was listed: nothing to index.
			case err != nil:
				return out, err
			default:
				out.Jobs = append(out.Jobs, job)
				out.Documents = append(out.Documents, doc)
			}
		}
		next, ok := docs.NextPage(page.Limit)
		if !ok {
			break
		}
		page = next
	}
	if len(out.Jobs) > 0 {
		s.wake()
	}
	return out, nil
}

// DeleteDocument deletes a document and everything indexed from it.
func (s *Service) DeleteDocument(ctx context.Context, tenant domain.TenantID, id string) error {
	if err := s.docs.DeleteDocument(ctx, tenant, id); err != nil {
		return err
	}
	return s.vectors.DeleteDocument(ctx, tenant, id)
}

// DeleteKnowledgeBase deletes a knowledge base, its documents and
// everything indexed from them.
func (s *Service) DeleteKnowledgeBase(ctx context.Context, tenant domain.TenantID, id string) error {
	if err := s.kbs.DeleteKnowledgeBase(ctx, tenant, id); err != nil {
		return err
	}
	return s.vectors.DeleteKnowledgeBase(ctx, tenant, id)
}

func ptr[T any](v T) *T { return &v }
