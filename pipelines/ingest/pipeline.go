package ingest

import (
	"context"
	"errors"
	"fmt"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/ingest/chunk"
	"github.com/cs-assistant/assistant/pipelines/ingest/parse"
)

// jobFailure is why a job attempt failed: a stable reason, a sentence for
// users, and whether trying again may help.
type jobFailure struct {
	reason, detail string
	retry          bool
	err            error
}

func (f *jobFailure) Error() string { return f.reason + ": " + f.detail }
func (f *jobFailure) Unwrap() error { return f.err }

// index runs parse → chunk → embed → index for one job and returns the
// chunk count and embedding model. Errors are *jobFailure, ErrLeaseLost or
// the context's.
func (w *Worker) index(ctx context.Context, job domain.IndexJob) (int32, string, error) {
	doc, content, err := w.jobs.LoadJobInput(ctx, job)
	if err != nil {
		if domain.ErrorCodeOf(err) == domain.CodeNotFound {
			return 0, "", domain.ErrLeaseLost // the document was deleted meanwhile
		}
		return 0, "", transient(domain.ReasonIndexingFailed, "The document could not be loaded.", err)
	}
	parsed, err := parse.Parse(ctx, parse.Kind(doc.Kind), newBytesSource(content), w.opts.Parse)
	if err != nil {
		var pe *parse.Error
		if errors.As(err, &pe) {
			return 0, "", &jobFailure{reason: pe.Reason, detail: pe.Detail, err: err}
		}
		return 0, "", err
	}
	units, passages, err := cutUnits(w.tok, doc.ID, parsed, w.opts.Chunking)
	if err != nil {
		return 0, "", err
	}
	if len(units) == 0 {
		// Headings and nothing under them: nothing could ever be quoted,
		// and a ready document with no chunks would say otherwise.
		return 0, "", &jobFailure{reason: parse.ReasonNoText, detail: "The document has no text to answer from, only headings."}
	}
	chunks := toChunks(job, doc, units)
	// The document's own units are what it counts; generated questions
	// are indexed with them.
	count := int32(len(chunks))
	questions, err := w.questions(ctx, job, passages, chunks)
	if err != nil {
		return 0, "", err
	}
	chunks = append(chunks, questions...)
	if err := w.jobs.ReplaceChunks(ctx, w.owner, job, chunks, toPassages(passages)); err != nil {
		if f := quotaFailure(err); f != nil {
			return 0, "", f
		}
		return 0, "", leaseOr(err, "The chunks could not be stored.")
	}
	total := int32(len(chunks))
	if err := w.jobs.JobStage(ctx, w.owner, job.ID, domain.JobEmbedding, 0, total); err != nil {
		return 0, "", leaseOr(err, "The job's progress could not be stored.")
	}
	fields, err := domain.AllMetadataFields(ctx, w.fields, job.TenantID, domain.MetadataFieldFilter{
		Scope: ptr(domain.ScopeDocument), IncludeDeprecated: true,
	})
	if err != nil {
		return 0, "", transient(domain.ReasonIndexingFailed, "The tenant's metadata fields could not be read.", err)
	}
	embedder, err := w.embedders.For(ctx, job.TenantID)
	if err != nil {
		return 0, "", embeddingFailure(err)
	}
	model := embedder.Model()
	records := make([]domain.VectorRecord, 0, len(chunks))
	for start := 0; start < len(chunks); start += w.opts.EmbedBatch {
		batch := chunks[start:min(start+w.opts.EmbedBatch, len(chunks))]
		texts := make([]string, len(batch))
		for i, c := range batch {
			texts[i] = c.SearchText()
		}
		vecs, err := embedder.Embed(ctx, texts)
		if err != nil {
			return 0, "", embeddingFailure(err)
		}
		if len(vecs) != len(batch) {
			return 0, "", &jobFailure{reason: domain.ReasonEmbeddingFailed,
				detail: fmt.Sprintf("The embedding provider answered %d vectors for %d texts.", len(vecs), len(batch))}
		}
		for i, c := range batch {
			records = append(records, domain.VectorRecord{
				ChunkID: c.ID, TenantID: job.TenantID, KBID: job.KBID, DocumentID: job.DocumentID,
				Model: model, Vector: vecs[i], Metadata: domain.SearchableMetadata(fields, c.Metadata), Text: texts[i],
			})
		}
		if err := w.jobs.JobStage(ctx, w.owner, job.ID, domain.JobEmbedding, int32(len(records)), total); err != nil {
			return 0, "", leaseOr(err, "The job's progress could not be stored.")
		}
	}
	if err := w.jobs.JobStage(ctx, w.owner, job.ID, domain.JobIndexing, total, total); err != nil {
		return 0, "", leaseOr(err, "The job's progress could not be stored.")
	}
	if err := w.vectors.Upsert(ctx, job.TenantID, records); err != nil {
		return 0, "", transient(domain.ReasonIndexingFailed, "The vectors could not be stored.", err)
	}
	if w.opts.VectorLog != nil {
		// The log is a diagnostic: failing to write it never fails the job.
		if err := w.opts.VectorLog.Record(ctx, job.TenantID, records); err != nil {
			w.log.WarnContext(ctx, "writing the KB vector log failed", "tenant", string(job.TenantID), "err", err)
		}
	}
	return count, model, nil
}

// toChunks gives each unit its ids and the metadata search filters on:
// the document's metadata plus the unit's page or sheet.
func toChunks(job domain.IndexJob, doc domain.Document, pieces []chunk.Unit) []domain.Chunk {
	out := make([]domain.Chunk, len(pieces))
	for i, p := range pieces {
		meta := make(map[string]any, len(doc.Metadata)+2)
		for k, v := range doc.Metadata {
			meta[k] = v
		}
		c := domain.Chunk{
			ID: p.ID, TenantID: job.TenantID, KBID: job.KBID, DocumentID: job.DocumentID,
			Index: int32(p.Index), Text: p.Text, Tokens: int32(p.Tokens), Metadata: meta,
			HeadingPath: p.HeadingPath, ParentIndex: ptr(int32(p.Parent)),
		}
		if p.Page > 0 {
			c.Page = ptr(int32(p.Page))
			meta["page"] = float64(p.Page)
		}
		if p.Sheet != "" {
			c.Sheet = ptr(p.Sheet)
			meta["sheet"] = p.Sheet
		}
		if len(p.HeadingPath) > 0 {
			c.Heading = ptr(p.HeadingPath[len(p.HeadingPath)-1])
		}
		if p.LineStart > 0 {
			c.LineStart, c.LineEnd = ptr(int32(p.LineStart)), ptr(int32(p.LineEnd))
		}
		out[i] = c
	}
	return out
}

// toPassages keeps what an answer reads of each passage.
func toPassages(ps []chunk.Chunk) []domain.Passage {
	out := make([]domain.Passage, len(ps))
	for i, p := range ps {
		out[i] = domain.Passage{Index: int32(i), Text: p.Text, Tokens: int32(p.Tokens)}
	}
	return out
}

func transient(reason, detail string, err error) error {
	return &jobFailure{reason: reason, detail: detail, retry: true, err: err}
}

// embeddingFailure: provider trouble (unavailable, rate limits, timeouts)
// is worth retrying; anything else fails the job at once.
func embeddingFailure(err error) error {
	retry := domain.ErrorCodeOf(err) == domain.CodeUnavailable || errors.Is(err, context.DeadlineExceeded)
	return &jobFailure{reason: domain.ReasonEmbeddingFailed, detail: "The embedding provider failed: " + domain.ErrorMessage(err), retry: retry, err: err}
}

// quotaFailure is the failure of a document whose chunks a quota of its
// tenant refused (nil for any other error): final, since the same
// document would pass it again; nothing of it was stored.
func quotaFailure(err error) *jobFailure {
	q, ok := domain.QuotaOf(err)
	if !ok {
		return nil
	}
	reason := domain.ReasonChunkQuota
	if q.Quota == domain.QuotaIndexMemoryBytes {
		reason = domain.ReasonIndexMemoryQuota
	}
	return &jobFailure{reason: reason, detail: domain.ErrorMessage(err), err: err}
}

// leaseOr passes a lost lease on as it is and makes anything else a
// transient failure.
func leaseOr(err error, detail string) error {
	if errors.Is(err, domain.ErrLeaseLost) {
		return err
	}
	return transient(domain.ReasonIndexingFailed, detail, err)
}

// cutUnits is chunk.Units with its panics caught: a document that trips
// the unit builder fails its job, as one that trips a parser does
// (parse.ReasonCrashed), instead of ending the process with every other
// tenant's jobs.
func cutUnits(tok *chunk.Tokenizer, documentID string, doc parse.Document, o chunk.Options) (units []chunk.Unit, passages []chunk.Chunk, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &jobFailure{reason: parse.ReasonCrashed, detail: "The document could not be cut into passages.",
				err: fmt.Errorf("chunk.Units panicked: %v", p)}
		}
	}()
	units, passages = chunk.Units(tok, documentID, doc, o)
	return units, passages, nil
}
