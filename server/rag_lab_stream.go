package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
	"github.com/cs-assistant/assistant/pipelines/dialogue/answer"
)

// ssePing is how often an idle stream sends a comment, so proxies keep it.
const ssePing = 15 * time.Second

// StreamRagExperiment implements POST /admin/rag/experiments/stream: the
// answer runs in a goroutine writing events into a pipe that the generated
// response copies and flushes. Bad input found before the first event is
// an ordinary problem answer; after it, an `error` event ends the stream.
func (h *handlers) StreamRagExperiment(ctx context.Context, r api.StreamRagExperimentRequestObject) (api.StreamRagExperimentResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	req := labRequest(tenant, *r.Body)
	pr, pw := io.Pipe()
	s := &sseWriter{w: pw}
	started := make(chan error, 1)
	go func() {
		stop := pingEvery(ssePing, s.comment)
		defer stop()
		metaSent := false
		out, err := h.d.Answerer.Run(ctx, tenant, req, &answer.Events{
			Meta: func(o answer.Outcome) error {
				metaSent = true
				started <- nil
				if err := s.event("meta", toAPIRagResult(req.Query, o)); err != nil {
					return err
				}
				return s.event("sources", map[string]any{"citations": convertAll(o.Citations, toAPICitation)})
			},
			Piece: func(p domain.StreamEvent) error {
				if p.Thought != "" {
					return s.event("thought", map[string]string{"text": p.Thought})
				}
				return s.event("delta", map[string]string{"text": p.Delta})
			},
		})
		if !metaSent { // failed before any event: an ordinary problem answer
			started <- err
			_ = pw.Close()
			return
		}
		if err != nil {
			de := asDomainError(err)
			_ = s.event("error", map[string]string{"code": string(de.Code), "detail": de.Message})
		} else {
			_ = s.event("done", toAPIRagResult(req.Query, out))
		}
		_ = pw.Close()
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return api.StreamRagExperiment200TexteventStreamResponse{Body: pr}, nil
}

// sseWriter writes server-sent events, numbered, one JSON object each.
type sseWriter struct {
	mu sync.Mutex
	w  *io.PipeWriter
	id int
}

func (s *sseWriter) event(name string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.id++
	_, err = fmt.Fprintf(s.w, "id: %d\nevent: %s\ndata: %s\n\n", s.id, name, data)
	return err
}

// comment writes an SSE comment line.
func (s *sseWriter) comment(text string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err := io.WriteString(s.w, ": "+text+"\n\n")
	return err
}

// pingEvery calls comment("ping") every d until the returned stop is called
// or a write fails.
func pingEvery(d time.Duration, comment func(string) error) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if comment("ping") != nil {
					return
				}
			}
		}
	}()
	return func() { close(done) }
}
