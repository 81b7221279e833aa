package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/cs-assistant/assistant/clients/go"
)

// seeded is the knowledge base a run talks to.
type seeded struct {
	ID     string
	Chunks int
	// Reused says the knowledge base was seeded by an earlier run; Took is
	// how long this run's seeding took (uploads and indexing), zero when
	// reused.
	Reused bool
	Took   time.Duration
}

// markerPrefix starts the description of a knowledge base this tool
// seeded; marker is the whole description.
const markerPrefix = "Seeded by the load test (cmd/load)"

// marker is the description of a knowledge base of n chunks, complete once
// every file is indexed: a later run reuses only a complete one of its size.
func marker(n int, complete bool) string {
	state := "seeding, incomplete"
	if complete {
		state = "complete"
	}
	return fmt.Sprintf("%s, FAQ %s: %d chunks, %s.", markerPrefix, faqVersion, n, state)
}

// seed makes sure the tenant has the knowledge base cfg asks for: reused
// when an earlier run completed it with the same size, else (re)created,
// uploaded in files of cfg.FileChunks entries and waited for until indexed.
// Progress goes to log.
func seed(ctx context.Context, s *service, cfg Config, log io.Writer) (seeded, error) {
	kb, err := s.findKB(ctx, cfg.KBName)
	if err != nil {
		return seeded{}, err
	}
	if kb != nil && !cfg.Reseed && kb.Description == marker(cfg.Chunks, true) {
		chunks, ready, err := s.countChunks(ctx, kb.Id)
		if err != nil {
			return seeded{}, err
		}
		if ready && chunks == cfg.Chunks {
			fmt.Fprintf(log, "load: reusing knowledge base %s (%d chunks, seeded earlier; -reseed to seed again)\n", kb.Id, chunks)
			return seeded{ID: kb.Id, Chunks: chunks, Reused: true}, nil
		}
	}
	if kb != nil {
		fmt.Fprintf(log, "load: deleting knowledge base %s (%q) to seed it again\n", kb.Id, kb.Description)
		r, err := s.api.DeleteKnowledgeBaseWithResponse(ctx, kb.Id, &client.DeleteKnowledgeBaseParams{XTenantId: s.tenant})
		if err := expect(r, err, http.StatusNoContent, "delete knowledge base "+kb.Id); err != nil {
			return seeded{}, err
		}
	}

	began := time.Now()
	cr, err := s.api.CreateKnowledgeBaseWithResponse(ctx, &client.CreateKnowledgeBaseParams{XTenantId: s.tenant},
		client.KnowledgeBaseCreateRequest{Name: cfg.KBName, Description: ptr(marker(cfg.Chunks, false))})
	if err := expect(cr, err, http.StatusCreated, "create knowledge base"); err != nil {
		return seeded{}, err
	}
	id := cr.JSON201.Id
	parts := faqParts(cfg.Chunks, cfg.FileChunks)
	fmt.Fprintf(log, "load: seeding knowledge base %s with %d chunks in %d file(s)\n", id, cfg.Chunks, len(parts))
	jobs, err := s.uploadAll(ctx, id, parts, cfg.Uploads)
	if err != nil {
		return seeded{}, err
	}
	fmt.Fprintf(log, "load: uploaded in %v; indexing\n", time.Since(began).Round(time.Millisecond))
	wctx, cancel := context.WithTimeout(ctx, cfg.IndexTimeout)
	defer cancel()
	if err := s.waitIndexed(wctx, jobs, cfg.Chunks, cfg.Poll, log); err != nil {
		return seeded{}, err
	}
	chunks, ready, err := s.countChunks(ctx, id)
	if err != nil {
		return seeded{}, err
	}
	if !ready || chunks != cfg.Chunks {
		return seeded{}, fmt.Errorf("knowledge base %s holds %d chunks (all documents ready: %v), want %d", id, chunks, ready, cfg.Chunks)
	}
	took := time.Since(began)
	if err := s.describeKB(ctx, id, marker(cfg.Chunks, true)); err != nil {
		return seeded{}, err
	}
	fmt.Fprintf(log, "load: seeded %d chunks in %v\n", chunks, took.Round(time.Millisecond))
	return seeded{ID: id, Chunks: chunks, Took: took}, nil
}

// findKB is the tenant's knowledge base called name, or nil.
func (s *service) findKB(ctx context.Context, name string) (*client.KnowledgeBase, error) {
	params := &client.ListKnowledgeBasesParams{XTenantId: s.tenant, Limit: ptr[client.Limit](200)}
	for {
		r, err := s.api.ListKnowledgeBasesWithResponse(ctx, params)
		if err := expect(r, err, http.StatusOK, "list knowledge bases"); err != nil {
			return nil, err
		}
		for _, kb := range r.JSON200.Items {
			if kb.Name == name {
				return &kb, nil
			}
		}
		if r.JSON200.NextCursor == nil {
			return nil, nil
		}
		params.Cursor = r.JSON200.NextCursor
	}
}

// countChunks sums the chunks of a knowledge base's documents and says
// whether every one of them is ready.
func (s *service) countChunks(ctx context.Context, kbID string) (chunks int, ready bool, err error) {
	params := &client.ListDocumentsParams{XTenantId: s.tenant, KbId: &kbID, Limit: ptr[client.Limit](200)}
	ready = true
	for {
		r, err := s.api.ListDocumentsWithResponse(ctx, params)
		if err := expect(r, err, http.StatusOK, "list documents"); err != nil {
			return 0, false, err
		}
		for _, d := range r.JSON200.Items {
			chunks += int(d.ChunkCount)
			ready = ready && d.Status == client.DocumentStatusReady
		}
		if r.JSON200.NextCursor == nil {
			return chunks, ready, nil
		}
		params.Cursor = r.JSON200.NextCursor
	}
}

// describeKB sets a knowledge base's description, keeping its name.
func (s *service) describeKB(ctx context.Context, id, description string) error {
	g, err := s.api.GetKnowledgeBaseWithResponse(ctx, id, &client.GetKnowledgeBaseParams{XTenantId: s.tenant})
	if err := expect(g, err, http.StatusOK, "get knowledge base"); err != nil {
		return err
	}
	kb := g.JSON200
	u, err := s.api.UpdateKnowledgeBaseWithResponse(ctx, id, &client.UpdateKnowledgeBaseParams{XTenantId: s.tenant},
		client.KnowledgeBaseUpdateRequest{Name: kb.Name, Description: description, Version: kb.Version})
	return expect(u, err, http.StatusOK, "mark the knowledge base seeded")
}

// uploadAll uploads the FAQ files of parts to the knowledge base, at most
// conc at a time, and returns their index jobs in file order.
func (s *service) uploadAll(ctx context.Context, kbID string, parts [][2]int, conc int) ([]string, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	jobs := make([]string, len(parts))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(conc, len(parts)) {
		wg.Go(func() {
			for i := range next {
				job, err := s.upload(ctx, kbID, fmt.Sprintf("load-faq-%05d.md", i+1), faqFile(parts[i][0], parts[i][1]))
				if err != nil {
					cancel(err)
					continue
				}
				jobs[i] = job
			}
		})
	}
	for i := range parts {
		select {
		case next <- i:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(next)
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	return jobs, nil
}

// upload sends one file as POST /admin/kb/documents and returns its job.
func (s *service) upload(ctx context.Context, kbID, name string, data []byte) (string, error) {
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	if err := mw.WriteField("kbId", kbID); err != nil {
		return "", err
	}
	fw, err := mw.CreateFormFile("file", name)
	if err != nil {
		return "", err
	}
	if _, err := fw.Write(data); err != nil {
		return "", err
	}
	if err := mw.Close(); err != nil {
		return "", err
	}
	r, err := s.api.UploadDocumentWithBodyWithResponse(ctx, &client.UploadDocumentParams{XTenantId: s.tenant},
		mw.FormDataContentType(), &form)
	if err := expect(r, err, http.StatusAccepted, "upload "+name); err != nil {
		return "", err
	}
	return r.JSON202.Job.Id, nil
}

// waitIndexed polls the jobs until every one succeeded, printing progress
// now and then; a failed job is an error with its reason.
func (s *service) waitIndexed(ctx context.Context, jobs []string, total int, every time.Duration, log io.Writer) error {
	pending := map[string]int{} // job -> chunks done so far
	for _, j := range jobs {
		pending[j] = 0
	}
	finished, lastSaid := 0, time.Now()
	for {
		for id := range pending {
			r, err := s.api.GetIndexJobWithResponse(ctx, id, &client.GetIndexJobParams{XTenantId: s.tenant})
			if err := expect(r, err, http.StatusOK, "get index job"); err != nil {
				return err
			}
			j := r.JSON200
			switch j.State {
			case client.IndexJobStateSucceeded:
				finished += int(j.Progress.Total)
				delete(pending, id)
			case client.IndexJobStateFailed:
				return fmt.Errorf("index job %s of document %s failed: %s %s", id, j.DocumentId, deref(j.Reason), deref(j.Detail))
			default:
				pending[id] = int(j.Progress.Done)
			}
		}
		if len(pending) == 0 {
			return nil
		}
		if time.Since(lastSaid) >= 10*time.Second {
			done := finished
			for _, d := range pending {
				done += d
			}
			fmt.Fprintf(log, "load: indexing: %d/%d chunks, %d/%d files done\n", done, total, len(jobs)-len(pending), len(jobs))
			lastSaid = time.Now()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for indexing (-index-timeout): %w", ctx.Err())
		case <-time.After(every):
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return strings.TrimSpace(*s)
}
