package turn

import (
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/guard"
	"github.com/cs-assistant/assistant/pipelines/dialogue/tools"
)

// Tools the pipeline calls, as the registry of GET /chat/tools names them.
const (
	toolKBSearch = tools.ToolKBSearch
	toolHandoff  = tools.ToolHandoff
	toolSlotFill = tools.ToolSlotFill
)

// journal is what the stages of one message did, in order: the stage
// traces, the tool calls, and the monitoring records stored with the
// reply. Stages add to it; none decides anything from what another added.
type journal struct {
	stages []domain.StageTrace
	// ran are the stages recorded so far, by name.
	ran     map[string]bool
	tools   []domain.ToolTrace
	records domain.TurnRecords
}

func newJournal() *journal { return &journal{ran: map[string]bool{}} }

// stage records one stage: call the returned function when it ends.
func (m msg) stage(name string) func(outcome string, detail map[string]any) {
	start := time.Now()
	at := m.now().UTC()
	return func(outcome string, detail map[string]any) {
		m.record(domain.StageTrace{Stage: name, StartedAt: at, Duration: time.Since(start), Outcome: outcome, Detail: detail})
	}
}

// record adds a stage to the trace and publishes it to the session's
// watchers (not in a dry run).
func (m msg) record(st domain.StageTrace) {
	m.log.ran[st.Stage] = true
	m.log.stages = append(m.log.stages, st)
	m.observeStage(st)
	if !m.dry {
		m.publish(st)
	}
}

func (m msg) publish(st domain.StageTrace) {
	m.r.d.Observer.publish(m.in.Tenant, StageEvent{SessionID: m.sessionID(), MessageID: m.messageID, TraceID: m.traceID, Stage: st})
}

// skipRest records the stages between the last one run and persist as
// skipped, so every trace names all ten.
func (m msg) skipRest() {
	for _, name := range Stages() {
		if name == StagePersist {
			return
		}
		if !m.log.ran[name] {
			m.record(domain.StageTrace{Stage: name, StartedAt: m.now().UTC(), Outcome: OutcomeSkipped})
		}
	}
}

// trace records a tool call.
func (m msg) trace(tool string, input map[string]any, output string, latency time.Duration, err error) {
	tt := domain.ToolTrace{ID: domain.NewID(domain.PrefixToolTrace), TenantID: m.in.Tenant, SessionID: m.sessionID(),
		MessageID: m.messageID, Tool: tool, Input: input, Output: output, Latency: latency, At: m.now().UTC()}
	if err != nil {
		tt.Error = ptr(err.Error())
	}
	m.log.tools = append(m.log.tools, tt)
}

// guardHits records the hits of a guard check.
func (m msg) guardHits(stage domain.GuardStage, hits []guard.Hit) {
	for _, h := range hits {
		gh := domain.GuardHit{TenantID: m.in.Tenant, SessionID: m.sessionID(), MessageID: m.messageID, Stage: stage,
			Kind: h.Kind, RefID: h.ID, Category: h.Category, Pattern: h.Pattern, Action: string(h.Action), At: m.now().UTC()}
		m.log.records.GuardHits = append(m.log.records.GuardHits, gh)
	}
}

// addFlowEvents records what a flow engine call did.
func (m msg) addFlowEvents(evs []domain.FlowEvent) {
	m.log.records.FlowEvents = append(m.log.records.FlowEvents, evs...)
}
