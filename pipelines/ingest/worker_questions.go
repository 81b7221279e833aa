package ingest

import (
	"context"
	"maps"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/ingest/chunk"
)

// questions writes the generated questions of a document's passages when
// its knowledge base asks for them (none otherwise), as chunks numbered
// after the document's units. Progress shows as the chunking stage, one
// step per passage. Errors are *jobFailure, ErrLeaseLost or the context's.
func (w *Worker) questions(ctx context.Context, job domain.IndexJob, passages []chunk.Chunk, units []domain.Chunk) ([]domain.Chunk, error) {
	if w.opts.Questions == nil || len(passages) == 0 {
		return nil, nil
	}
	m, err := w.opts.Questions.Model(ctx, job.TenantID, job.KBID)
	switch {
	case domain.ErrorCodeOf(err) == domain.CodeNotFound:
		return nil, domain.ErrLeaseLost // the knowledge base, and the document with it, was deleted
	case err != nil:
		return nil, transient(domain.ReasonIndexingFailed, "The knowledge base's question generation could not be set up.", err)
	case m == nil:
		return nil, nil
	}
	first := map[int]domain.Chunk{} // the first unit of each passage
	for _, u := range units {
		if _, ok := first[int(*u.ParentIndex)]; !ok {
			first[int(*u.ParentIndex)] = u
		}
	}
	in := make([]Passage, len(passages))
	for i, p := range passages {
		in[i] = Passage{Text: p.Text, HeadingPath: first[i].HeadingPath}
	}
	total := int32(len(passages))
	progress := func(done int) error {
		return w.jobs.JobStage(ctx, w.owner, job.ID, domain.JobChunking, int32(done), total)
	}
	if err := progress(0); err != nil {
		return nil, leaseOr(err, "The job's progress could not be stored.")
	}
	written, failed, err := w.opts.Questions.Write(ctx, m, in, progress)
	if err != nil {
		return nil, leaseOr(err, "The job's progress could not be stored.")
	}
	if failed > 0 {
		w.log.WarnContext(ctx, "the kb_processing model wrote no questions for some passages; they are indexed without",
			"passages", failed, "of", len(passages), "model", m.Model())
	}
	var out []domain.Chunk
	next := len(units)
	for pi, qs := range written {
		base, ok := first[pi]
		if !ok {
			continue // a passage with no unit is never read
		}
		for _, q := range qs {
			c := base
			c.ID, c.Index, c.Kind = chunk.ID(job.DocumentID, next), int32(next), domain.ChunkGeneratedQuestion
			c.Text, c.Tokens = q, int32(w.tok.Count(q))
			c.Metadata = maps.Clone(base.Metadata)
			if p := passages[pi]; p.LineStart > 0 {
				c.LineStart, c.LineEnd = ptr(int32(p.LineStart)), ptr(int32(p.LineEnd))
			}
			out = append(out, c)
			next++
		}
	}
	return out, nil
}
