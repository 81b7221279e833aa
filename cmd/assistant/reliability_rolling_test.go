package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/internal/pgtest"
)

// Timing of the rolling restart. A reply streams the fake model's ten
// pieces rollingPieceDelay apart (~1.2 s), so at any moment most
// conversations have a reply in flight; the replicas' shutdown timeout is
// many replies long, so a graceful stop can finish them all.
const (
	rollingPieceDelay = 120 * time.Millisecond
	rollingShutdown   = 30 * time.Second
)

// rollingPieces is what the fake model streams for every answer.
func rollingPieces() []string {
	return []string{"Refunds ", "reach ", "your ", "original ", "payment ", "method ", "within ", "three ", "working ", "days [1]."}
}

// A rolling restart: replicas on one database, one of them stopped while
// conversations stream replies from both.
func TestReliabilityRollingRestart(t *testing.T) {
	t.Run("SIGTERM to one of two replicas under load", rollingUnderLoad)
	t.Run("a reply outlasting the shutdown timeout, and a session watcher", rollingPastTheTimeout)
}

// Two replicas of the real binary; conversations spread over both; one
// replica gets SIGTERM. Its in-flight replies finish (graceful shutdown) or
// are resumed on the other replica (Last-Event-ID, or sent again when
// interrupted); new requests go to the other replica once the stopped one
// refuses connections; the stored history has every message's reply, once.
func rollingUnderLoad(t *testing.T) {
	bin := buildService(t)
	cfg := testConfig(t, pgtest.NewDatabase(t))
	model := fakeStreamingModel(t, rollingPieceDelay, rollingPieces()...)
	timeout := "ASSISTANT_SHUTDOWN_TIMEOUT=" + rollingShutdown.String()
	stopped := newServiceProc(t, bin, cfg, timeout)
	stopped.start()
	eStopped := remoteEnv(t, cfg, stopped.URL())
	seedFAQTenant(t, eStopped)
	useModel(t, eStopped, "acme", model.URL)
	// The survivor starts on the seeded database, as a new replica would.
	survivor := newServiceProc(t, bin, cfg, timeout)
	survivor.start()
	eSurvivor := remoteEnv(t, cfg, survivor.URL())

	n := reliabilitySize(8, 40)
	rc := &rollingClient{c: newSSEClient(cfg.DefaultAPIKey, "acme", n), bases: [2]string{stopped.URL(), survivor.URL()},
		resumeFor: rollingShutdown + 10*time.Second}
	sessions := make([]string, n)
	for i := range sessions {
		sessions[i] = eSurvivor.newChat("acme", nil).session
	}
	load, stopLoad := context.WithCancel(t.Context())
	defer stopLoad()
	results := make([][]rollingMessage, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { results[i] = rc.converse(load, sessions[i], i%2) })
	}
	// SIGTERM once every conversation has had a reply and a quarter of
	// them have one streaming from the replica about to stop.
	require.Eventually(t, func() bool {
		return rc.replies.Load() >= int32(n) && rc.inFlight[0].Load() >= int32(max(n/4, 1))
	}, 60*time.Second, 10*time.Millisecond, "the load never got going")
	termAt := time.Now()
	stopped.signal(syscall.SIGTERM)
	// The load goes on while the stopped replica drains and after, so new
	// messages meet its closed port.
	time.Sleep(reliabilitySize(4*time.Second, 15*time.Second))
	stopLoad()
	wg.Wait()
	require.True(t, stopped.waitExit(rollingShutdown+10*time.Second), "the stopped replica exits within its shutdown timeout")
	assert.NoError(t, stopped.exitErr, "the stopped replica exits cleanly (status 0): its in-flight requests ended in time")

	var messages, inFlight, finished, resumed, resent, rerouted, afterTerm int
	for _, conv := range results {
		for _, m := range conv {
			messages++
			assert.NoError(t, m.err, "message %q", m.text)
			if m.onStopped && m.start.Before(termAt) && m.end.After(termAt) {
				inFlight++
				switch {
				case len(m.interrupted) > 0:
					resent++
				case m.resumed:
					resumed++
				case m.err == nil:
					finished++
				}
			}
			if m.rerouted {
				rerouted++
			}
			if m.start.After(termAt) {
				afterTerm++
			}
		}
	}
	lost, duplicated := rollingCheckHistory(t, eSurvivor, sessions, results)
	part := "rolling restart"
	reportFigure(t, part, "conversations (messages)", fmt.Sprintf("%d (%d)", n, messages))
	reportFigure(t, part, "in flight on the stopped replica at SIGTERM", inFlight)
	reportFigure(t, part, "of those: finished there / resumed (Last-Event-ID) / interrupted and sent again",
		fmt.Sprintf("%d / %d / %d", finished, resumed, resent))
	reportFigure(t, part, "messages sent after SIGTERM (re-routed on refusal)", fmt.Sprintf("%d (%d)", afterTerm, rerouted))
	reportFigure(t, part, "SIGTERM to exit", stopped.exitedAt.Sub(termAt).Round(100*time.Millisecond))
	reportFigure(t, part, "lost replies", lost)
	reportFigure(t, part, "duplicated messages or replies", duplicated)
	assert.Positive(t, inFlight, "replies were in flight on the stopped replica")
	assert.Equal(t, inFlight, finished+resumed+resent, "each in-flight reply finished or was resumed")
	assert.Positive(t, afterTerm, "messages were sent after SIGTERM")
	assert.Zero(t, lost, "no reply lost")
	assert.Zero(t, duplicated, "nothing stored twice")
}

// rollingCheckHistory compares each session's stored history (read on the
// survivor) with what its conversation sent and received: each message, in
// order, followed by its reply with the id the client got (an interrupted
// reply, when the message had to be sent again, by the interrupted one
// first). It returns the replies the client got that are not stored, and
// the messages or replies stored more often than sent.
func rollingCheckHistory(t *testing.T, e *env, sessions []string, results [][]rollingMessage) (lost, duplicated int) {
	for i, session := range sessions {
		var want, got []string
		for _, m := range results[i] {
			for _, id := range m.interrupted {
				want = append(want, "user: "+m.text, "assistant: "+id+" interrupted")
			}
			want = append(want, "user: "+m.text, "assistant: "+m.replyID+" complete")
		}
		stored := map[string]bool{}
		for _, m := range storedMessages(t, e, session) {
			if m["role"] == "user" {
				got = append(got, "user: "+m["content"].(string))
				continue
			}
			stored[m["id"].(string)] = true
			got = append(got, fmt.Sprintf("assistant: %s %s", m["id"], m["status"]))
		}
		for _, m := range results[i] {
			for _, id := range append([]string{m.replyID}, m.interrupted...) {
				if !stored[id] {
					lost++
				}
			}
		}
		duplicated += max(len(got)-len(want), 0)
		assert.Equal(t, want, got, "conversation %d: the stored history is what was sent and received, in order", i)
	}
	return lost, duplicated
}

// rollingPastTheTimeout stops a replica (in process) while a reply outlasts
// its shutdown timeout and a session watcher is connected, draining the
// dialogue first (turn.Runner.Drain) as serve should on SIGTERM: the watcher's
// stream ends at once, the reply ends with an interrupted error event
// before the timeout and is stored as far as it got, the shutdown is
// clean, and the other replica resumes it and answers the message sent
// again.
func rollingPastTheTimeout(t *testing.T) {
	cfg := testConfig(t, pgtest.NewDatabase(t))
	cfg.ShutdownTimeout = 4 * time.Second
	stopping := startEnv(t, cfg)
	seedFAQTenant(t, stopping)
	var delay atomic.Int64
	delay.Store(int64(250 * time.Millisecond)) // 40 pieces: 10 s, well past the timeout
	useModel(t, stopping, "acme", rollingSlowModel(t, 40, &delay))
	other := startEnv(t, cfg)
	addr, stop, served := serveOnLoopback(t, stopping)
	base := "http://" + addr
	session := stopping.newChat("acme", nil).session

	watched := rollingWatch(t, base, cfg.DefaultAPIKey, session)
	client := newSSEClient(cfg.DefaultAPIKey, "acme", 1)
	replied := make(chan replyStream, 1)
	go func() { replied <- client.post(context.Background(), base, session, streamQuestion(0), "") }()
	c := &chat{e: stopping, tenant: "acme", session: session}
	require.Eventually(t, func() bool { return len(c.messages(t)) == 1 }, 10*time.Second, 20*time.Millisecond, "the message never arrived")
	time.Sleep(500 * time.Millisecond) // not needed, but closer to a real restart: pieces are out

	// SIGTERM as serve should handle it: drain the dialogue, then shut
	// the HTTP server down. (serve does not call Drain yet; once it does,
	// this call is redundant and harmless.)
	undrain := stopping.app.dialogue.Drain(cfg.ShutdownTimeout)
	defer undrain()
	termAt := time.Now()
	stop()
	select {
	case <-watched:
	case <-time.After(2 * time.Second):
		require.Fail(t, "the session watcher's stream did not end at shutdown")
	}
	r := <-replied
	require.NoError(t, r.err)
	id, err := checkReplyEvents(session, 0, "", r.events)
	require.NoError(t, err)
	last := r.last()
	assert.Equal(t, "error", last.name)
	assert.Equal(t, "interrupted", last.data["code"], "%v", last.data)
	require.NoError(t, <-served, "a clean shutdown, within the timeout")
	shutdownIn := time.Since(termAt)
	assert.Less(t, shutdownIn, cfg.ShutdownTimeout)

	// The other replica has the reply, as far as it got, and resumes it.
	msgs := (&chat{e: other, tenant: "acme", session: session}).messages(t)
	require.Len(t, msgs, 2)
	assert.Equal(t, id, msgs[1]["id"])
	assert.Equal(t, "interrupted", msgs[1]["status"])
	// The interruption comes a second before the timeout, 3 s in: a dozen
	// pieces were generated, all sent but the guard's held-back tail,
	// which is stored too.
	assert.True(t, strings.HasPrefix(msgs[1]["content"].(string), deltas(r.events)), "stored as far as it got: %q", msgs[1]["content"])
	assert.True(t, strings.HasPrefix(msgs[1]["content"].(string), "part0 part1 "), "%q", msgs[1]["content"])
	rest := client.post(context.Background(), other.srv.URL, session, "resume", r.events[1].id)
	require.NoError(t, rest.err)
	assert.Equal(t, r.events[2:], rest.events, "the rest of the reply, from the store")
	// Sent again, the message is answered there (the model is quick now).
	delay.Store(0)
	again := client.post(context.Background(), other.srv.URL, session, streamQuestion(0), "")
	require.NoError(t, again.err)
	assert.Equal(t, "done", again.last().name)
	reportFigure(t, "rolling restart", "reply past the shutdown timeout: stored as", fmt.Sprintf("interrupted after %d deltas; shutdown took %s",
		len(r.events)-2, shutdownIn.Round(100*time.Millisecond)))
}

// rollingSlowModel is an OpenAI-compatible streaming model answering n
// pieces ("part0 ", "part1 ", …), each after *delay (read per piece).
func rollingSlowModel(t *testing.T, n int, delay *atomic.Int64) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range n {
			b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"delta": map[string]any{"content": fmt.Sprintf("part%d ", i)}}}})
			if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(time.Duration(delay.Load())):
			}
		}
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// rollingWatch opens the session's stage-event stream and returns a channel
// closed when the stream ends.
func rollingWatch(t *testing.T, base, key, session string) <-chan struct{} {
	hr, err := http.NewRequest("GET", base+"/api/v1/chat/sessions/"+session+"/events", nil)
	require.NoError(t, err)
	hr.Header.Set("X-API-Key", key)
	hr.Header.Set("X-Tenant-Id", "acme")
	res, err := http.DefaultClient.Do(hr)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.StatusCode)
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
		}
	}()
	return ended
}
