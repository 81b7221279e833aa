package hybrid

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/store/lexical"
	"github.com/cs-assistant/assistant/store/vector/memindex"
)

// load fills t's indexes from the database, applies the changes that
// arrived meanwhile, and publishes them; or, failing, takes t out of the
// map (the next use tries again) and hands the error to its waiters.
func (x *Index) load(t *entry) {
	start := time.Now()
	share := x.shareOf(x.base, t.id)
	v, w, err := x.fill(x.base, t.id)
	for err == nil {
		x.mu.Lock()
		if t.resync {
			t.resync, t.pending = false, nil
			x.mu.Unlock()
			v.Close()
			v, w, err = x.fill(x.base, t.id)
			continue
		}
		pending := t.pending
		t.pending = nil
		if len(pending) == 0 {
			// Counted before publishing: a release may evict and close
			// the tenant at once.
			vectors, chunks := v.Len(t.id), w.Len(t.id)
			t.share = share
			mem := x.publishLocked(t, v, w)
			x.mu.Unlock()
			x.log.Info("tenant search index loaded", "tenant", string(t.id), "vectors", vectors, "chunks", chunks,
				"bytes", mem.Heap, "mappedBytes", mem.Mapped, "duration", time.Since(start).Round(time.Millisecond).String())
			if mem.MapErr != nil {
				x.log.Warn("a tenant's float32 vectors are in the heap, not in a mapped file", "tenant", string(t.id), "err", mem.MapErr)
			}
			return
		}
		x.mu.Unlock()
		for _, c := range pending {
			if err = x.apply(x.base, v, w, c); err != nil {
				break
			}
		}
	}
	v.Close() // what was loaded
	x.mu.Lock()
	t.err = err
	if x.tenants[t.id] == t {
		delete(x.tenants, t.id)
	}
	close(t.ready)
	x.mu.Unlock()
	x.log.Warn("loading a tenant's search index failed; its next search tries again", "tenant", string(t.id), "err", err)
}

// publishLocked makes the filled indexes t's, counts them, and wakes the
// searches waiting for them. It returns their memory (Heap with the
// words' bytes).
func (x *Index) publishLocked(t *entry, v *memindex.Index, w *lexical.Index) memindex.Memory {
	t.vectors, t.words = v, w
	t.loaded = true
	mem := v.Memory(t.id)
	mem.Heap += w.Bytes(t.id)
	t.bytes, t.mapped = mem.Heap, mem.Mapped
	t.elem = x.lru.PushFront(t)
	x.resident += t.bytes
	x.mapped += t.mapped
	x.stats.Loads++
	close(t.ready)
	x.evictLocked()
	return mem
}

// fill reads tenant id's vectors and chunks into new indexes, the two
// streams side by side (decoding vectors and cutting words into terms
// each keep a core busy).
func (x *Index) fill(ctx context.Context, id domain.TenantID) (v *memindex.Index, w *lexical.Index, err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("load the search index of tenant %s: %w", id, err)
		}
	}()
	v, w = memindex.NewWithOptions(x.dims, x.vopts), lexical.New()
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		n, err := x.db.CountTenantVectors(gctx, id)
		if err != nil {
			return err
		}
		v.Grow(id, n)
		return x.db.StreamTenantVectors(gctx, id, func(recs []domain.VectorRecord) error { return v.Upsert(id, recs) })
	})
	g.Go(func() error {
		fields, err := x.chunkFields(gctx, id)
		if err != nil {
			return err
		}
		return x.db.StreamTenantChunks(gctx, id, func(chunks []domain.Chunk) error {
			return w.Upsert(id, chunkDocs(fields, chunks))
		})
	})
	return v, w, g.Wait()
}

// apply brings v and w in step with change c: a deleted document or
// knowledge base goes; a changed document is read again, both sides.
func (x *Index) apply(ctx context.Context, v *memindex.Index, w *lexical.Index, c domain.IndexChange) error {
	switch {
	case c.Deleted && c.DocumentID != "":
		v.DeleteDocument(c.Tenant, c.DocumentID)
		w.DeleteDocument(c.Tenant, c.DocumentID)
	case c.Deleted && c.KBID != "":
		v.DeleteKnowledgeBase(c.Tenant, c.KBID)
		w.DeleteKnowledgeBase(c.Tenant, c.KBID)
	case c.DocumentID != "":
		recs, err := x.db.LoadDocumentVectors(ctx, c.Tenant, c.DocumentID)
		if err != nil {
			return err
		}
		chunks, err := x.db.DocumentChunkTexts(ctx, c.Tenant, c.DocumentID)
		if err != nil {
			return err
		}
		fields, err := x.chunkFields(ctx, c.Tenant)
		if err != nil {
			return err
		}
		// Records the index would refuse leave it as it is: checked
		// before the old ones go, so the vectors change whole or not.
		if err := v.Validate(c.Tenant, recs); err != nil {
			return err
		}
		// Chunks the new indexing no longer has go too.
		v.DeleteDocument(c.Tenant, c.DocumentID)
		if err := v.Upsert(c.Tenant, recs); err != nil {
			return err
		}
		w.DeleteDocument(c.Tenant, c.DocumentID)
		return w.Upsert(c.Tenant, chunkDocs(fields, chunks))
	}
	return nil
}

// chunkFields returns tenant's metadata fields as chunks carry them, so
// that the words' metadata is typed as filters compare it (dates as times).
func (x *Index) chunkFields(ctx context.Context, tenant domain.TenantID) ([]domain.MetadataField, error) {
	fields, err := domain.AllMetadataFields(ctx, x.db, tenant, domain.MetadataFieldFilter{IncludeDeprecated: true})
	if err != nil {
		return nil, err
	}
	return domain.ChunkFields(fields), nil
}

// chunkDocs makes stored chunks lexical documents: their search text, and
// their metadata typed by fields.
func chunkDocs(fields []domain.MetadataField, chunks []domain.Chunk) []lexical.Doc {
	docs := make([]lexical.Doc, len(chunks))
	for i, c := range chunks {
		docs[i] = lexical.Doc{ChunkID: c.ID, KBID: c.KBID, DocumentID: c.DocumentID, Text: c.SearchText(),
			Metadata: domain.SearchableMetadata(fields, c.Metadata)}
	}
	return docs
}
