package turn

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// resume reconnects with lastEventID and returns the events it got.
func resume(h *harness, session, lastEventID string) ([]int, error) {
	var got []int
	err := h.runner.Resume(context.Background(), tenantID, session, lastEventID, func(ev domain.ReplyEvent) error {
		got = append(got, ev.Seq)
		return nil
	})
	return got, err
}

func TestResume(t *testing.T) {
	h := newHarness(setup{find: refunds, gen: refundAnswer()})
	o := h.send(t, request{message: "How long do refunds take?", stream: true})
	require.Empty(t, o.Err)
	msg := o.Reply.MessageID
	require.False(t, o.Held, "a stored reply's events leave memory")

	got, err := resume(h, sessionID, EventID(msg, 2))
	require.NoError(t, err)
	assert.Equal(t, []int{3, 4, 5}, got, "the stored events after Last-Event-ID")

	got, err = resume(h, sessionID, EventID(msg, 5))
	require.NoError(t, err)
	assert.Empty(t, got, "the client had it all")

	_, err = resume(h, sessionID, "msg_0192f3b4c5d67e8f9a0b1c2d3e4f5a00:1")
	assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err), "an unknown reply")

	_, err = resume(h, sessionID, "7")
	assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))

	_, err = resume(h, "ses_other", EventID(msg, 1))
	assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err), "an unknown session")

	h.chat.sessions["ses_other"] = domain.ChatSession{ID: "ses_other", TenantID: tenantID}
	_, err = resume(h, "ses_other", EventID(msg, 1))
	assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err), "another session's reply")
}

func TestResumeFollowsAReplyThatCouldNotBeStored(t *testing.T) {
	h := newHarness(setup{find: refunds, gen: refundAnswer(), saveErr: errStore})
	o := h.send(t, request{message: "How long do refunds take?", stream: true})
	require.NotEmpty(t, o.Err)
	msg, _, ok := ParseEventID(o.Sent[0].ID)
	require.True(t, ok)
	got, err := resume(h, sessionID, EventID(msg, 1))
	require.NoError(t, err)
	assert.Equal(t, []int{2, 3, 4, 5}, got, "from memory, where the events stay for ReplayTTL")
}

func TestWatch(t *testing.T) {
	h := newHarness(setup{})
	_, err := h.runner.Watch(context.Background(), tenantID, "ses_other")
	assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err))
	sub, err := h.runner.Watch(context.Background(), tenantID, sessionID)
	require.NoError(t, err)
	assert.Equal(t, 1, h.runner.Observer().Watchers(tenantID, sessionID))

	stop := h.runner.Drain(0)
	defer stop()
	_, open := <-sub.Events
	assert.False(t, open, "Drain ends the watchers at once")
	late := h.runner.Observer().Subscribe(tenantID, sessionID)
	_, open = <-late.Events
	assert.False(t, open, "and those who come later")
}
