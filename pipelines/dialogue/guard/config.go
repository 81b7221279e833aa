package guard

// MatchMode says how a forbidden word must sit in the text to count.
type MatchMode string

// Match modes.
const (
	// ModeExact matches a whole word: on each side where the word ends in
	// a letter or digit of a script written with spaces, the neighbouring
	// character must not be a letter or digit, so "ass" does not hit
	// "class". Sides in Chinese, Japanese, Korean, Thai, Lao, Khmer or
	// Myanmar script need no boundary, because those scripts do not
	// separate words with spaces: an exact CJK word matches as the exact
	// string. The default for a word.
	ModeExact MatchMode = "exact"
	// ModeContains matches the word anywhere, inside other words too.
	ModeContains MatchMode = "contains"
)

// Action is what a hit does to the answer.
type Action string

// Actions. A forbidden word takes mask, block or transfer; a behaviour
// rule takes replace, append or transfer.
const (
	// ActionMask replaces the matched text with the word's replacement
	// (by default one "*" per character) and keeps the rest of the answer.
	ActionMask Action = "mask"
	// ActionBlock withholds the whole answer and releases the safe text.
	ActionBlock Action = "block"
	// ActionTransfer withholds the answer, releases the safe text (or the
	// rule's text) and hands the conversation to a human.
	ActionTransfer Action = "transfer"
	// ActionReplace withholds the answer and releases the rule's text.
	ActionReplace Action = "replace"
	// ActionAppend keeps the answer and appends the rule's notice.
	ActionAppend Action = "append"
)

// Behaviour rule kinds: what the condition on the generated text is.
const (
	// RuleContains: the text contains Pattern (matched like a contains
	// forbidden word: case-, width- and NFKC-folded).
	RuleContains = "contains"
	// RuleRegex: Pattern, an RE2 regular expression, matches the
	// normalised text (see the package documentation).
	RuleRegex = "regex"
	// RuleHighRisk: the text hits the high-risk list of Category, or of
	// any category when Category is empty. In an answer such a rule takes
	// over from the default high-risk handling of the categories it names.
	RuleHighRisk = "high_risk"
)

// High-risk categories of the built-in lists. A tenant may add lists
// under other category names too.
const (
	// CategorySelfHarm: suicide and self-injury.
	CategorySelfHarm = "self_harm"
	// CategoryThreat: threats of violence against people.
	CategoryThreat = "threat"
	// CategoryLegalEmergency: abuse, kidnapping, extortion and the like.
	CategoryLegalEmergency = "legal_emergency"
	// CategoryMedicalEmergency: acute medical danger.
	CategoryMedicalEmergency = "medical_emergency"
)

// budgetName names a tenant's guardrail regular expressions (its rules'
// and its high-risk lists', the built-in lists' with them) in the error of
// their budget (safere.Budget).
const budgetName = "guardrail regular expressions"

// MaxPatternRunes bounds a word or keyword, in characters after
// normalisation. A stream holds back as many characters as the longest
// one, so a long word would delay every answer of the tenant.
const MaxPatternRunes = 64

// ForbiddenWord is one word a tenant does not want in its answers.
type ForbiddenWord struct {
	// ID identifies the word in hits and reasons.
	ID string
	// Word is the text to find; surrounding spaces are ignored.
	Word string
	// Mode is ModeExact (the default) or ModeContains.
	Mode MatchMode
	// Action is ActionMask (the default), ActionBlock or ActionTransfer.
	Action Action
	// Replacement replaces the matched text under ActionMask; empty means
	// one "*" per character of the matched text as written.
	Replacement string
}

// BehaviorRule is a condition on the generated answer and what to do when
// it holds.
type BehaviorRule struct {
	// ID identifies the rule in hits and reasons.
	ID string
	// Name is the rule's label, used in error messages.
	Name string
	// Kind is RuleContains, RuleRegex or RuleHighRisk.
	Kind string
	// Pattern is the text (RuleContains) or regular expression
	// (RuleRegex) to find.
	Pattern string
	// Category is the high-risk category of a RuleHighRisk rule; empty
	// means any.
	Category string
	// Action is ActionReplace, ActionAppend or ActionTransfer.
	Action Action
	// Text is the safe text that replaces the answer (required for
	// ActionReplace), the notice appended to it (required for
	// ActionAppend), or the text released on ActionTransfer (empty: the
	// configuration's SafeText).
	Text string
}

// HighRisk is a list of signs of one high-risk category.
type HighRisk struct {
	// Category names the risk, such as CategorySelfHarm.
	Category string
	// Keywords are matched as whole words (see ModeExact).
	Keywords []string
	// Patterns are RE2 regular expressions over the normalised text.
	Patterns []string
}

// Config is one tenant's guardrails.
type Config struct {
	// Words are the forbidden words.
	Words []ForbiddenWord
	// Rules are the behaviour rules, applied in order.
	Rules []BehaviorRule
	// HighRisk are the tenant's high-risk lists, used together with
	// DefaultHighRisk unless SkipDefaultHighRisk is set.
	HighRisk []HighRisk
	// SkipDefaultHighRisk leaves the built-in high-risk lists out, for a
	// tenant whose ordinary vocabulary they would trip (a pharmacy talks
	// about overdoses).
	SkipDefaultHighRisk bool
	// SafeText is released instead of an answer that is blocked or handed
	// over; empty means DefaultSafeText.
	SafeText string
	// Stored marks a configuration read back from the store to run, not
	// one being written: a regular expression over the bounds of package
	// safere, or past the tenant's budget, is then left out (it never
	// hits) rather than refused, since only one stored before the bounds
	// existed can break them, and refusing would stop every message of
	// the tenant, not only that rule. A write refuses it.
	Stored bool
}
