package intent

import "github.com/cs-assistant/assistant/domain"

// The response types of a rule (domain.IntentRule.ResponseType). Each has
// its own target field in the rule.
const (
	// ResponseFixed replies with the rule's FixedText.
	ResponseFixed = "fixed"
	// ResponseRAG answers from the knowledge bases in the rule's KBIDs
	// (all of the tenant's when empty).
	ResponseRAG = "rag"
	// ResponseFlow starts the flow of the rule's FlowID.
	ResponseFlow = "flow"
	// ResponseTransfer hands over to a human, giving the rule's
	// TransferReason.
	ResponseTransfer = "transfer"
)

// The keyword modes of a rule (domain.IntentRule.KeywordMode): how many
// of its keywords must occur. An empty mode means ModeAny.
const (
	// ModeAny: one keyword suffices.
	ModeAny = "any"
	// ModeAll: every keyword must occur (in any order).
	ModeAll = "all"
)

// Limits on one rule, checked by Validate. They keep a tenant's matcher
// small and its patterns cheap.
const (
	// MaxKeywords is the most keywords a rule may have.
	MaxKeywords = 100
	// MaxKeywordBytes is the longest keyword, in bytes.
	MaxKeywordBytes = 200
	// MaxPatterns is the most patterns a rule may have.
	MaxPatterns = 20
	// MaxPatternBytes is the longest pattern, in bytes.
	MaxPatternBytes = 500
	// MaxNameRunes is the longest name, in characters.
	MaxNameRunes = 200
	// MaxFixedTextRunes is the longest fixed reply, in characters.
	MaxFixedTextRunes = 4000
	// MaxKBIDs is the most knowledge bases a rag rule may name.
	MaxKBIDs = 20
	// MaxTargetBytes is the longest flow id or transfer reason, in bytes.
	MaxTargetBytes = 500
)

// budgetName names a tenant's intent rule patterns in the error of their
// budget (safere.Budget): together they may take at most
// safere.MaxTenantSize of compiled size and safere.MaxTenantStepCost of
// work per character.
const budgetName = "intent rule patterns"

// cloneRule returns r with its own slices, so that a Matcher shares
// nothing its caller could change.
func cloneRule(r domain.IntentRule) domain.IntentRule {
	r.Keywords = append([]string(nil), r.Keywords...)
	r.Patterns = append([]string(nil), r.Patterns...)
	r.KBIDs = append([]string(nil), r.KBIDs...)
	return r
}

// outranks reports whether a is tried before b: higher priority, then
// smaller id.
func outranks(a, b *domain.IntentRule) bool {
	if a.Priority != b.Priority {
		return a.Priority > b.Priority
	}
	return a.ID < b.ID
}
