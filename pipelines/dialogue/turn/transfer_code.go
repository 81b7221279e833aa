package turn

import (
	"strings"

	"github.com/cs-assistant/assistant/pipelines/dialogue/answer"
	"github.com/cs-assistant/assistant/pipelines/dialogue/confidence"
	"github.com/cs-assistant/assistant/pipelines/dialogue/flow"
)

// Transfer codes: the stable category of a transfer reason, for clients to
// switch on (the contract's transferCode enum).
const (
	CodeHighRisk       = "high_risk"
	CodeForbiddenWord  = "forbidden_word"
	CodeBehaviourRule  = "behaviour_rule"
	CodeOperatorReason = "operator_reason"
)

// TransferCode is the category of a transfer reason: the reason itself
// when it is one of the stable reasons (retrieval's, the provider's, an
// intent rule's default, the flow engine's), the guard's kind for
// "high_risk:<category>", "word:<id>" and "rule:<id>", and operator_reason
// for the free text an intent rule or a flow step gives. Nil without a
// reason.
func TransferCode(reason *string) *string {
	if reason == nil {
		return nil
	}
	code := transferCode(*reason)
	return &code
}

func transferCode(reason string) string {
	switch reason {
	case confidence.ReasonNoEvidence, confidence.ReasonLowScore, confidence.ReasonLowAnswerability,
		confidence.ReasonInsufficientEvidence, confidence.ReasonLowConfidence,
		answer.ReasonProviderUnavailable, ReasonIntentRule,
		flow.ReasonFlowTransfer, flow.ReasonInvalidInput, flow.ReasonTimedOut, ReasonCustomerRequest:
		return reason
	}
	switch {
	case strings.HasPrefix(reason, "high_risk:"):
		return CodeHighRisk
	case strings.HasPrefix(reason, "word:"):
		return CodeForbiddenWord
	case strings.HasPrefix(reason, "rule:"):
		return CodeBehaviourRule
	}
	return CodeOperatorReason
}
