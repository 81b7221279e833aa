package server

import (
	"context"
	"encoding/json"
	"mime"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
	"github.com/cs-assistant/assistant/pipelines/dialogue/turn"
)

// wantsStreamKey marks a request whose Accept asks for server-sent events.
type wantsStreamKey struct{}

// negotiateStream is a strict middleware that tells the message handler
// whether the client accepts text/event-stream (the strict interface does
// not pass Accept, which OpenAPI forbids declaring as a parameter).
func negotiateStream(f api.StrictHandlerFunc, operationID string) api.StrictHandlerFunc {
	if operationID != "PostChatMessage" {
		return f
	}
	return func(c echo.Context, request any) (any, error) {
		if acceptsEventStream(c.Request().Header.Values(echo.HeaderAccept)) {
			req := c.Request()
			c.SetRequest(req.WithContext(context.WithValue(req.Context(), wantsStreamKey{}, true)))
		}
		return f(c, request)
	}
}

// acceptsEventStream reports whether text/event-stream is acceptable and
// preferred over JSON (a q of 0 refuses it).
func acceptsEventStream(accept []string) bool {
	sse, json := -1.0, -1.0 // the q of each, -1 when not acceptable at all
	for _, h := range accept {
		for _, part := range strings.Split(h, ",") {
			mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			q := 1.0
			if v, ok := params["q"]; ok {
				if q, err = strconv.ParseFloat(v, 64); err != nil || q < 0 || q > 1 {
					continue // a malformed weight: the range means nothing
				}
			}
			switch mt {
			case "text/event-stream":
				sse = max(sse, q)
			case "application/json", "application/*", "*/*":
				json = max(json, q)
			}
		}
	}
	// The stream when the client weighs it above zero and no lower than
	// JSON (RFC 9110 §12.5.1: q=0 is "not acceptable").
	return sse > 0 && sse >= json
}

// PostChatMessage implements POST /chat/sessions/{sessionId}/messages.
func (h *handlers) PostChatMessage(ctx context.Context, r api.PostChatMessageRequestObject) (api.PostChatMessageResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	if r.Params.LastEventID != nil {
		return h.resumeReply(ctx, tenant, r.SessionId, *r.Params.LastEventID)
	}
	p, _ := domain.PrincipalFrom(ctx)
	in := turn.Input{Tenant: tenant, SessionID: r.SessionId, Message: r.Body.Message, KeyID: p.KeyID}
	if r.Body.Values != nil {
		in.Values = *r.Body.Values
	}
	if stream, _ := ctx.Value(wantsStreamKey{}).(bool); !stream {
		reply, err := h.d.Dialogue.Handle(ctx, in)
		if err != nil {
			return nil, err
		}
		return api.PostChatMessage200JSONResponse(toAPIChatReply(reply)), nil
	}
	body, err := h.streamEvents(ctx, func(s *sseStream) error {
		in.Stream = &turn.Stream{Encode: encodeReplyEvent, Write: s.write}
		_, err := h.d.Dialogue.Handle(ctx, in)
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.PostChatMessage200TexteventStreamResponse{Body: body}, nil
}

// resumeReply replays the rest of a streamed reply.
func (h *handlers) resumeReply(ctx context.Context, tenant domain.TenantID, session, lastEventID string) (api.PostChatMessageResponseObject, error) {
	body, err := h.streamEvents(ctx, func(s *sseStream) error {
		sent := false
		err := h.d.Dialogue.Resume(ctx, tenant, session, lastEventID, func(ev domain.ReplyEvent) error {
			sent = true
			return s.write(turn.EventID(ev.MessageID, ev.Seq), ev.Event, ev.Data)
		})
		if err == nil && !sent {
			s.started()
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.PostChatMessage200TexteventStreamResponse{Body: body}, nil
}

// encodeReplyEvent is the data of one reply event, in the contract's shapes.
func encodeReplyEvent(ev turn.Event) ([]byte, error) {
	var v any
	switch ev.Name {
	case turn.EventMeta:
		v = api.StreamMeta{SessionId: ev.Meta.SessionID, MessageId: ev.Meta.MessageID, TraceId: ev.Meta.TraceID}
	case turn.EventThought:
		v = api.StreamText{Text: ev.Text}
	case turn.EventDelta:
		v = api.StreamDelta{Text: ev.Text, Reset: ev.Reset}
	case turn.EventSources:
		v = api.StreamSources{Sources: convertAll(ev.Sources, toAPIReplySource)}
	case turn.EventDone:
		v = toAPIChatReply(*ev.Reply)
	default:
		v = api.StreamError{Code: api.StreamErrorCode(ev.Code), Detail: ev.Message}
	}
	return json.Marshal(v)
}

// WatchChatSession implements GET /chat/sessions/{sessionId}/events.
func (h *handlers) WatchChatSession(ctx context.Context, r api.WatchChatSessionRequestObject) (api.WatchChatSessionResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	sub, err := h.d.Dialogue.Watch(ctx, tenant, r.SessionId)
	if err != nil {
		return nil, err
	}
	body, err := h.streamEvents(ctx, func(s *sseStream) error {
		defer sub.Close()
		ready, _ := json.Marshal(api.SessionWatchReady{SessionId: r.SessionId})
		if err := s.write("ready", "ready", ready); err != nil {
			return err
		}
		for {
			select {
			case <-ctx.Done():
				return nil
			case ev, ok := <-sub.Events:
				if !ok {
					return nil
				}
				if ev.Message != nil {
					data, err := json.Marshal(toAPISessionWatchMessage(*ev.Message))
					if err != nil {
						return err
					}
					if err := s.write(ev.MessageID, "message", data); err != nil {
						return nil
					}
					continue
				}
				data, err := json.Marshal(toAPIStageEvent(ev.SessionID, ev.MessageID, ev.TraceID, ev.Stage))
				if err != nil {
					return err
				}
				if err := s.write(ev.MessageID+":"+ev.Stage.Stage, "stage", data); err != nil {
					return nil
				}
			}
		}
	})
	if err != nil {
		sub.Close()
		return nil, err
	}
	return api.WatchChatSession200TexteventStreamResponse{Body: body}, nil
}
