package turn

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/answer"
	"github.com/cs-assistant/assistant/pipelines/dialogue/decompose"
	"github.com/cs-assistant/assistant/pipelines/dialogue/flow"
	"github.com/cs-assistant/assistant/pipelines/dialogue/guard"
	"github.com/cs-assistant/assistant/pipelines/dialogue/intent"
)

// Fakes of the runner's collaborators (deps.go). Each keeps what it was
// asked in memory; a method the runner must not call panics through the
// nil interface a fake embeds.

// fakeChat is a conversation store of one tenant's sessions.
type fakeChat struct {
	domain.ChatStore
	mu       sync.Mutex
	sessions map[string]domain.ChatSession
	// window are the messages of each session before the new one.
	window map[string][]domain.SessionMessage
	// opened are the customers' messages stored by OpenTurn.
	opened []domain.SessionMessage
	// saved are the turns SaveTurn stored, as JSON taken at the call (so
	// later changes to the runner's values do not show).
	saved   []string
	saveErr error
	// events are stored reply events, for Resume.
	events []domain.ReplyEvent
	// due are the sessions DueFlows returns; timeouts the turns
	// SaveFlowTimeout stored, with the state they expected.
	due      []domain.ChatSession
	timeouts []domain.Turn
	expected [][]byte
	casLost  bool
	purged   int
}

func newFakeChat() *fakeChat {
	return &fakeChat{sessions: map[string]domain.ChatSession{}, window: map[string][]domain.SessionMessage{}}
}

func (c *fakeChat) session(tenant domain.TenantID, id string) (domain.ChatSession, error) {
	s, ok := c.sessions[id]
	if !ok || s.TenantID != tenant {
		return domain.ChatSession{}, domain.Errorf(domain.CodeNotFound, "No session %s.", id)
	}
	return s, nil
}

func (c *fakeChat) newest(id string, n int) []domain.SessionMessage {
	w := c.window[id]
	if len(w) > n {
		w = w[len(w)-n:]
	}
	return append([]domain.SessionMessage(nil), w...)
}

func (c *fakeChat) OpenTurn(_ context.Context, m domain.SessionMessage, window int) (domain.ChatSession, []domain.SessionMessage, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, err := c.session(m.TenantID, m.SessionID)
	if err != nil {
		return domain.ChatSession{}, nil, err
	}
	c.opened = append(c.opened, m)
	return s, c.newest(s.ID, window), nil
}

func (c *fakeChat) GetSession(_ context.Context, tenant domain.TenantID, id string) (domain.ChatSession, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.session(tenant, id)
}

func (c *fakeChat) RecentMessages(_ context.Context, _ domain.TenantID, id string, n int) ([]domain.SessionMessage, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.newest(id, n), nil
}

func (c *fakeChat) SaveTurn(_ context.Context, t domain.Turn) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.saveErr != nil {
		return c.saveErr
	}
	b, err := json.Marshal(asStored(t))
	if err != nil {
		return err
	}
	c.saved = append(c.saved, string(b))
	c.events = append(c.events, t.Events...)
	return nil
}

func (c *fakeChat) GetMessage(_ context.Context, _ domain.TenantID, session, id string) (domain.SessionMessage, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ev := range c.events {
		if ev.MessageID == id && ev.SessionID == session {
			return domain.SessionMessage{ID: id, SessionID: session}, nil
		}
	}
	return domain.SessionMessage{}, domain.Errorf(domain.CodeNotFound, "No message %s.", id)
}

func (c *fakeChat) ReplyEvents(_ context.Context, _ domain.TenantID, id string, after int) ([]domain.ReplyEvent, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []domain.ReplyEvent
	for _, ev := range c.events {
		if ev.MessageID == id && ev.Seq > after {
			out = append(out, ev)
		}
	}
	return out, nil
}

func (c *fakeChat) DueFlows(context.Context, time.Time, int) ([]domain.ChatSession, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.due, nil
}

func (c *fakeChat) SaveFlowTimeout(_ context.Context, expected []byte, t domain.Turn) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.casLost {
		return false, nil
	}
	c.timeouts, c.expected = append(c.timeouts, t), append(c.expected, expected)
	return true, nil
}

func (c *fakeChat) PurgeReplyEvents(context.Context, time.Time) (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.purged++
	return 0, nil
}

// noModels has no model configured: summaries are extractive.
type noModels struct{}

func (noModels) For(context.Context, domain.TenantID, domain.UsageType) (domain.ChatModel, error) {
	return nil, domain.Errorf(domain.CodeNotFound, "No model configured.")
}

// storedTurn is a turn with its events' data shown as the JSON it is.
type storedTurn struct {
	domain.Turn
	Events []storedEvent
}

type storedEvent struct {
	domain.ReplyEvent
	Data json.RawMessage
}

func asStored(t domain.Turn) storedTurn {
	out := storedTurn{Turn: t}
	for _, ev := range t.Events {
		out.Events = append(out.Events, storedEvent{ReplyEvent: ev, Data: ev.Data})
	}
	return out
}

// fakeTenants names every tenant "Acme".
type fakeTenants struct{}

func (fakeTenants) Resolve(_ context.Context, id domain.TenantID) (domain.Tenant, error) {
	return domain.Tenant{ID: id, Name: "Acme"}, nil
}

// fakeSettings gives one tenant's settings, or err.
type fakeSettings struct {
	domain.SettingsStore
	s   domain.TenantSettings
	err error
}

func (f fakeSettings) GetSettings(context.Context, domain.TenantID) (domain.TenantSettings, error) {
	return f.s, f.err
}

// fakeRules compiles the rules it holds.
type fakeRules struct {
	rules []domain.IntentRule
	err   error
}

func (f fakeRules) Matcher(context.Context, domain.TenantID) (*intent.Matcher, error) {
	if f.err != nil {
		return nil, f.err
	}
	return intent.Compile(f.rules)
}

// fakeFlow is one stored flow.
type fakeFlow struct {
	flow     domain.ScriptFlow
	disabled bool
	err      error
}

// fakeFlows holds flows by id; an unknown one is CodeNotFound.
type fakeFlows map[string]fakeFlow

func (f fakeFlows) Flow(_ context.Context, _ domain.TenantID, id string) (*flow.Compiled, bool, error) {
	ff, ok := f[id]
	if !ok {
		return nil, false, domain.Errorf(domain.CodeNotFound, "No flow %s.", id)
	}
	if ff.err != nil {
		return nil, false, ff.err
	}
	return mustCompile(ff.flow), !ff.disabled, nil
}

// mustCompile is a test flow compiled as the flow cache gives it.
func mustCompile(f domain.ScriptFlow) *flow.Compiled {
	c, err := flow.Compile(f)
	if err != nil {
		var fields any
		if e, ok := err.(*domain.Error); ok {
			fields = e.Fields
		}
		panic(fmt.Sprintf("flow %s: %v %+v", f.ID, err, fields))
	}
	return c
}

// fakePrompts publishes at most one chat template.
type fakePrompts struct {
	chat *domain.PromptVersion
	err  error
}

func (f fakePrompts) PublishedPrompt(_ context.Context, _ domain.TenantID, scene string) (domain.PromptVersion, error) {
	if f.err != nil {
		return domain.PromptVersion{}, f.err
	}
	if f.chat == nil || scene != string(domain.SceneChat) {
		return domain.PromptVersion{}, domain.Errorf(domain.CodeNotFound, "No published template.")
	}
	return *f.chat, nil
}

// fakeGuards compiles one configuration.
type fakeGuards struct {
	cfg guard.Config
	err error
}

func (f fakeGuards) For(context.Context, domain.TenantID) (*guard.Guard, error) {
	if f.err != nil {
		return nil, f.err
	}
	return guard.Compile(f.cfg)
}

// fakeDecomposer returns one result for every message.
type fakeDecomposer struct {
	res decompose.Result
	ok  bool
	err error
}

func (f fakeDecomposer) Message(context.Context, domain.TenantID, string) (decompose.Result, bool, error) {
	return f.res, f.ok, f.err
}

// fakeSlots gives slot definitions.
type fakeSlots struct {
	defs []domain.SlotDefinition
	err  error
}

func (f fakeSlots) SlotRules(context.Context, domain.TenantID) (domain.SlotRules, error) {
	return domain.NewSlotRules(f.defs), f.err
}

// fakeMetadata gives metadata fields.
type fakeMetadata struct {
	fields []domain.MetadataField
	err    error
}

func (f fakeMetadata) MetadataFields(context.Context, domain.TenantID, domain.MetadataFieldFilter) ([]domain.MetadataField, error) {
	return f.fields, f.err
}

// fakeTelemetry keeps the stages it observed and gives no trace id.
type fakeTelemetry struct {
	mu     sync.Mutex
	stages []string
}

func (*fakeTelemetry) TraceID(context.Context) string { return "" }

func (f *fakeTelemetry) Stage(_ context.Context, st domain.StageTrace) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stages = append(f.stages, st.Stage+":"+st.Outcome)
}

// generation is what the fake model does.
type generation struct {
	// thoughts and deltas are streamed in turn (all thoughts first); the
	// answer is the deltas joined.
	thoughts, deltas []string
	// providerDown fails the provider (a transfer, never an error).
	providerDown bool
	// hang waits until the context ends (a cancelled or interrupted
	// generation), after streaming the deltas.
	hang bool
	// err fails the platform.
	err error
	// retries the provider needed.
	retries int
}

// fakeAnswerer retrieves what find says and generates what gen says, as
// answer.Answerer would with a model that did it.
type fakeAnswerer struct {
	mu    sync.Mutex
	find  func(req answer.Request) (answer.Outcome, error)
	gen   generation
	finds []answer.Request
	// prompts are the prompts Generate was given.
	prompts [][]domain.ChatMessage
	// during, when set, runs as the model starts generating.
	during func()
}

func (a *fakeAnswerer) Find(_ context.Context, _ domain.TenantID, req answer.Request) (answer.Outcome, error) {
	a.mu.Lock()
	a.finds = append(a.finds, req)
	a.mu.Unlock()
	return a.find(req)
}

func (a *fakeAnswerer) Generate(ctx context.Context, _ domain.TenantID, out answer.Outcome, _ answer.ModelChoice,
	piece func(domain.StreamEvent) error) (answer.Outcome, error) {
	a.mu.Lock()
	a.prompts = append(a.prompts, out.Prompt)
	a.mu.Unlock()
	g := a.gen
	if a.during != nil {
		a.during()
	}
	name := "openai_compatible:fake"
	out.Model = &name
	out.Generate = 7 * time.Millisecond
	if g.err != nil {
		return out, g.err
	}
	if g.providerDown {
		out.Transfer = &answer.Transfer{Code: answer.ReasonProviderUnavailable, Confidence: out.Retrieval.Decision.Confidence}
		return out, nil
	}
	if piece != nil {
		if err := streamPieces(piece, g); err != nil {
			if ctx.Err() != nil {
				return out, ctx.Err()
			}
			return out, err
		}
	}
	if g.hang {
		<-ctx.Done()
		return out, ctx.Err()
	}
	text := strings.Join(g.deltas, "")
	if strings.TrimSpace(text) == "" {
		out.Transfer = &answer.Transfer{Code: "low_answerability"}
		return out, nil
	}
	out.Answer = &text
	if th := strings.Join(g.thoughts, ""); th != "" {
		out.Thought = &th
	}
	out.PromptTokens, out.CompletionTokens, out.Retries = 120, 30, g.retries
	return out, nil
}

func streamPieces(piece func(domain.StreamEvent) error, g generation) error {
	for _, th := range g.thoughts {
		if err := piece(domain.StreamEvent{Thought: th}); err != nil {
			return err
		}
	}
	for _, d := range g.deltas {
		if err := piece(domain.StreamEvent{Delta: d}); err != nil {
			return err
		}
	}
	return nil
}

// errStore is a platform failure of a store.
const errStore = sentinel("store: connection reset")
