package turn

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/flow"
)

// encodeFlow is how a session stores its flow instance: the engine's
// state as JSON, nil when no flow runs (or the last one ended).
func encodeFlow(s *flow.State) ([]byte, *time.Time, error) {
	if s == nil || !flow.Active(s) {
		return nil, nil, nil
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, nil, err
	}
	var deadline *time.Time
	if s.Waiting && !s.Deadline.IsZero() {
		deadline = ptr(s.Deadline.UTC())
	}
	return b, deadline, nil
}

// decodeFlow reads a stored instance; bad data counts as none (the
// instance is dropped rather than failing every message of the session).
func decodeFlow(b []byte) *flow.State {
	if len(b) == 0 {
		return nil
	}
	var s flow.State
	if json.Unmarshal(b, &s) != nil || s.FlowID == "" {
		return nil
	}
	return &s
}

// flowEvents turns what one engine call did into monitoring records.
func flowEvents(tenant domain.TenantID, session string, rep flow.Reply, started, timedOut bool, at time.Time) []domain.FlowEvent {
	var out []domain.FlowEvent
	ev := func(kind domain.FlowEventKind, step int) {
		out = append(out, domain.FlowEvent{TenantID: tenant, FlowID: rep.State.FlowID, SessionID: session, Kind: kind,
			StepNo: step, TimedOut: timedOut, At: at})
	}
	if started {
		ev(domain.FlowStarted, 0)
	}
	for _, tk := range rep.Taken {
		if tk.Action == flow.ActionPrompted || tk.Action == flow.ActionWaiting {
			ev(domain.FlowStep, tk.StepNo)
		}
	}
	if rep.Ended {
		switch rep.State.Outcome {
		case flow.OutcomeCompleted:
			ev(domain.FlowCompleted, rep.State.StepNo)
		case flow.OutcomeTransferred:
			ev(domain.FlowTransferred, rep.State.StepNo)
		case flow.OutcomeTimedOut:
			ev(domain.FlowTimedOut, rep.State.StepNo)
		case flow.OutcomeInvalidInput:
			ev(domain.FlowInvalidInput, rep.State.StepNo)
		}
	}
	return out
}

// flowText is the reply text of an engine call: its messages, one per
// paragraph.
func flowText(rep flow.Reply) string {
	return strings.Join(rep.Texts, "\n\n")
}

// takenSummary describes the steps taken, for the trace.
func takenSummary(rep flow.Reply) []map[string]any {
	out := make([]map[string]any, 0, len(rep.Taken))
	for _, tk := range rep.Taken {
		m := map[string]any{"stepNo": tk.StepNo, "action": tk.Action}
		if tk.Matched != "" {
			m["matched"] = tk.Matched
		}
		if tk.Then.Kind != "" {
			then := tk.Then.Kind
			if tk.Then.Kind == flow.KindNext {
				then += ":" + strconv.Itoa(tk.Then.StepNo)
			}
			m["then"] = then
		}
		out = append(out, m)
	}
	return out
}
