package server

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
)

// StreamRagExperiment implements POST /admin/rag/experiments/stream: the
// answer runs in a goroutine writing events into a pipe that the generated
// response copies and flushes. Bad input found before the first event is
// an ordinary problem answer; after it, an `error` event ends the stream.
func (h *handlers) StreamRagExperiment(ctx context.Context, r api.StreamRagExperimentRequestObject) (api.StreamRagExperimentResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	req := labRequest(ctx, tenant, *r.Body)
	body, err := h.streamEvents(ctx, func(s *sseStream) error {
		// Bad input shows before the first event: an ordinary problem
		// answer. After it, an error event ends the stream.
		out, err := h.d.Answerer.Find(ctx, tenant, req)
		if err != nil {
			return err
		}
		generate := req.Generate && out.Transfer == nil
		if generate {
			if err := h.d.Answerer.LabPrompt(ctx, tenant, &out, false); err != nil {
				return err
			}
		}
		if err := s.send("meta", toAPIRagResult(req.Query, out)); err != nil {
			return err
		}
		if err := s.send("sources", api.RagStreamSources{Citations: convertAll(out.Citations, toAPICitation)}); err != nil {
			return err
		}
		if generate {
			out, err = h.d.Answerer.Generate(ctx, tenant, out, req.Model, func(p domain.StreamEvent) error {
				if p.Thought != "" {
					return s.send("thought", api.StreamText{Text: p.Thought})
				}
				return s.send("delta", api.StreamText{Text: p.Delta})
			})
			if err != nil {
				de := asDomainError(err)
				return s.send("error", api.StreamError{Code: api.StreamErrorCode(de.Code), Detail: de.Message})
			}
		}
		return s.send("done", toAPIRagResult(req.Query, out))
	})
	if err != nil {
		return nil, err
	}
	return api.StreamRagExperiment200TexteventStreamResponse{Body: body}, nil
}
