package intent

// ResponseType says how a matched rule is answered.
type ResponseType string

// The response types. Each has its own target field in Rule.
const (
	// ResponseFixed replies with Rule.FixedText.
	ResponseFixed ResponseType = "fixed"
	// ResponseRAG answers from the knowledge bases in Rule.KBIDs (all of
	// the tenant's when empty).
	ResponseRAG ResponseType = "rag"
	// ResponseFlow starts the flow Rule.FlowID.
	ResponseFlow ResponseType = "flow"
	// ResponseTransfer hands over to a human, giving Rule.TransferReason.
	ResponseTransfer ResponseType = "transfer"
)

// KeywordMode says how many of a rule's keywords must occur.
type KeywordMode string

// The keyword modes. An empty mode means ModeAny.
const (
	// ModeAny: one keyword suffices.
	ModeAny KeywordMode = "any"
	// ModeAll: every keyword must occur (in any order).
	ModeAll KeywordMode = "all"
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

// Rule is one intent rule of a tenant.
type Rule struct {
	// ID is the rule's id; ids order equal priorities (see the package
	// documentation).
	ID string
	// Name is for people; it is not matched.
	Name string
	// Keywords are matched on the normalised message.
	Keywords []string
	// Mode says whether any or all keywords must occur; empty means any.
	Mode KeywordMode
	// Patterns are RE2 expressions, matched case-insensitively.
	Patterns []string
	// Priority orders the rules: higher wins.
	Priority int
	// Response says how to answer; its target is one of the four fields
	// below, and the others are empty.
	Response ResponseType
	// FixedText is the reply of a fixed rule.
	FixedText string
	// KBIDs are the knowledge bases of a rag rule; empty means all.
	KBIDs []string
	// FlowID is the flow of a flow rule.
	FlowID string
	// TransferReason is the reason given with a transfer.
	TransferReason string
	// Enabled rules take part in matching; disabled ones can be tested.
	Enabled bool
}

// clone returns r with its own slices, so that a Matcher shares nothing
// its caller could change.
func (r Rule) clone() Rule {
	r.Keywords = append([]string(nil), r.Keywords...)
	r.Patterns = append([]string(nil), r.Patterns...)
	r.KBIDs = append([]string(nil), r.KBIDs...)
	return r
}

// outranks reports whether a is tried before b: higher priority, then
// smaller id.
func outranks(a, b *Rule) bool {
	if a.Priority != b.Priority {
		return a.Priority > b.Priority
	}
	return a.ID < b.ID
}
