package turn

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// overdue is a session whose return flow has waited for the order number
// past its timeout.
func overdue(t *testing.T) domain.ChatSession {
	t.Helper()
	s := inFlow(returnFlow(), map[string]string{"lang": "en"})
	st := decodeFlow(s.FlowState)
	require.NotNil(t, st)
	st.Deadline = clock().Add(-time.Second)
	b, _, err := encodeFlow(st)
	require.NoError(t, err)
	s.FlowState = b
	return s
}

// sweep fires the due timeouts of the harness's store and writes down
// what that left, as a transcript does.
func sweep(t *testing.T, h *harness) (int, string) {
	t.Helper()
	sub := h.runner.Observer().Subscribe(tenantID, sessionID)
	defer sub.Close()
	n, err := h.runner.SweepFlows(context.Background())
	require.NoError(t, err)
	var b strings.Builder
	for i, turn := range h.chat.timeouts {
		b.WriteString(transcriptLine(t, "expected", string(h.chat.expected[i])))
		b.WriteString(transcriptLine(t, "stored", asStored(turn)))
	}
	for len(sub.Events) > 0 {
		ev := <-sub.Events
		b.WriteString(transcriptLine(t, "published", ev))
	}
	b.WriteString(transcriptLine(t, "observed", h.tel.stages))
	for _, l := range strings.Split(strings.TrimSpace(h.log.String()), "\n") {
		if l != "" {
			b.WriteString("log " + l + "\n")
		}
	}
	return n, normalize(t, b.String())
}

func TestSweepFlows(t *testing.T) {
	flows := fakeFlows{"flow_return": {flow: returnFlow()}}
	for _, tc := range []struct {
		name  string
		setup setup
		lost  bool
		fired int
		// has are facts of the transcript.
		has []string
	}{
		{name: "a due timeout is stored as the flow's message", setup: setup{flows: flows}, fired: 1,
			has: []string{`"Content":"We stopped waiting; write again any time."`, `"Outcome":"timed_out"`, `"FlowState":null`,
				`"Kind":"timed_out"`, `"TimedOut":true`}},
		{name: "a timeout's text passes the output guard", setup: setup{flows: fakeFlows{"flow_return": {flow: func() domain.ScriptFlow {
			f := returnFlow()
			f.Steps[1].OnTimeout.Text = "We stopped waiting, cheap as that is."
			return f
		}()}}, guard: words()}, fired: 1, has: []string{`"Content":"We stopped waiting, ***** as that is."`, `"RefID":"fw_cheap"`}},
		{name: "a deleted flow's instance is dropped", setup: setup{}, has: []string{`"Kind":"dropped"`, `"FlowState":null`, `"Reply":{"ID":""`}},
		{name: "a disabled flow's instance is dropped", setup: setup{flows: fakeFlows{"flow_return": {flow: returnFlow(), disabled: true}}},
			has: []string{`"Kind":"dropped"`}},
		{name: "a timeout another replica stored first is not counted", setup: setup{flows: flows}, lost: true},
		{name: "a flow that cannot be read is tried again later", setup: setup{flows: fakeFlows{"flow_return": {err: errStore}}},
			has: []string{"flow timeout not fired"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(tc.setup)
			h.chat.due = []domain.ChatSession{overdue(t)}
			h.chat.casLost = tc.lost
			n, got := sweep(t, h)
			assert.Equal(t, tc.fired, n)
			for _, s := range tc.has {
				assert.Contains(t, got, s)
			}
			pinned(t, "sweep_"+tc.name, got)
		})
	}
}
