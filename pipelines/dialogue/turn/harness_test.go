package turn

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/answer"
	"github.com/cs-assistant/assistant/pipelines/dialogue/guard"
)

// The harness runs one message through a Runner built on the fakes and
// writes down everything the message left: the reply, the events sent,
// the turn stored, the stages published and observed, the retrievals and
// prompts asked for, and the log.

const (
	tenantID  = domain.TenantID("t_acme")
	sessionID = "ses_0192f3b4c5d67e8f9a0b1c2d3e4f5a6b"
)

// clock is the tests' now.
func clock() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

// setup is the tenant's configuration and the session a scenario runs in.
type setup struct {
	session  domain.ChatSession
	window   []domain.SessionMessage
	rules    []domain.IntentRule
	rulesErr error
	flows    fakeFlows
	guard    guard.Config
	guardErr error
	find     func(answer.Request) (answer.Outcome, error)
	gen      generation
	decomp   *fakeDecomposer
	slots    *fakeSlots
	fields   *fakeMetadata
	prompt   *domain.PromptVersion
	settings fakeSettings
	saveErr  error
}

// request is how the message is sent.
type request struct {
	message string
	stream  bool
	// noSession sends no session id (a dry run of a made-up session).
	noSession bool
	dry       *DryRun
	values    map[string]string
	// writes is how many event writes succeed before the client goes away
	// (0: all of them; -1: none).
	writes int
	// during runs while the model generates: it cancels the request or
	// interrupts the runner.
	during func(cancel context.CancelFunc, r *Runner)
}

// harness is a Runner on fakes, and what they saw.
type harness struct {
	chat     *fakeChat
	answerer *fakeAnswerer
	tel      *fakeTelemetry
	log      *bytes.Buffer
	runner   *Runner
}

func newHarness(s setup) *harness {
	h := &harness{chat: newFakeChat(), tel: &fakeTelemetry{}, log: &bytes.Buffer{}}
	find := s.find
	if find == nil {
		find = notFound
	}
	h.answerer = &fakeAnswerer{find: find, gen: s.gen}
	sess := s.session
	if sess.ID == "" {
		sess = domain.ChatSession{ID: sessionID, TenantID: tenantID, Channel: "web"}
	}
	h.chat.sessions[sess.ID] = sess
	h.chat.window[sess.ID] = s.window
	h.chat.saveErr = s.saveErr
	logger := slog.New(slog.NewTextHandler(h.log, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}))
	d := Deps{Log: logger, Chat: h.chat, Tenants: fakeTenants{}, Settings: s.settings,
		Rules: fakeRules{rules: s.rules, err: s.rulesErr}, Flows: s.flows, Prompts: fakePrompts{chat: s.prompt},
		Guards: fakeGuards{cfg: s.guard, err: s.guardErr}, Answerer: h.answerer, Models: noModels{},
		Telemetry: h.tel, Now: clock}
	if s.decomp != nil {
		d.Decomposer = s.decomp
	}
	if s.slots != nil {
		d.Slots = s.slots
	}
	if s.fields != nil {
		d.Metadata = s.fields
	}
	h.runner = New(d)
	return h
}

// sent is one event as the client got it (or would have).
type sent struct {
	ID    string
	Event string
	Data  json.RawMessage
}

// sink is the client's end of a stream.
type sink struct {
	mu     sync.Mutex
	got    []sent
	writes int
	failed bool
}

func (s *sink) write(id, event string, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failed || s.writes < 0 || (s.writes > 0 && len(s.got) >= s.writes) {
		s.failed = true
		return fmt.Errorf("write: broken pipe")
	}
	s.got = append(s.got, sent{ID: id, Event: event, Data: append(json.RawMessage(nil), data...)})
	return nil
}

// encodeEvent is the data of an event, in the shapes the server gives it.
func encodeEvent(ev Event) ([]byte, error) {
	var v any
	switch ev.Name {
	case EventMeta:
		v = map[string]any{"sessionId": ev.Meta.SessionID, "messageId": ev.Meta.MessageID, "traceId": ev.Meta.TraceID}
	case EventThought:
		v = map[string]any{"text": ev.Text}
	case EventDelta:
		v = map[string]any{"text": ev.Text, "reset": ev.Reset}
	case EventSources:
		v = map[string]any{"sources": ev.Sources}
	case EventDone:
		r := *ev.Reply
		r.Monitoring, r.ToolTraces = domain.MessageMonitoring{}, nil
		v = r
	default:
		v = map[string]any{"code": ev.Code, "detail": ev.Message}
	}
	return json.Marshal(v)
}

// outcome is what one message left behind.
type outcome struct {
	Err       string           `json:",omitempty"`
	Code      domain.ErrorCode `json:",omitempty"`
	Reply     Reply
	Sent      []sent            `json:",omitempty"`
	Opened    int               `json:",omitempty"`
	Stored    []json.RawMessage `json:",omitempty"`
	Published []StageEvent      `json:",omitempty"`
	Observed  []string          `json:",omitempty"`
	Finds     []answer.Request  `json:",omitempty"`
	Prompts   [][]domain.ChatMessage
	// Held: the reply's events are still in memory for a resume.
	Held bool
	Log  []string
}

// send runs one message.
func (h *harness) send(t *testing.T, rq request) outcome {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if rq.during != nil {
		h.answerer.during = func() { rq.during(cancel, h.runner) }
	}
	sub := h.runner.Observer().Subscribe(tenantID, sessionID)
	defer sub.Close()
	in := Input{Tenant: tenantID, SessionID: sessionID, Message: rq.message, KeyID: "key_1", Values: rq.values, DryRun: rq.dry}
	if rq.noSession {
		in.SessionID = ""
	}
	sk := &sink{writes: rq.writes}
	if rq.stream {
		in.Stream = &Stream{Encode: encodeEvent, Write: sk.write}
	}
	reply, err := h.runner.Handle(ctx, in)
	out := outcome{Reply: reply, Sent: sk.got, Observed: h.tel.stages, Finds: h.answerer.finds, Prompts: h.answerer.prompts}
	if err != nil {
		out.Err, out.Code = err.Error(), domain.ErrorCodeOf(err)
	}
	out.Opened, out.Stored = len(h.chat.opened), rawAll(h.chat.saved)
	for len(sub.Events) > 0 {
		out.Published = append(out.Published, <-sub.Events)
	}
	h.runner.d.Replays.mu.Lock()
	out.Held = len(h.runner.d.Replays.replies) > 0
	h.runner.d.Replays.mu.Unlock()
	for _, l := range strings.Split(strings.TrimSpace(h.log.String()), "\n") {
		if l != "" {
			out.Log = append(out.Log, l)
		}
	}
	return out
}

func rawAll(ss []string) []json.RawMessage {
	out := make([]json.RawMessage, len(ss))
	for i, s := range ss {
		out[i] = json.RawMessage(s)
	}
	return out
}

// transcript writes an outcome down, one JSON value a line, with its
// made-up ids numbered in order of appearance and its measured durations
// zeroed, so that two runs of one scenario give the same text.
func transcript(t *testing.T, o outcome) string {
	t.Helper()
	var b strings.Builder
	line := func(label string, v any) {
		j, err := json.Marshal(v)
		require.NoError(t, err)
		b.WriteString(label + " " + string(j) + "\n")
	}
	if o.Err != "" {
		line("error", map[string]any{"code": o.Code, "err": o.Err})
	}
	line("reply", o.Reply)
	for _, s := range o.Sent {
		line("sent", s)
	}
	line("opened", o.Opened)
	// What the reply already shows is not written again.
	mon, err := json.Marshal(o.Reply.Monitoring)
	require.NoError(t, err)
	tts, err := json.Marshal(o.Reply.ToolTraces)
	require.NoError(t, err)
	for _, s := range o.Stored {
		st := strings.Replace(string(s), `"Monitoring":`+string(mon), `"Monitoring":"<as in the reply>"`, 1)
		st = strings.Replace(st, `"ToolTraces":`+string(tts), `"ToolTraces":"<as in the reply>"`, 1)
		b.WriteString("stored " + st + "\n")
	}
	for _, p := range o.Published {
		b.WriteString("published " + published(t, p, o.Reply.Monitoring.Stages) + "\n")
	}
	line("observed", o.Observed)
	for _, f := range o.Finds {
		line("find", f)
	}
	for _, p := range o.Prompts {
		line("prompt", p)
	}
	line("held", o.Held)
	for _, l := range o.Log {
		b.WriteString("log " + l + "\n")
	}
	return normalize(t, b.String())
}

// transcriptLine is one labelled JSON line of a transcript.
func transcriptLine(t *testing.T, label string, v any) string {
	t.Helper()
	j, err := json.Marshal(v)
	require.NoError(t, err)
	return label + " " + string(j) + "\n"
}

// published is a published stage event, naming the trace entry it
// repeats rather than repeating it.
func published(t *testing.T, ev StageEvent, trace []domain.StageTrace) string {
	// Persist's duration is taken again once the turn is stored.
	unmeasured := func(st domain.StageTrace) string {
		st.Duration = 0
		b, err := json.Marshal(st)
		require.NoError(t, err)
		return string(b)
	}
	got := unmeasured(ev.Stage)
	ids := ev.SessionID + " " + ev.MessageID + " " + ev.TraceID
	for i, st := range trace {
		if unmeasured(st) == got {
			return fmt.Sprintf("%s trace[%d] %s %s", ids, i, st.Stage, st.Outcome)
		}
	}
	return ids + " " + got
}

// normalize numbers the made-up ids in order of appearance, zeroes the
// durations measured with the real clock and names the built-in
// instruction instead of quoting it.
func normalize(t *testing.T, s string) string {
	generatedID := regexp.MustCompile(`\b(msg|trc|tt)_[0-9a-f]{32}\b`)
	measured := regexp.MustCompile(`"Duration":-?[0-9]+`)
	builtin, err := json.Marshal(answer.SystemInstruction())
	require.NoError(t, err)
	s = strings.ReplaceAll(s, string(builtin[1:len(builtin)-1]), "<the built-in instruction>")
	seen := map[string]string{}
	n := map[string]int{}
	s = generatedID.ReplaceAllStringFunc(s, func(id string) string {
		if v, ok := seen[id]; ok {
			return v
		}
		prefix := id[:strings.IndexByte(id, '_')]
		n[prefix]++
		seen[id] = fmt.Sprintf("%s_#%d", prefix, n[prefix])
		return seen[id]
	})
	return measured.ReplaceAllString(s, `"Duration":0`)
}
