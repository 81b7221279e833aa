package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	client "github.com/cs-assistant/assistant/clients/go"
)

// TestClientGo is the Go client's example (clients/go), run against the
// real service: with the root key it creates a tenant key, then as that
// tenant a knowledge base, uploads the FAQ and waits for its index job,
// opens a session and asks a covered question, as JSON and as a stream
// (then resumes the stream), watches the session's stages and streams a
// RAG-lab run.
func TestClientGo(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	api := e.srv.URL + "/api/v1"
	const tenant = "acme"

	root, err := client.NewClientWithResponses(api, client.WithAPIKey(e.root))
	require.NoError(t, err)
	created, err := root.CreateApiKeyWithResponse(ctx, &client.CreateApiKeyParams{IdempotencyKey: ptr("quickstart-key")},
		client.ApiKeyCreateRequest{Name: "quickstart", Scopes: []client.ApiKeyScope{client.ApiKeyScopeAdmin, client.ApiKeyScopeChat}, TenantId: ptr(tenant)})
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, created.StatusCode(), "%s", created.Body)
	assert.True(t, strings.HasPrefix(created.JSON201.Secret, "ak_"))

	c, err := client.NewClientWithResponses(api, client.WithAPIKey(created.JSON201.Secret))
	require.NoError(t, err)
	kb, err := c.CreateKnowledgeBaseWithResponse(ctx, &client.CreateKnowledgeBaseParams{XTenantId: tenant},
		client.KnowledgeBaseCreateRequest{Name: "FAQ"})
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, kb.StatusCode(), "%s", kb.Body)

	job := uploadWithClient(t, c, tenant, kb.JSON201.Id, "faq.txt", faq)
	require.Equal(t, client.IndexJobStateSucceeded, job.State, "%v", job.Reason)

	ses, err := c.CreateChatSessionWithResponse(ctx, &client.CreateChatSessionParams{XTenantId: tenant}, client.ChatSessionCreateRequest{})
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, ses.StatusCode(), "%s", ses.Body)
	sessionID := ses.JSON201.Id
	params := &client.PostChatMessageParams{XTenantId: tenant}
	body := client.ChatMessageRequest{Message: covered}

	t.Run("a JSON reply cites the FAQ", func(t *testing.T) {
		r, err := c.PostChatMessageWithResponse(ctx, sessionID, params, body)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, r.StatusCode(), "%s", r.Body)
		assertCitesFAQ(t, *r.JSON200)
	})

	t.Run("a streamed reply, then the same reply resumed", func(t *testing.T) {
		events := readChatStream(t, c, sessionID, params, body)
		require.GreaterOrEqual(t, len(events), 3)
		meta, err := events[0].AsChatStreamMetaEvent()
		require.NoError(t, err)
		assert.Equal(t, client.ChatStreamMetaEventEventMeta, meta.Event)
		assert.Equal(t, meta.Data.MessageId+":1", meta.Id, "ids are <messageId>:<seq>")
		done, err := events[len(events)-1].AsChatStreamDoneEvent()
		require.NoError(t, err)
		require.Equal(t, client.ChatStreamDoneEventEventDone, done.Event)
		assertCitesFAQ(t, done.Data)
		assert.Equal(t, done.Data.Answer, streamedText(t, events), "the deltas add up to the answer")

		resume := *params
		resume.LastEventID = &meta.Id
		rest := readChatStream(t, c, sessionID, &resume, body)
		require.Len(t, rest, len(events)-1, "everything after the meta event")
		again, err := rest[len(rest)-1].AsChatStreamDoneEvent()
		require.NoError(t, err)
		assert.Equal(t, done, again, "the same reply, replayed")

		msgs, err := c.ListChatMessagesWithResponse(ctx, sessionID, &client.ListChatMessagesParams{XTenantId: tenant})
		require.NoError(t, err)
		assert.Len(t, msgs.JSON200.Items, 4, "two questions and two replies: a resume creates no message")
	})

	t.Run("a watcher sees every stage of the next message", func(t *testing.T) {
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		w, err := client.WatchSession(wctx, c, sessionID, &client.WatchChatSessionParams{XTenantId: tenant})
		require.NoError(t, err)
		defer w.Close()
		ev, err := w.Next()
		require.NoError(t, err)
		ready, err := ev.AsSessionWatchReadyEvent()
		require.NoError(t, err)
		require.Equal(t, sessionID, ready.Data.SessionId)

		r, err := c.PostChatMessageWithResponse(ctx, sessionID, params, client.ChatMessageRequest{Message: "Do you ship routers?"})
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, r.StatusCode(), "%s", r.Body)
		var stages []client.StageEventStage
		for len(stages) == 0 || stages[len(stages)-1] != client.StageEventStagePersist {
			ev, err := w.Next()
			require.NoError(t, err)
			stage, err := ev.AsSessionWatchStageEvent()
			require.NoError(t, err)
			assert.Equal(t, r.JSON200.MessageId, stage.Data.MessageId)
			stages = append(stages, stage.Data.Stage)
		}
		assert.Subset(t, stages, []client.StageEventStage{client.StageEventStageSession, client.StageEventStageRetrieval,
			client.StageEventStageGeneration}, "the stages up to persist")
	})

	t.Run("a streamed RAG-lab run", func(t *testing.T) {
		s, err := client.StreamRagExperiment(ctx, c, &client.StreamRagExperimentParams{XTenantId: tenant},
			client.RagExperimentRequest{Query: covered, Generate: ptr(true)})
		require.NoError(t, err)
		defer s.Close()
		var last client.RagStreamEvent
		for {
			ev, err := s.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			require.NoError(t, err)
			last = ev
		}
		done, err := last.AsRagStreamDoneEvent()
		require.NoError(t, err)
		require.Equal(t, client.RagStreamDoneEventEventDone, done.Event)
		assert.False(t, done.Data.ShouldTransfer, "%v", done.Data.TransferReason)
		require.NotEmpty(t, done.Data.Citations)
		assert.Equal(t, "faq.txt", done.Data.Citations[0].DocumentName)
		require.NotNil(t, done.Data.Answer)
		assert.Contains(t, *done.Data.Answer, "three working days")
	})

	t.Run("a refused request is a ProblemError", func(t *testing.T) {
		_, err := client.StreamMessage(ctx, c, sessionID, &client.PostChatMessageParams{XTenantId: "globex"}, body)
		var problem *client.ProblemError
		require.ErrorAs(t, err, &problem)
		assert.Equal(t, http.StatusForbidden, problem.StatusCode)
		require.NotNil(t, problem.Problem)
		assert.Equal(t, client.ProblemCode("tenant_forbidden"), problem.Problem.Code)
	})
}

// uploadWithClient uploads a text file as multipart/form-data (with an
// Idempotency-Key) and waits for its index job to finish.
func uploadWithClient(t *testing.T, c *client.ClientWithResponses, tenant, kbID, name, content string) client.IndexJob {
	t.Helper()
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	part, err := mw.CreateFormFile("file", name)
	require.NoError(t, err)
	_, err = part.Write([]byte(content))
	require.NoError(t, err)
	require.NoError(t, mw.WriteField("kbId", kbID))
	require.NoError(t, mw.Close())
	up, err := c.UploadDocumentWithBodyWithResponse(t.Context(),
		&client.UploadDocumentParams{XTenantId: tenant, IdempotencyKey: ptr("upload-" + name)}, mw.FormDataContentType(), &form)
	require.NoError(t, err)
	require.Equal(t, http.StatusAccepted, up.StatusCode(), "%s", up.Body)

	job := up.JSON202.Job
	require.Eventually(t, func() bool {
		r, err := c.GetIndexJobWithResponse(t.Context(), job.Id, &client.GetIndexJobParams{XTenantId: tenant})
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, r.StatusCode(), "%s", r.Body)
		job = *r.JSON200
		return job.State == client.IndexJobStateSucceeded || job.State == client.IndexJobStateFailed
	}, 30*time.Second, 20*time.Millisecond, "the index job never finished")
	return job
}

// readChatStream streams a message and reads every event.
func readChatStream(t *testing.T, c client.ClientInterface, sessionID string, params *client.PostChatMessageParams,
	body client.ChatMessageRequest) []client.ChatStreamEvent {
	t.Helper()
	s, err := client.StreamMessage(t.Context(), c, sessionID, params, body)
	require.NoError(t, err)
	defer s.Close()
	var events []client.ChatStreamEvent
	for {
		ev, err := s.Next()
		if errors.Is(err, io.EOF) {
			return events
		}
		require.NoError(t, err)
		events = append(events, ev)
	}
}

// streamedText is the answer as a client shows it: the deltas, a reset
// throwing away what came before.
func streamedText(t *testing.T, events []client.ChatStreamEvent) string {
	t.Helper()
	var b strings.Builder
	for _, ev := range events {
		v, err := ev.ValueByDiscriminator()
		require.NoError(t, err)
		if d, ok := v.(client.ChatStreamDeltaEvent); ok {
			if d.Data.Reset {
				b.Reset()
			}
			b.WriteString(d.Data.Text)
		}
	}
	return b.String()
}

// assertCitesFAQ checks a reply to `covered`: answered, not handed over,
// quoting the FAQ's refund sentence and citing faq.txt.
func assertCitesFAQ(t *testing.T, r client.ChatReply) {
	t.Helper()
	assert.False(t, r.ShouldTransfer, "%v", r.TransferReason)
	assert.Equal(t, client.ChatReplyResponseType("rag"), r.ResponseType)
	assert.Contains(t, r.Answer, "three working days")
	require.NotEmpty(t, r.Sources)
	assert.Equal(t, "faq.txt", r.Sources[0].DocumentName)
	assert.Contains(t, r.Sources[0].Quote, "three working days")
}
