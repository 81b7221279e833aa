package turn

import (
	"context"
	"strings"

	"github.com/cs-assistant/assistant/domain"
)

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

// Handle answers one message. Errors are bad input (CodeValidation), an
// unknown session (CodeNotFound) or the platform's own; a model provider's
// failure is a transfer, never an error. With in.Stream set the reply is
// also sent as events, the last of which is done or error.
func (r *Runner) Handle(ctx context.Context, in Input) (Reply, error) {
	if err := checkMessage(in.Message); err != nil {
		return Reply{}, err
	}
	m := r.open(ctx, in)
	m.auth()                // StageAuth
	ses, err := m.session() // StageSession
	if err != nil {
		return Reply{}, err
	}
	m = m.opened(ses)      // the stream opens with the meta event
	fin, err := m.answer() // StageInputGuard … StageOutputGuard
	if err == nil {
		m.skipRest()
		err = m.sendEnd(fin)
	}
	if err != nil && !m.interrupted(fin) {
		m.fail(err)
		return Reply{}, err
	}
	return m.finish(fin) // the done (or error) event, then StagePersist
}

// answer runs stages 3–9 in a line, JSON and streamed replies alike: each
// stage takes the outcome of the one before. A stage that decides the
// reply ends the line: a gate stage's text is checked and sent whole, a
// hand-off says so; the stages it skipped are recorded as skipped. On an
// error the reply is as far as the stages got (stored when the client has
// gone, reported otherwise).
func (m msg) answer() (final, error) {
	g, err := m.r.d.Guards.For(m.ctx, m.in.Tenant)
	if err != nil {
		return final{draft: m.ses.draft()}, err
	}
	m.guard = g
	gate, err := m.gate(m.ses.draft()) // StageHandoff … StageIntent
	if err != nil {
		return final{draft: gate.draft}, err
	}
	if gate.silent {
		return final{draft: gate.draft}, nil
	}
	if gate.answered {
		return m.checkText(gate.draft), nil // StageOutputGuard
	}
	ret, err := m.retrieval(gate) // StageRetrieval
	if err != nil {
		return final{draft: ret.draft}, err
	}
	if ret.found.Transfer != nil {
		return m.handedOff(ret.draft, ret.found, false), nil
	}
	pr := m.prompt(ret)          // StagePrompt
	gen, err := m.generation(pr) // StageGeneration
	if err != nil || gen.interrupted {
		return gen.final(), err
	}
	if gen.found.Transfer != nil {
		return m.handedOff(gen.draft, gen.found, gen.stream.releasedAny()), nil
	}
	return m.outputGuard(gen), nil // StageOutputGuard
}

// gate runs the stages that may decide the reply before retrieval: the
// hand-off gate, the input guard, the session's running flow, the intent
// rules.
func (m msg) gate(d draft) (gateOutcome, error) {
	if ho := m.handoff(d); ho.answered { // StageHandoff
		return ho, nil
	}
	in := m.inputGuard(d) // StageInputGuard
	if in.answered {
		return in, nil
	}
	fl, err := m.flow(in) // StageFlow
	if err != nil || fl.answered {
		return fl, err
	}
	return m.intent(fl) // StageIntent
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

func ptr[T any](v T) *T { return &v }

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
