package pg

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

const jobNotFound = "Index job not found."

// jobChannel is the LISTEN/NOTIFY channel that wakes idle workers.
const jobChannel = "assistant_index_jobs"

func notifyJob(ctx context.Context, q *db.Queries) error { return q.NotifyIndexJob(ctx) }

// GetIndexJob implements domain.JobStore.
func (s *Store) GetIndexJob(ctx context.Context, tenant domain.TenantID, id string) (domain.IndexJob, error) {
	row, err := s.q.GetIndexJob(ctx, db.GetIndexJobParams{TenantID: string(tenant), ID: id})
	if err != nil {
		return domain.IndexJob{}, mapError(err, jobNotFound)
	}
	return jobFromRow(row), nil
}

// ListIndexJobs implements domain.JobStore.
func (s *Store) ListIndexJobs(ctx context.Context, tenant domain.TenantID, f domain.JobFilter, p domain.PageRequest) (domain.Page[domain.IndexJob], error) {
	rows, err := s.q.ListIndexJobs(ctx, db.ListIndexJobsParams{
		TenantID: string(tenant), State: (*string)(f.State), DocumentID: f.DocumentID, Before: p.After, Lim: int32(p.Limit + 1),
	})
	if err != nil {
		return domain.Page[domain.IndexJob]{}, mapError(err, "")
	}
	items := make([]domain.IndexJob, len(rows))
	for i, r := range rows {
		items[i] = jobFromRow(r)
	}
	return domain.PageOf(items, p, func(j domain.IndexJob) string { return j.ID }), nil
}

// IndexJobsByIDs implements domain.JobStore.
func (s *Store) IndexJobsByIDs(ctx context.Context, tenant domain.TenantID, ids []string) ([]domain.IndexJob, error) {
	rows, err := s.q.IndexJobsByIDs(ctx, db.IndexJobsByIDsParams{TenantID: string(tenant), Ids: ids})
	if err != nil {
		return nil, mapError(err, "")
	}
	jobs := make([]domain.IndexJob, len(rows))
	for i, r := range rows {
		jobs[i] = jobFromRow(r)
	}
	return jobs, nil
}

// Bounds of a claim.
const (
	// claimCandidates bounds the tenants one claim tries, in turn order:
	// more than the workers that may claim at once.
	claimCandidates = 64
	// claimRounds bounds the transactions of one claim: a round that
	// passed over tenants other claims held, and found nothing, is tried
	// again once those claims are done.
	claimRounds = 3
)

// ClaimJob implements domain.JobStore. A round (one transaction) lists the
// tenants to serve, in turn order, and takes the first job it can: it
// waits for the first tenant's lock (holding none, it cannot deadlock)
// and passes over the later tenants another claim holds. A tenant at its
// cap, or whose jobs were taken meanwhile, yields nothing, and the next
// one is tried.
func (s *Store) ClaimJob(ctx context.Context, c domain.JobClaim) (domain.IndexJob, bool, error) {
	for range claimRounds {
		job, found, busy, err := s.claimRound(ctx, c)
		if err != nil {
			return domain.IndexJob{}, false, mapError(err, "")
		}
		if found || !busy {
			return job, found, nil
		}
	}
	return domain.IndexJob{}, false, nil
}

// claimRound is one round of ClaimJob; busy says it passed over a tenant
// that another claim held.
func (s *Store) claimRound(ctx context.Context, c domain.JobClaim) (job domain.IndexJob, found, busy bool, err error) {
	err = s.inTx(ctx, func(q *db.Queries) error {
		tenants, err := q.IndexJobTenantsToServe(ctx, db.IndexJobTenantsToServeParams{PerTenant: int32(c.PerTenant), Lim: claimCandidates})
		if err != nil {
			return err
		}
		for i, tenant := range tenants {
			if i == 0 {
				err = q.LockIndexJobTenant(ctx, tenant)
			} else {
				var locked bool
				if locked, err = q.TryLockIndexJobTenant(ctx, tenant); err == nil && !locked {
					busy = true
					continue
				}
			}
			if err != nil {
				return err
			}
			row, err := q.ClaimTenantIndexJob(ctx, db.ClaimTenantIndexJobParams{
				TenantID: tenant, Owner: &c.Owner, LeaseSeconds: c.Lease.Seconds(), PerTenant: int32(c.PerTenant),
			})
			if errors.Is(err, pgx.ErrNoRows) {
				continue
			}
			if err != nil {
				return err
			}
			job, found = jobFromRow(db.IndexJob(row)), true
			return nil
		}
		return nil
	})
	return job, found, busy, err
}

// RenewLeases implements domain.JobStore.
func (s *Store) RenewLeases(ctx context.Context, owner string, ids []string, lease time.Duration) error {
	return mapError(s.q.RenewIndexJobLeases(ctx, db.RenewIndexJobLeasesParams{Owner: &owner, Ids: ids, LeaseSeconds: lease.Seconds()}), "")
}

// JobStage implements domain.JobStore.
func (s *Store) JobStage(ctx context.Context, owner, id string, state domain.JobState, done, total int32) error {
	n, err := s.q.SetIndexJobStage(ctx, db.SetIndexJobStageParams{ID: id, Owner: &owner, State: string(state), Done: done, Total: total})
	return leaseResult(n, err)
}

// LoadJobInput implements domain.JobStore; the document goes to indexing.
func (s *Store) LoadJobInput(ctx context.Context, job domain.IndexJob) (domain.Document, []byte, error) {
	var doc db.Document
	var content []byte
	err := s.inTx(ctx, func(q *db.Queries) error {
		var err error
		if doc, err = q.GetDocument(ctx, db.GetDocumentParams{TenantID: string(job.TenantID), ID: job.DocumentID}); err != nil {
			return err
		}
		if content, err = q.GetDocumentFile(ctx, db.GetDocumentFileParams{TenantID: string(job.TenantID), DocumentID: job.DocumentID}); err != nil {
			return err
		}
		return q.SetDocumentStatus(ctx, db.SetDocumentStatusParams{TenantID: string(job.TenantID), ID: job.DocumentID, Status: string(domain.DocIndexing)})
	})
	if err != nil {
		return domain.Document{}, nil, mapError(err, docNotFound)
	}
	d, err := documentFromRow(doc)
	return d, content, err
}

// ReplaceChunks implements domain.JobStore: the old chunks and passages
// (and, through the cascade, their vectors) go and the new ones come in one
// transaction, so a re-run never duplicates and a reader never sees half a
// document.
func (s *Store) ReplaceChunks(ctx context.Context, owner string, job domain.IndexJob, chunks []domain.Chunk, passages []domain.Passage) error {
	rows := make([]db.InsertChunksParams, len(chunks))
	var textBytes int64
	for i, c := range chunks {
		textBytes += int64(len(c.SearchText()))
		meta, err := json.Marshal(c.Metadata)
		if err != nil {
			return err
		}
		rows[i] = db.InsertChunksParams{
			ID: c.ID, TenantID: string(job.TenantID), KbID: job.KBID, DocumentID: job.DocumentID, Idx: c.Index,
			Text: c.Text, Tokens: c.Tokens, Page: c.Page, Sheet: c.Sheet, Heading: c.Heading,
			LineStart: c.LineStart, LineEnd: c.LineEnd, Metadata: meta, ParentIdx: c.ParentIndex, HeadingPath: nonNil(c.HeadingPath),
			Kind: string(chunkKind(c.Kind)),
		}
	}
	prows := make([]db.InsertPassagesParams, len(passages))
	for i, p := range passages {
		prows[i] = db.InsertPassagesParams{TenantID: string(job.TenantID), DocumentID: job.DocumentID, Idx: p.Index, Text: p.Text, Tokens: p.Tokens}
	}
	err := s.inTx(ctx, func(q *db.Queries) error {
		// The document's row first, then its job's, as deleting the
		// document (or its knowledge base) takes them through the cascade:
		// taken the other way round, a delete meanwhile deadlocks with this
		// write (its chunks' foreign key and its holdings need the row).
		_, err := q.LockDocument(ctx, db.LockDocumentParams{TenantID: string(job.TenantID), ID: job.DocumentID})
		if errors.Is(err, pgx.ErrNoRows) {
			return domain.ErrLeaseLost // the document was deleted meanwhile
		}
		if err != nil {
			return err
		}
		n, err := q.SetIndexJobStage(ctx, db.SetIndexJobStageParams{ID: job.ID, Owner: &owner, State: string(domain.JobChunking), Done: 0, Total: int32(len(chunks))})
		if err := leaseResult(n, err); err != nil {
			return err
		}
		// Checked before the old chunks go: a document refused by a quota
		// keeps what an earlier indexing stored.
		add := adding(domain.QuotaChunks, int64(len(chunks)))
		add.ChunkTextBytes = textBytes
		if err := s.withinQuotas(ctx, q, job.TenantID, lockChunks, job.DocumentID, add); err != nil {
			return err
		}
		if err := q.DeleteDocumentChunks(ctx, db.DeleteDocumentChunksParams{TenantID: string(job.TenantID), DocumentID: job.DocumentID}); err != nil {
			return err
		}
		if err := q.DeleteDocumentPassages(ctx, db.DeleteDocumentPassagesParams{TenantID: string(job.TenantID), DocumentID: job.DocumentID}); err != nil {
			return err
		}
		if _, err := q.InsertPassages(ctx, prows); err != nil {
			return err
		}
		if _, err := q.InsertChunks(ctx, rows); err != nil {
			return err
		}
		if err := q.SetDocumentHoldings(ctx, db.SetDocumentHoldingsParams{TenantID: string(job.TenantID), ID: job.DocumentID,
			StoredChunks: int32(len(chunks)), ChunkTextBytes: textBytes}); err != nil {
			return err
		}
		// The old chunks' vectors went with them: every replica's index
		// reads the document again (new words, no vectors until saved).
		return notifyIndex(ctx, q, domain.IndexChange{Tenant: job.TenantID, DocumentID: job.DocumentID})
	})
	if errors.Is(err, domain.ErrLeaseLost) {
		return err
	}
	return mapError(err, docNotFound)
}

// SucceedJob implements domain.JobStore.
func (s *Store) SucceedJob(ctx context.Context, owner string, job domain.IndexJob, chunks int32, model string) error {
	return s.finish(ctx, owner, job, domain.JobSucceeded, nil, nil, func(q *db.Queries) error {
		return q.SetDocumentReady(ctx, db.SetDocumentReadyParams{TenantID: string(job.TenantID), ID: job.DocumentID, ChunkCount: chunks, EmbeddingModel: &model})
	})
}

// FailJob implements domain.JobStore.
func (s *Store) FailJob(ctx context.Context, owner string, job domain.IndexJob, reason, detail string) error {
	return s.finish(ctx, owner, job, domain.JobFailed, &reason, &detail, func(q *db.Queries) error {
		return q.SetDocumentStatus(ctx, db.SetDocumentStatusParams{TenantID: string(job.TenantID), ID: job.DocumentID, Status: string(domain.DocFailed)})
	})
}

func (s *Store) finish(ctx context.Context, owner string, job domain.IndexJob, state domain.JobState, reason, detail *string, document func(*db.Queries) error) error {
	err := s.inTx(ctx, func(q *db.Queries) error {
		n, err := q.FinishIndexJob(ctx, db.FinishIndexJobParams{ID: job.ID, Owner: &owner, State: string(state), Reason: reason, Detail: detail})
		if err := leaseResult(n, err); err != nil {
			return err
		}
		return document(q)
	})
	if errors.Is(err, domain.ErrLeaseLost) {
		return err
	}
	return mapError(err, jobNotFound)
}

// RetryJob implements domain.JobStore.
func (s *Store) RetryJob(ctx context.Context, owner string, job domain.IndexJob, after time.Duration, reason, detail string) error {
	n, err := s.q.RequeueIndexJob(ctx, db.RequeueIndexJobParams{ID: job.ID, Owner: &owner, AfterSeconds: after.Seconds(), Reason: &reason, Detail: &detail})
	return leaseResult(n, err)
}

// ListenJobs calls wake whenever a job is queued by any replica, until ctx
// ends (LISTEN on a dedicated connection, reconnecting as needed). Each
// connection wakes the workers once too: jobs queued while no connection
// listened would otherwise wait for the workers' next poll.
func (s *Store) ListenJobs(ctx context.Context, wake func()) {
	s.listen(ctx, jobChannel, func(string) { wake() }, func(context.Context, time.Time) error {
		wake()
		return nil
	})
}

// leaseResult turns an update that touched no row into ErrLeaseLost.
func leaseResult(n int64, err error) error {
	if err != nil {
		return mapError(err, jobNotFound)
	}
	if n == 0 {
		return domain.ErrLeaseLost
	}
	return nil
}

func jobFromRow(r db.IndexJob) domain.IndexJob {
	var next *time.Time
	if domain.JobState(r.State) == domain.JobQueued && r.Attempts > 0 {
		next = utcPtr(&r.RunAfter)
	}
	return domain.IndexJob{
		ID: r.ID, TenantID: domain.TenantID(r.TenantID), KBID: r.KbID, DocumentID: r.DocumentID,
		State: domain.JobState(r.State), Done: r.ProgressDone, Total: r.ProgressTotal, Attempts: r.Attempts,
		Reason: r.Reason, Detail: r.Detail, NextAttemptAt: next, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
		StartedAt: utcPtr(r.StartedAt), FinishedAt: utcPtr(r.FinishedAt), RequestID: deref(r.RequestID),
	}
}

// chunkKind stores an unset kind as a unit.
func chunkKind(k domain.ChunkKind) domain.ChunkKind {
	if k == "" {
		return domain.ChunkUnit
	}
	return k
}
