package ingest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/ingest/chunk"
	"github.com/cs-assistant/assistant/pipelines/ingest/parse"
)

// WorkerOptions tune the index workers.
type WorkerOptions struct {
	// Concurrency is how many jobs this process runs at once.
	Concurrency int
	// PerTenant is the most jobs of one tenant running at once, on every
	// replica together (0: no cap), so that a tenant whose provider hangs
	// never holds every worker; tenants take turns anyway (ClaimJob).
	PerTenant int
	// Lease is how long a claimed job stays ours without a heartbeat; a
	// worker that dies loses its jobs to others after at most this long.
	Lease time.Duration
	// Poll is how often idle workers look for jobs without being woken.
	Poll time.Duration
	// MaxAttempts bounds how often a job is tried (retries and takeovers).
	MaxAttempts int
	// EmbedBatch is how many chunks go to the embedder at once.
	EmbedBatch int
	// Chunking sizes the chunks.
	Chunking chunk.Options
	// Parse bounds every parse.
	Parse parse.Limits
	// VectorLog, when set, records every indexed vector for tenants that
	// turned their KB vector log on.
	VectorLog VectorLogger
	// Observer, when set, sees each job attempt (telemetry).
	Observer JobObserver
	// Questions, when set, writes generated questions for the documents
	// of knowledge bases that switched question generation on.
	Questions *Questioner
}

// Outcomes of a job attempt, as a JobObserver sees them.
const (
	OutcomeSucceeded = "succeeded"
	OutcomeFailed    = "failed"
	// OutcomeRetry: the attempt failed and the job is queued again.
	OutcomeRetry = "retry"
	// OutcomeAbandoned: the lease was lost or the worker stopped; another
	// attempt takes the job over.
	OutcomeAbandoned = "abandoned"
)

// JobObserver sees the attempts of index jobs: JobStarted returns the
// context the attempt runs in (carrying its span) and a function that is
// called once with the attempt's outcome.
type JobObserver interface {
	JobStarted(ctx context.Context, job domain.IndexJob) (context.Context, func(outcome string))
}

// VectorLogger records indexed vectors (the KB vector log).
type VectorLogger interface {
	Record(ctx context.Context, tenant domain.TenantID, recs []domain.VectorRecord) error
}

// DefaultWorkerOptions are the options the service runs with.
func DefaultWorkerOptions() WorkerOptions {
	return WorkerOptions{
		Concurrency: 2, PerTenant: 1, Lease: 30 * time.Second, Poll: 2 * time.Second, MaxAttempts: 5, EmbedBatch: 64,
		Chunking: chunk.DefaultOptions(), Parse: parse.DefaultLimits(),
	}
}

// Worker runs index jobs from the durable queue.
type Worker struct {
	jobs      domain.JobStore
	vectors   domain.VectorStore
	embedders domain.Embedders
	fields    domain.MetadataStore
	tok       *chunk.Tokenizer
	opts      WorkerOptions
	log       *slog.Logger
	owner     string
	wake      chan struct{}

	mu     sync.Mutex
	active map[string]bool
}

// NewWorker returns a worker; Run starts it.
func NewWorker(jobs domain.JobStore, vectors domain.VectorStore, embedders domain.Embedders, fields domain.MetadataStore, tok *chunk.Tokenizer, log *slog.Logger, o WorkerOptions) *Worker {
	host, _ := os.Hostname()
	var b [4]byte
	_, _ = rand.Read(b[:])
	return &Worker{
		jobs: jobs, vectors: vectors, embedders: embedders, fields: fields, tok: tok, opts: o, log: log,
		owner:  fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b[:])),
		wake:   make(chan struct{}, 1),
		active: make(map[string]bool),
	}
}

// Wake tells an idle worker that a job is waiting.
func (w *Worker) Wake() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Run runs jobs until ctx ends; jobs in flight then stop where they are
// and are taken over after their lease expires.
func (w *Worker) Run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Go(func() { w.heartbeat(ctx) })
	for range max(w.opts.Concurrency, 1) {
		wg.Go(func() { w.loop(ctx) })
	}
	wg.Wait()
}

func (w *Worker) loop(ctx context.Context) {
	for ctx.Err() == nil {
		job, ok, err := w.jobs.ClaimJob(ctx, domain.JobClaim{Owner: w.owner, Lease: w.opts.Lease, PerTenant: w.opts.PerTenant})
		if err != nil && ctx.Err() == nil {
			w.log.WarnContext(ctx, "claiming an index job failed", "err", err)
		}
		if ok {
			w.run(ctx, job)
			continue
		}
		select {
		case <-ctx.Done():
		case <-w.wake:
		case <-time.After(w.opts.Poll):
		}
	}
}

// heartbeat renews the leases of the jobs in flight, three times a lease.
func (w *Worker) heartbeat(ctx context.Context) {
	t := time.NewTicker(w.opts.Lease / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		w.mu.Lock()
		ids := make([]string, 0, len(w.active))
		for id := range w.active {
			ids = append(ids, id)
		}
		w.mu.Unlock()
		if len(ids) == 0 {
			continue
		}
		if err := w.jobs.RenewLeases(ctx, w.owner, ids, w.opts.Lease); err != nil && ctx.Err() == nil {
			w.log.WarnContext(ctx, "renewing index job leases failed", "err", err)
		}
	}
}

func (w *Worker) track(id string, on bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if on {
		w.active[id] = true
	} else {
		delete(w.active, id)
	}
}

// run carries one job to its end, or puts it back for a retry. Its log
// lines (and those of the pipeline, through ctx) name the request that
// queued the job.
func (w *Worker) run(ctx context.Context, job domain.IndexJob) {
	w.track(job.ID, true)
	defer w.track(job.ID, false)
	log := w.log.With("job_id", job.ID, "tenant", string(job.TenantID), "document_id", job.DocumentID, "attempt", job.Attempts)
	if job.RequestID != "" {
		ctx = domain.WithRequestID(ctx, job.RequestID)
		log = log.With("request_id", job.RequestID)
	}
	outcome := OutcomeAbandoned
	if w.opts.Observer != nil {
		var end func(string)
		ctx, end = w.opts.Observer.JobStarted(ctx, job)
		defer func() { end(outcome) }()
	}
	if int(job.Attempts) > w.opts.MaxAttempts {
		err := w.jobs.FailJob(ctx, w.owner, job, domain.ReasonWorkerLost,
			fmt.Sprintf("The job was interrupted or failed %d times; re-index the document to try again.", job.Attempts-1))
		if err == nil {
			outcome = OutcomeFailed
		}
		w.finish(ctx, log, job, err)
		return
	}
	start := time.Now()
	n, model, err := w.index(ctx, job)
	var fail *jobFailure
	if err != nil && !errors.As(err, &fail) && !errors.Is(err, domain.ErrLeaseLost) && ctx.Err() == nil {
		err = transient(domain.ReasonIndexingFailed, "Indexing failed unexpectedly; it will be tried again.", err)
	}
	switch {
	case err == nil:
		err = w.jobs.SucceedJob(ctx, w.owner, job, n, model)
		if err == nil {
			outcome = OutcomeSucceeded
			log.InfoContext(ctx, "document indexed", "chunks", n, "model", model, "ms", time.Since(start).Milliseconds())
		}
	case errors.As(err, &fail) && fail.retry && int(job.Attempts) < w.opts.MaxAttempts:
		delay := time.Duration(1<<min(job.Attempts, 6)) * time.Second
		log.WarnContext(ctx, "index job will retry", "reason", fail.reason, "in", delay.String(), "err", fail.err)
		if err = w.jobs.RetryJob(ctx, w.owner, job, delay, fail.reason, fail.detail); err == nil {
			outcome = OutcomeRetry
		}
	case errors.As(err, &fail):
		detail := fail.detail
		if fail.retry {
			detail = lastAttempt(detail, job.Attempts)
		}
		log.InfoContext(ctx, "index job failed", "reason", fail.reason, "err", fail.err)
		if err = w.jobs.FailJob(ctx, w.owner, job, fail.reason, detail); err == nil {
			outcome = OutcomeFailed
		}
	}
	w.finish(ctx, log, job, err)
}

// lastAttempt is the detail of a failure worth retrying that came at the
// last attempt: the job ends, saying so.
func lastAttempt(detail string, attempts int32) string {
	tries := "1 attempt"
	if attempts != 1 {
		tries = fmt.Sprintf("%d attempts", attempts)
	}
	return strings.TrimRight(detail, ". ") + ". The job gave up after " + tries + "; re-index the document to try again."
}

// finish logs what is left of a job's end: a lost lease or a cancelled
// context means another worker (or the next start) takes the job over.
func (w *Worker) finish(ctx context.Context, log *slog.Logger, job domain.IndexJob, err error) {
	switch {
	case err == nil:
	case errors.Is(err, domain.ErrLeaseLost):
		log.InfoContext(ctx, "index job given up: another worker holds it, or its document is gone")
	case ctx.Err() != nil:
		log.InfoContext(ctx, "index job interrupted by shutdown; it resumes after its lease expires")
	default:
		log.ErrorContext(ctx, "recording the end of an index job failed", "err", err)
	}
}
