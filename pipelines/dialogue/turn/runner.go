package turn

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/cs-assistant/assistant/analysis"
	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/flow"
	"github.com/cs-assistant/assistant/pipelines/dialogue/guard"
)

// Stage names, in order.
const (
	StageAuth        = "auth"
	StageSession     = "session"
	StageInputGuard  = "input_guard"
	StageFlow        = "flow"
	StageIntent      = "intent"
	StageRetrieval   = "retrieval"
	StagePrompt      = "prompt"
	StageGeneration  = "generation"
	StageOutputGuard = "output_guard"
	StagePersist     = "persist"
)

// Stages lists the stage names in order.
func Stages() []string {
	return []string{StageAuth, StageSession, StageInputGuard, StageFlow, StageIntent,
		StageRetrieval, StagePrompt, StageGeneration, StageOutputGuard, StagePersist}
}

// Outcome of a stage that did not run because an earlier one answered.
const OutcomeSkipped = "skipped"

// MaxMessageRunes bounds a customer's message.
const MaxMessageRunes = 4000

// Runner runs messages through the stages. It is safe for concurrent use.
type Runner struct {
	d   Deps
	sum summarizer
	// stopping ends when Interrupt is called (see Drain); interrupt ends it.
	stopping  context.Context
	interrupt context.CancelCauseFunc
}

// New returns a runner.
func New(d Deps) *Runner {
	if d.Observer == nil {
		d.Observer = NewObserver()
	}
	if d.Replays == nil {
		d.Replays = NewReplays(d.Now)
	}
	r := &Runner{d: d, sum: summarizer{models: d.Models, prompts: d.Prompts, now: d.now}}
	r.stopping, r.interrupt = context.WithCancelCause(context.Background())
	return r
}

// Observer returns the runtime observer the runner publishes to.
func (r *Runner) Observer() *Observer { return r.d.Observer }

// run is one message on its way through the stages.
type run struct {
	r   *Runner
	ctx context.Context
	in  Input
	dry bool

	session domain.ChatSession
	// window is the newest messages before this one, oldest first.
	window []domain.SessionMessage
	user   domain.SessionMessage
	reply  Reply
	guard  *guard.Guard

	flowState *flow.State
	// rules are the tenant's slot definitions, read once (slotRules).
	rules *domain.SlotRules
	// refusedSlots are slots a flow or the decomposition filled that the
	// definitions do not allow in the session.
	refusedSlots []string
	// ranStages are the stages recorded so far, by name.
	ranStages map[string]bool

	intentHit   *domain.IntentHit
	intentRan   bool
	flowEvents  []domain.FlowEvent
	renders     []domain.PromptRender
	guardHits   []domain.GuardHit
	retrievals  []domain.RetrievalEvent
	seq         int
	events      []domain.ReplyEvent
	clientGone  bool
	interrupted bool
	// shuttingDown: Interrupt stopped the generation, not the client.
	shuttingDown bool
}

// Handle answers one message. Errors are bad input (CodeValidation), an
// unknown session (CodeNotFound) or the platform's own; a model provider's
// failure is a transfer, never an error. With in.Stream set the reply is
// also sent as events, the last of which is done or error.
func (r *Runner) Handle(ctx context.Context, in Input) (Reply, error) {
	if err := checkMessage(in.Message); err != nil {
		return Reply{}, err
	}
	t := &run{r: r, ctx: ctx, in: in, dry: in.DryRun != nil, ranStages: map[string]bool{}}
	t.reply = Reply{TraceID: r.traceID(ctx), Status: domain.MessageComplete}
	t.stageAuth()
	if err := t.stageSession(); err != nil {
		return Reply{}, err
	}
	if !t.dry && in.Stream != nil {
		r.d.Replays.start(in.Tenant, t.session.ID, t.reply.MessageID)
	}
	if err := t.emit(Event{Name: EventMeta, Meta: &Meta{SessionID: t.session.ID, MessageID: t.reply.MessageID, TraceID: t.reply.TraceID}}); err != nil {
		t.interrupted = true
	}
	err := t.stages()
	if err != nil && !t.interrupted {
		t.fail(err)
		return Reply{}, err
	}
	t.reply.CreatedAt = r.d.now().UTC()
	if t.interrupted {
		t.reply.Status = domain.MessageInterrupted
		msg := "The client went away; the reply was stored as far as it got."
		if t.shuttingDown {
			msg = "The service is restarting; the reply was stored as far as it got. Send the message again."
		}
		t.emitLast(Event{Name: EventError, Code: "interrupted", Message: msg})
	} else {
		t.emitLast(Event{Name: EventDone, Reply: &t.reply})
	}
	if err := t.stagePersist(); err != nil {
		return Reply{}, err
	}
	if !t.dry && in.Stream != nil {
		// Stored with its events: a resume reads them from the store now.
		r.d.Replays.forget(t.reply.MessageID)
	}
	t.logReply()
	return t.reply, nil
}

// stages runs 3–9; an error ends the message (the caller reports it).
func (t *run) stages() error {
	var err error
	if t.guard, err = t.r.d.Guards.For(t.ctx, t.in.Tenant); err != nil {
		return err
	}
	if t.stageInputGuard() {
		return t.textReply(false)
	}
	done, err := t.stageFlow()
	if err != nil {
		return err
	}
	if done {
		return t.textReply(true)
	}
	done, kbIDs, err := t.stageIntent()
	if err != nil {
		return err
	}
	if done {
		return t.textReply(true)
	}
	return t.answer(kbIDs)
}

func checkMessage(m string) error {
	if strings.TrimSpace(m) == "" {
		return domain.Invalid("/message", "must not be blank")
	}
	if n := len([]rune(m)); n > MaxMessageRunes {
		return domain.Invalid("/message", "must be at most 4000 characters")
	}
	return nil
}

// fail reports an error that ended the message as the stream's last event.
func (t *run) fail(err error) {
	code := string(domain.ErrorCodeOf(err))
	msg := "The reply failed; quote the trace id when reporting it."
	var de *domain.Error
	if errors.As(err, &de) && de.Code != domain.CodeInternal {
		msg = de.Message
	}
	t.emitLast(Event{Name: EventError, Code: code, Message: msg})
}

// stage records one stage: call the returned function when it ends.
func (t *run) stage(name string) func(outcome string, detail map[string]any) {
	start := time.Now()
	at := t.r.d.now().UTC()
	return func(outcome string, detail map[string]any) {
		st := domain.StageTrace{Stage: name, StartedAt: at, Duration: time.Since(start), Outcome: outcome, Detail: detail}
		t.record(st)
	}
}

func (t *run) record(st domain.StageTrace) {
	t.ranStages[st.Stage] = true
	t.reply.Monitoring.Stages = append(t.reply.Monitoring.Stages, st)
	t.observeStage(st)
	if !t.dry {
		t.r.d.Observer.publish(t.in.Tenant, StageEvent{SessionID: t.session.ID, MessageID: t.reply.MessageID,
			TraceID: t.reply.TraceID, Stage: st})
	}
}

// skipRest records the stages between the last one run and persist as
// skipped, so every trace names all ten.
func (t *run) skipRest() {
	for _, name := range Stages() {
		if name == StagePersist {
			return
		}
		if !t.ranStages[name] {
			t.record(domain.StageTrace{Stage: name, StartedAt: t.r.d.now().UTC(), Outcome: OutcomeSkipped})
		}
	}
}

func (t *run) stageAuth() {
	done := t.stage(StageAuth)
	detail := map[string]any{"tenantId": string(t.in.Tenant)}
	if t.in.KeyID != "" {
		detail["keyId"] = t.in.KeyID
	}
	done("authenticated", detail)
}

// transfer makes the reply a hand-off.
func (t *run) transfer(reason, text string) {
	t.reply.ResponseType = ResponseTransfer
	t.reply.ShouldTransfer = true
	t.reply.TransferReason = &reason
	if text == "" {
		text = t.handoffMessage()
	}
	t.reply.Answer = text
	t.trace(toolHandoff, map[string]any{"reason": reason}, "handed over: "+reason, 0, nil)
}

// handoffMessage is the tenant's hand-off text in the language of the
// customer's message, or the built-in one of that language.
func (t *run) handoffMessage() string {
	lang := analysis.Language(t.in.Message)
	s, err := t.r.d.Settings.GetSettings(t.ctx, t.in.Tenant)
	if err != nil {
		// The hand-off must reach the customer even when the settings
		// cannot be read; the built-in text says the same.
		return domain.TenantSettings{}.HandoffMessage(lang)
	}
	return s.HandoffMessage(lang)
}

func ptr[T any](v T) *T { return &v }
