package domain

import (
	"context"
	"errors"
	"time"
)

// JobState is where an index job is.
type JobState string

// Index job states, in order.
const (
	JobQueued    JobState = "queued"
	JobParsing   JobState = "parsing"
	JobChunking  JobState = "chunking"
	JobEmbedding JobState = "embedding"
	JobIndexing  JobState = "indexing"
	JobSucceeded JobState = "succeeded"
	JobFailed    JobState = "failed"
)

// Finished reports whether the job will not change any more.
func (s JobState) Finished() bool { return s == JobSucceeded || s == JobFailed }

// Reasons of job failures that are not the parser's.
const (
	ReasonEmbeddingFailed = "embedding_failed"
	ReasonWorkerLost      = "worker_lost"
	ReasonIndexingFailed  = "indexing_failed"
)

// IndexJob indexes one document: parse → chunk → embed → index.
type IndexJob struct {
	ID         string
	TenantID   TenantID
	KBID       string
	DocumentID string
	State      JobState
	Done       int32
	Total      int32
	Attempts   int32
	// Reason and Detail say why the job failed, or why its last attempt did
	// while it waits to retry.
	Reason *string
	Detail *string
	// NextAttemptAt is when a job waiting to retry after a failed attempt
	// is tried again, at the earliest; nil for a job that failed no
	// attempt, runs, or ended.
	NextAttemptAt *time.Time
	CreatedAt     time.Time
	UpdatedAt     time.Time
	StartedAt     *time.Time
	FinishedAt    *time.Time
	// RequestID is the X-Request-Id of the upload or re-index that queued
	// the job ("" for jobs queued before it was kept): the worker's log
	// lines of the job name it.
	RequestID string
}

// JobFilter narrows a job listing.
type JobFilter struct {
	State      *JobState
	DocumentID *string
}

// JobClaim is what a worker asks of the queue when it takes a job.
type JobClaim struct {
	// Owner names the worker: the job's lease is its.
	Owner string
	// Lease is how long the job stays the owner's without a renewal.
	Lease time.Duration
	// PerTenant is the most jobs of one tenant that may run at once, every
	// worker's of every replica together (0: no cap): a tenant whose
	// provider hangs holds at most that many workers.
	PerTenant int
}

// ErrLeaseLost is returned to a worker that no longer holds a job: it took
// too long and another worker took over, or the document was deleted.
var ErrLeaseLost = errors.New("the job's lease was lost")

// JobStore is the durable queue of index jobs and what workers write.
type JobStore interface {
	// GetIndexJob returns CodeNotFound if it does not exist in the tenant.
	GetIndexJob(ctx context.Context, tenant TenantID, id string) (IndexJob, error)
	// ListIndexJobs lists jobs newest first.
	ListIndexJobs(ctx context.Context, tenant TenantID, f JobFilter, p PageRequest) (Page[IndexJob], error)
	// IndexJobsByIDs returns the jobs with these ids that exist in the
	// tenant, in no particular order.
	IndexJobsByIDs(ctx context.Context, tenant TenantID, ids []string) ([]IndexJob, error)

	// ClaimJob leases a runnable job to c.Owner: a queued job whose time
	// has come, or a running one whose lease expired (its worker died).
	// Tenants take turns: the one with the fewest jobs running goes first,
	// then the one served longest ago, and one running c.PerTenant jobs
	// waits; within a tenant the oldest job goes first. ok is false when
	// there is none. Safe across processes (SKIP LOCKED).
	ClaimJob(ctx context.Context, c JobClaim) (job IndexJob, ok bool, err error)
	// RenewLeases extends the leases owner holds on ids (the heartbeat).
	RenewLeases(ctx context.Context, owner string, ids []string, lease time.Duration) error
	// JobStage records a job's stage and progress. Returns ErrLeaseLost when
	// owner no longer holds it.
	JobStage(ctx context.Context, owner, id string, state JobState, done, total int32) error
	// LoadJobInput returns the document and its file.
	LoadJobInput(ctx context.Context, job IndexJob) (Document, []byte, error)
	// ReplaceChunks replaces every chunk and passage of the job's document
	// (vectors go with them). Returns ErrLeaseLost when owner no longer
	// holds the job, and CodeQuotaExceeded, replacing nothing, when the new
	// chunks would take the tenant past its chunks or index memory quota.
	ReplaceChunks(ctx context.Context, owner string, job IndexJob, chunks []Chunk, passages []Passage) error
	// SucceedJob finishes the job and marks the document ready with its
	// chunk count and embedding model.
	SucceedJob(ctx context.Context, owner string, job IndexJob, chunks int32, model string) error
	// FailJob finishes the job as failed and marks the document failed.
	FailJob(ctx context.Context, owner string, job IndexJob, reason, detail string) error
	// RetryJob puts the job back in the queue to run after a delay,
	// recording why the attempt failed.
	RetryJob(ctx context.Context, owner string, job IndexJob, after time.Duration, reason, detail string) error
}
