package intent

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/safere"
)

// Validate checks a stored rule's own fields before it is written. It reports every problem at
// once, as one domain.Error (CodeValidation) whose Fields are JSON pointers
// into the rule's API form: /name, /keywords/<i>, /keywordMode,
// /patterns/<i>, /responseType, /fixedText, /kbIds/<i>, /flowId,
// /transferReason. A pattern that does not compile is reported on
// /patterns/<i> with Go's regexp error, which quotes the pattern; one that
// breaks a bound on what a pattern may cost (package safere: a counted
// repeat over 100, too large a program, too much work per character) is
// reported there too, quoting the pattern and naming the bound.
//
// The target must fit the response type: fixed needs a text, flow a flow
// id, transfer a reason, and rag may list knowledge bases (none means all).
// A target of another type is refused rather than ignored, so a rule that
// was switched from rag to fixed does not keep knowledge bases nobody sees.
func Validate(r domain.IntentRule) error {
	var v fieldErrors
	for i, ok := range validateShape(&v, r) {
		if !ok {
			continue
		}
		if _, err := compilePattern(r.Patterns[i]); err != nil {
			v.add(fmt.Sprintf("/patterns/%d", i), patternProblem(i, r.Patterns[i], err))
		}
	}
	return v.err()
}

// validateShape checks everything but whether the patterns compile, and
// says which patterns are worth compiling (not empty, not too long).
func validateShape(v *fieldErrors, r domain.IntentRule) []bool {
	if strings.TrimSpace(r.Name) == "" {
		v.add("/name", "is required")
	} else if utf8.RuneCountInString(r.Name) > MaxNameRunes {
		v.add("/name", fmt.Sprintf("is longer than %d characters", MaxNameRunes))
	}
	validateKeywords(v, r)
	compile := validatePatterns(v, r.Patterns)
	if len(r.Keywords) == 0 && len(r.Patterns) == 0 {
		v.add("/keywords", "a rule needs at least one keyword or pattern")
	}
	validateTarget(v, r)
	return compile
}

// patternProblem is the message of pattern i, which failed to compile
// with err.
func patternProblem(i int, p string, err error) string {
	var limit *safere.LimitError
	if errors.As(err, &limit) {
		return fmt.Sprintf("pattern %d %s is refused: %v", i, safere.Quote(p), err)
	}
	return fmt.Sprintf("pattern %d is not valid RE2: %v", i, err)
}

// validateKeywords checks the keywords and the mode.
func validateKeywords(v *fieldErrors, r domain.IntentRule) {
	switch r.KeywordMode {
	case "", ModeAny, ModeAll:
	default:
		v.add("/keywordMode", `must be "any" or "all"`)
	}
	if len(r.Keywords) > MaxKeywords {
		v.add("/keywords", fmt.Sprintf("has more than %d keywords", MaxKeywords))
		return
	}
	for i, k := range r.Keywords {
		field := fmt.Sprintf("/keywords/%d", i)
		switch {
		case len(k) > MaxKeywordBytes:
			v.add(field, fmt.Sprintf("is longer than %d bytes", MaxKeywordBytes))
		case Normalize(k) == "":
			// "!!!" would otherwise be a keyword that never matches.
			v.add(field, "has no letters or digits once punctuation is removed")
		}
	}
}

// validatePatterns checks the number of patterns and that each is short
// and not empty, and says which of them to compile.
func validatePatterns(v *fieldErrors, patterns []string) []bool {
	if len(patterns) > MaxPatterns {
		v.add("/patterns", fmt.Sprintf("has more than %d patterns", MaxPatterns))
		return nil
	}
	compile := make([]bool, len(patterns))
	for i, p := range patterns {
		field := fmt.Sprintf("/patterns/%d", i)
		switch {
		case strings.TrimSpace(p) == "":
			// An empty pattern matches every message.
			v.add(field, "is empty")
		case len(p) > MaxPatternBytes:
			v.add(field, fmt.Sprintf("is longer than %d bytes", MaxPatternBytes))
		default:
			compile[i] = true
		}
	}
	return compile
}

// validateTarget checks that the rule's target fits its response type and
// that the other types' targets are empty.
func validateTarget(v *fieldErrors, r domain.IntentRule) {
	switch r.ResponseType {
	case ResponseFixed, ResponseRAG, ResponseFlow, ResponseTransfer:
	case "":
		v.add("/responseType", "is required")
	default:
		v.add("/responseType", `must be one of "fixed", "rag", "flow", "transfer"`)
	}
	if r.ResponseType == ResponseFixed {
		if strings.TrimSpace(r.FixedText) == "" {
			v.add("/fixedText", "is required for a fixed response")
		} else if utf8.RuneCountInString(r.FixedText) > MaxFixedTextRunes {
			v.add("/fixedText", fmt.Sprintf("is longer than %d characters", MaxFixedTextRunes))
		}
	} else if r.FixedText != "" {
		v.add("/fixedText", "only a fixed response has a text")
	}
	if r.ResponseType == ResponseRAG {
		validateKBIDs(v, r.KBIDs)
	} else if len(r.KBIDs) > 0 {
		v.add("/kbIds", "only a rag response has knowledge bases")
	}
	validateText(v, r.ResponseType == ResponseFlow, "/flowId", r.FlowID, "a flow id", "flow")
	validateText(v, r.ResponseType == ResponseTransfer, "/transferReason", r.TransferReason, "a reason", "transfer")
}

// validateKBIDs checks a rag rule's knowledge bases: well-formed ids, no
// repeats. Whether they exist in the tenant is the caller's check.
func validateKBIDs(v *fieldErrors, ids []string) {
	if len(ids) > MaxKBIDs {
		v.add("/kbIds", fmt.Sprintf("has more than %d knowledge bases", MaxKBIDs))
		return
	}
	seen := make(map[string]bool, len(ids))
	for i, id := range ids {
		field := fmt.Sprintf("/kbIds/%d", i)
		switch {
		case !domain.ValidID(domain.PrefixKnowledgeBase, id):
			v.add(field, "is not a knowledge base id")
		case seen[id]:
			v.add(field, "repeats a knowledge base")
		}
		seen[id] = true
	}
}

// validateText checks a one-line target: required (and short) when the
// response type is the one it belongs to, empty otherwise.
func validateText(v *fieldErrors, wanted bool, field, s, what, typ string) {
	switch {
	case wanted && strings.TrimSpace(s) == "":
		v.add(field, fmt.Sprintf("is required for a %s response", typ))
	case wanted && len(s) > MaxTargetBytes:
		v.add(field, fmt.Sprintf("is longer than %d bytes", MaxTargetBytes))
	case !wanted && s != "":
		v.add(field, fmt.Sprintf("only a %s response has %s", typ, what))
	}
}

// fieldErrors gathers a rule's problems into one validation error.
type fieldErrors struct{ e *domain.Error }

// add records one problem.
func (v *fieldErrors) add(field, msg string) {
	if v.e == nil {
		v.e = domain.Invalid(field, msg)
		return
	}
	v.e.Fields = append(v.e.Fields, domain.FieldError{Field: field, Message: msg})
}

// err returns the gathered error, or nil (an untyped nil, not a nil
// *domain.Error) when there is none.
func (v *fieldErrors) err() error {
	if v.e == nil {
		return nil
	}
	return v.e
}
