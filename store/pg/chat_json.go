package pg

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// The stored JSON shapes (jsonb) of a message's sources, flow position and
// monitoring. The domain types carry no tags, so the shapes are fixed
// here, where changing one would need a migration.

type sourceJSON struct {
	DocumentID   string   `json:"documentId"`
	DocumentName string   `json:"documentName"`
	ChunkID      string   `json:"chunkId"`
	Page         *int     `json:"page,omitempty"`
	Score        float64  `json:"score"`
	HeadingPath  []string `json:"headingPath,omitempty"`
	Quote        string   `json:"quote,omitempty"`
}

type messageFlowJSON struct {
	FlowID  string `json:"flowId"`
	StepNo  int    `json:"stepNo"`
	Waiting bool   `json:"waiting"`
}

type stageJSON struct {
	Stage      string         `json:"stage"`
	StartedAt  time.Time      `json:"startedAt"`
	DurationUs int64          `json:"durationUs"`
	Outcome    string         `json:"outcome"`
	Detail     map[string]any `json:"detail,omitempty"`
}

type guardHitJSON struct {
	Stage    string    `json:"stage"`
	Kind     string    `json:"kind"`
	RefID    string    `json:"refId,omitempty"`
	Category string    `json:"category,omitempty"`
	Pattern  string    `json:"pattern"`
	Action   string    `json:"action"`
	At       time.Time `json:"at"`
}

type monitoringJSON struct {
	Stages          []stageJSON    `json:"stages"`
	RuleID          *string        `json:"ruleId,omitempty"`
	FlowID          *string        `json:"flowId,omitempty"`
	FlowStep        *int           `json:"flowStep,omitempty"`
	TemplateID      *string        `json:"templateId,omitempty"`
	TemplateVersion *int           `json:"templateVersion,omitempty"`
	GuardHits       []guardHitJSON `json:"guardHits"`
	TokensIn        int            `json:"tokensIn"`
	TokensOut       int            `json:"tokensOut"`
	Model           *string        `json:"model,omitempty"`
	Retries         int            `json:"retries"`
}

func encodeSources(in []domain.MessageSource) []byte {
	out := make([]sourceJSON, len(in))
	for i, s := range in {
		out[i] = sourceJSON{DocumentID: s.DocumentID, DocumentName: s.DocumentName, ChunkID: s.ChunkID, Page: s.Page, Score: s.Score,
			HeadingPath: s.HeadingPath, Quote: s.Quote}
	}
	b, _ := json.Marshal(out) // strings and numbers always encode
	return b
}

func decodeSources(b []byte) ([]domain.MessageSource, error) {
	var in []sourceJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return nil, fmt.Errorf("stored message sources: %w", err)
	}
	out := make([]domain.MessageSource, len(in))
	for i, s := range in {
		out[i] = domain.MessageSource{DocumentID: s.DocumentID, DocumentName: s.DocumentName, ChunkID: s.ChunkID, Page: s.Page, Score: s.Score,
			HeadingPath: s.HeadingPath, Quote: s.Quote}
	}
	return out, nil
}

func encodeMessageFlow(f *domain.MessageFlow) []byte {
	if f == nil {
		return nil
	}
	b, _ := json.Marshal(messageFlowJSON{FlowID: f.FlowID, StepNo: f.StepNo, Waiting: f.Waiting})
	return b
}

func decodeMessageFlow(b []byte) (*domain.MessageFlow, error) {
	if b == nil {
		return nil, nil
	}
	var f messageFlowJSON
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("stored message flow: %w", err)
	}
	return &domain.MessageFlow{FlowID: f.FlowID, StepNo: f.StepNo, Waiting: f.Waiting}, nil
}

// encodeMonitoring fails only when a stage's Detail holds a value that is
// not JSON-compatible, which is the caller's bug: it is reported, never
// stored half.
func encodeMonitoring(m *domain.MessageMonitoring) ([]byte, error) {
	if m == nil {
		return nil, nil
	}
	j := monitoringJSON{
		Stages: make([]stageJSON, len(m.Stages)), RuleID: m.RuleID, FlowID: m.FlowID, FlowStep: m.FlowStep,
		TemplateID: m.TemplateID, TemplateVersion: m.TemplateVersion, GuardHits: make([]guardHitJSON, len(m.GuardHits)),
		TokensIn: m.TokensIn, TokensOut: m.TokensOut, Model: m.Model, Retries: m.Retries,
	}
	for i, s := range m.Stages {
		j.Stages[i] = stageJSON{Stage: s.Stage, StartedAt: s.StartedAt.UTC(), DurationUs: s.Duration.Microseconds(), Outcome: s.Outcome, Detail: s.Detail}
	}
	for i, h := range m.GuardHits {
		j.GuardHits[i] = guardHitJSON{Stage: string(h.Stage), Kind: h.Kind, RefID: h.RefID, Category: h.Category,
			Pattern: h.Pattern, Action: h.Action, At: h.At.UTC()}
	}
	b, err := json.Marshal(j)
	if err != nil {
		return nil, fmt.Errorf("encode message monitoring: %w", err)
	}
	return b, nil
}

// decodeMonitoring restores the monitoring of a message; the guard hits
// get the message's tenant, session and id back from it.
func decodeMonitoring(b []byte, m domain.SessionMessage) (*domain.MessageMonitoring, error) {
	if b == nil {
		return nil, nil
	}
	var j monitoringJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return nil, fmt.Errorf("stored message monitoring: %w", err)
	}
	out := &domain.MessageMonitoring{
		Stages: make([]domain.StageTrace, len(j.Stages)), RuleID: j.RuleID, FlowID: j.FlowID, FlowStep: j.FlowStep,
		TemplateID: j.TemplateID, TemplateVersion: j.TemplateVersion, GuardHits: make([]domain.GuardHit, len(j.GuardHits)),
		TokensIn: j.TokensIn, TokensOut: j.TokensOut, Model: j.Model, Retries: j.Retries,
	}
	for i, s := range j.Stages {
		out.Stages[i] = domain.StageTrace{Stage: s.Stage, StartedAt: s.StartedAt.UTC(),
			Duration: time.Duration(s.DurationUs) * time.Microsecond, Outcome: s.Outcome, Detail: s.Detail}
	}
	for i, h := range j.GuardHits {
		out.GuardHits[i] = domain.GuardHit{TenantID: m.TenantID, SessionID: m.SessionID, MessageID: m.ID,
			Stage: domain.GuardStage(h.Stage), Kind: h.Kind, RefID: h.RefID, Category: h.Category,
			Pattern: h.Pattern, Action: h.Action, At: h.At.UTC()}
	}
	return out, nil
}

func encodeSlots(slots map[string]string) []byte {
	if slots == nil {
		slots = map[string]string{}
	}
	b, _ := json.Marshal(slots)
	return b
}

func decodeSlots(b []byte) (map[string]string, error) {
	slots := map[string]string{}
	if err := json.Unmarshal(b, &slots); err != nil {
		return nil, fmt.Errorf("stored session slots: %w", err)
	}
	return slots, nil
}

// encodeToolInput fails when the input holds a value that is not
// JSON-compatible.
func encodeToolInput(in map[string]any) ([]byte, error) {
	if in == nil {
		in = map[string]any{}
	}
	b, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("encode tool input: %w", err)
	}
	return b, nil
}

func decodeToolInput(b []byte) (map[string]any, error) {
	in := map[string]any{}
	if err := json.Unmarshal(b, &in); err != nil {
		return nil, fmt.Errorf("stored tool input: %w", err)
	}
	return in, nil
}
