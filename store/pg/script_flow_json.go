package pg

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// The steps of a script flow are stored as one jsonb array in the shape
// below. The domain types have no tags, so the stored shape is fixed here,
// where a change would need a migration. Field names follow the contract's
// snake_case step fields; the timeout is kept in milliseconds.
type flowStepJSON struct {
	StepNo      int              `json:"step_no"`
	Prompt      string           `json:"prompt"`
	WaitInput   bool             `json:"wait_input,omitempty"`
	Expect      *flowExpectJSON  `json:"expect,omitempty"`
	Branches    []flowBranchJSON `json:"branches,omitempty"`
	DefaultNext *flowTargetJSON  `json:"default_next,omitempty"`
	TimeoutMS   int64            `json:"timeout_ms,omitempty"`
	OnTimeout   *flowTargetJSON  `json:"on_timeout,omitempty"`
}

type flowExpectJSON struct {
	Options     []string        `json:"options,omitempty"`
	Regex       string          `json:"regex,omitempty"`
	Slot        string          `json:"slot,omitempty"`
	RetryPrompt string          `json:"retry_prompt,omitempty"`
	MaxRetries  int             `json:"max_retries,omitempty"`
	OnInvalid   *flowTargetJSON `json:"on_invalid,omitempty"`
}

type flowBranchJSON struct {
	Option string         `json:"option"`
	Then   flowTargetJSON `json:"then"`
}

type flowTargetJSON struct {
	Kind   string `json:"kind"`
	StepNo int    `json:"step_no,omitempty"`
	Reason string `json:"reason,omitempty"`
	Text   string `json:"text,omitempty"`
}

// encodeFlowSteps renders steps for the steps column (never null: an empty
// flow is "[]", which validation refuses before it gets here).
func encodeFlowSteps(steps []domain.ScriptFlowStep) []byte {
	out := make([]flowStepJSON, len(steps))
	for i, s := range steps {
		out[i] = flowStepJSON{
			StepNo: s.StepNo, Prompt: s.Prompt, WaitInput: s.WaitInput,
			DefaultNext: targetToJSON(s.DefaultNext), TimeoutMS: s.Timeout.Milliseconds(), OnTimeout: targetToJSON(s.OnTimeout),
		}
		if e := s.Expect; e != nil {
			out[i].Expect = &flowExpectJSON{
				Options: e.Options, Regex: e.Regex, Slot: e.Slot, RetryPrompt: e.RetryPrompt,
				MaxRetries: e.MaxRetries, OnInvalid: targetToJSON(e.OnInvalid),
			}
		}
		for _, b := range s.Branches {
			out[i].Branches = append(out[i].Branches, flowBranchJSON{Option: b.Option, Then: *targetToJSON(&b.Then)})
		}
	}
	b, _ := json.Marshal(out) // strings, numbers and booleans always encode
	return b
}

// decodeFlowSteps reads the steps column back.
func decodeFlowSteps(b []byte) ([]domain.ScriptFlowStep, error) {
	var in []flowStepJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return nil, fmt.Errorf("decode script flow steps: %w", err)
	}
	steps := make([]domain.ScriptFlowStep, len(in))
	for i, s := range in {
		steps[i] = domain.ScriptFlowStep{
			StepNo: s.StepNo, Prompt: s.Prompt, WaitInput: s.WaitInput,
			DefaultNext: targetFromJSON(s.DefaultNext), Timeout: time.Duration(s.TimeoutMS) * time.Millisecond,
			OnTimeout: targetFromJSON(s.OnTimeout),
		}
		if e := s.Expect; e != nil {
			steps[i].Expect = &domain.ScriptFlowExpect{
				Options: e.Options, Regex: e.Regex, Slot: e.Slot, RetryPrompt: e.RetryPrompt,
				MaxRetries: e.MaxRetries, OnInvalid: targetFromJSON(e.OnInvalid),
			}
		}
		for _, b := range s.Branches {
			steps[i].Branches = append(steps[i].Branches, domain.ScriptFlowBranch{Option: b.Option, Then: *targetFromJSON(&b.Then)})
		}
	}
	return steps, nil
}

func targetToJSON(t *domain.ScriptFlowTarget) *flowTargetJSON {
	if t == nil {
		return nil
	}
	return &flowTargetJSON{Kind: t.Kind, StepNo: t.StepNo, Reason: t.Reason, Text: t.Text}
}

func targetFromJSON(t *flowTargetJSON) *domain.ScriptFlowTarget {
	if t == nil {
		return nil
	}
	return &domain.ScriptFlowTarget{Kind: t.Kind, StepNo: t.StepNo, Reason: t.Reason, Text: t.Text}
}
