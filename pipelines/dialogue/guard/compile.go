package guard

import (
	"errors"
	"fmt"
	"regexp/syntax"
	"strings"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/safere"
)

// Compile validates a tenant's configuration and builds its Guard. A
// configuration error is a domain validation error (domain.Invalid)
// naming the offending field as a JSON pointer into the configuration
// ("/rules/2/pattern") and, for a regular expression, the rule and the
// parser's complaint.
//
// Regular expressions are held to the bounds of package safere on what a
// pattern may cost, and together (the built-in lists' too) to the
// tenant's budget; one that breaks them is refused the same way, naming
// the bound, unless c.Stored: see Config.
func Compile(c Config) (*Guard, error) {
	b := &builder{
		g:      &Guard{safeText: c.SafeText, rules: append([]BehaviorRule(nil), c.Rules...)},
		cover:  map[string][]int32{},
		budget: safere.NewBudget(budgetName),
		stored: c.Stored,
	}
	if strings.TrimSpace(b.g.safeText) == "" {
		b.g.safeText = DefaultSafeText
	}
	lists := c.HighRisk
	if !c.SkipDefaultHighRisk {
		lists = append(DefaultHighRisk(), c.HighRisk...)
	}
	if err := b.words(c.Words); err != nil {
		return nil, err
	}
	// Rules before the high-risk lists: a high-risk source needs to know
	// the rules that cover its category.
	if err := b.behaviorRules(c.Rules, lists); err != nil {
		return nil, err
	}
	if err := b.highRisk(lists, len(lists)-len(c.HighRisk)); err != nil {
		return nil, err
	}

	g := b.g
	g.ac = newAutomaton(b.patterns)
	// Hold back the longest pattern, not one rune less: an exact match
	// that ends at the last rune read waits for the next rune to settle
	// its right boundary. At least one rune, for the same reason with
	// regular expressions (\b, $).
	g.holdBack = max(g.ac.maxLen, 1)
	for _, r := range g.regexes {
		g.strOut = true
		g.strIn = g.strIn || g.sources[r.source].kind == HitHighRisk
	}
	return g, nil
}

// builder gathers a Guard's sources and patterns while validating.
type builder struct {
	g *Guard
	// patterns are the automaton's strings, index-aligned with g.pats.
	patterns [][]rune
	// cover lists the RuleHighRisk rule sources by category; coverAny
	// those for every category.
	cover    map[string][]int32
	coverAny []int32
	// budget adds up the regular expressions; stored is Config.Stored.
	budget *safere.Budget
	stored bool
}

// source adds a source and returns its index.
func (b *builder) source(s source) int32 {
	b.g.sources = append(b.g.sources, s)
	return int32(len(b.g.sources) - 1)
}

// pattern adds text, normalised, to the automaton for source src.
func (b *builder) pattern(src int32, field, text string, mode MatchMode) error {
	r := normalize(strings.TrimSpace(text))
	switch {
	case len(r) == 0:
		return domain.Invalid(field, "must not be empty")
	case len(r) > MaxPatternRunes:
		return domain.Invalid(field, fmt.Sprintf("%q is longer than %d characters", text, MaxPatternRunes))
	}
	p := acPattern{source: src}
	if mode == ModeExact {
		p.left, p.right = isWordRune(r[0]), isWordRune(r[len(r)-1])
	}
	b.patterns = append(b.patterns, r)
	b.g.pats = append(b.g.pats, p)
	return nil
}

// regex adds a regular expression for source src; owner names the rule
// or list in an error.
func (b *builder) regex(src int32, field, owner, expr string) error {
	re, err := compileRegex(expr)
	if err == nil {
		err = b.budget.Add(re.Footprint())
	}
	var limit *safere.LimitError
	switch {
	case errors.As(err, &limit) && b.stored:
		return nil // left out: see Config.Stored
	case limit != nil:
		e := domain.Invalid(field, fmt.Sprintf("%s: the pattern %s is refused: %v", owner, safere.Quote(expr), err))
		e.Err = err
		return e
	case err != nil:
		e := domain.Invalid(field, fmt.Sprintf("%s: the pattern %q is not a usable regular expression: %v", owner, expr, err))
		e.Err = err
		return e
	}
	b.g.regexes = append(b.g.regexes, regexSource{re: re, source: src})
	return nil
}

// words adds the forbidden words.
func (b *builder) words(ws []ForbiddenWord) error {
	for i, w := range ws {
		field := fmt.Sprintf("/words/%d", i)
		mode, action := w.Mode, w.Action
		if mode == "" {
			mode = ModeExact
		}
		if action == "" {
			action = ActionMask
		}
		if mode != ModeExact && mode != ModeContains {
			return domain.Invalid(field+"/mode", fmt.Sprintf("unknown match mode %q (exact or contains)", w.Mode))
		}
		switch action {
		case ActionMask, ActionBlock, ActionTransfer:
		default:
			return domain.Invalid(field+"/action", fmt.Sprintf("unknown action %q for a word (mask, block or transfer)", w.Action))
		}
		if w.Replacement != "" && action != ActionMask {
			return domain.Invalid(field+"/replacement", "only a masked word has a replacement")
		}
		src := b.source(source{kind: HitWord, id: w.ID, action: action, pattern: w.Word, replacement: w.Replacement,
			rule: -1, stops: action != ActionMask})
		if err := b.pattern(src, field+"/word", w.Word, mode); err != nil {
			return err
		}
	}
	return nil
}

// behaviorRules adds the behaviour rules; lists are the high-risk lists
// in force, whose categories a RuleHighRisk rule may name.
func (b *builder) behaviorRules(rs []BehaviorRule, lists []HighRisk) error {
	categories := map[string]bool{}
	for _, l := range lists {
		categories[l.Category] = true
	}
	for i, r := range rs {
		field := fmt.Sprintf("/rules/%d", i)
		owner := ruleName(r, i)
		switch r.Action {
		case ActionReplace, ActionAppend:
			if strings.TrimSpace(r.Text) == "" {
				return domain.Invalid(field+"/text", fmt.Sprintf("%s: %s needs a text", owner, r.Action))
			}
		case ActionTransfer:
		default:
			return domain.Invalid(field+"/action", fmt.Sprintf("%s: unknown action %q (replace, append or transfer)", owner, r.Action))
		}
		src := b.source(source{kind: HitRule, id: r.ID, category: r.Category, action: r.Action, pattern: r.Pattern,
			text: r.Text, rule: i, stops: r.Action != ActionAppend})
		var err error
		switch r.Kind {
		case RuleContains:
			err = b.pattern(src, field+"/pattern", r.Pattern, ModeContains)
		case RuleRegex:
			err = b.regex(src, field+"/pattern", owner, r.Pattern)
		case RuleHighRisk:
			b.g.sources[src].pattern = r.Category
			switch {
			case r.Category == "":
				b.coverAny = append(b.coverAny, src)
			case !categories[r.Category]:
				err = domain.Invalid(field+"/category", fmt.Sprintf("%s: unknown high-risk category %q", owner, r.Category))
			default:
				b.cover[r.Category] = append(b.cover[r.Category], src)
			}
		default:
			err = domain.Invalid(field+"/kind", fmt.Sprintf("%s: unknown kind %q (contains, regex or high_risk)", owner, r.Kind))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// highRisk adds the high-risk lists; the tenant's own start at index
// tenant, and an error names one by its index in Config.HighRisk (the
// defaults before them are valid: a test compiles them alone). A keyword
// listed twice in a category (by the defaults and the tenant, say) is
// added once.
func (b *builder) highRisk(lists []HighRisk, tenant int) error {
	seen := map[string]bool{}
	for li, l := range lists {
		field := fmt.Sprintf("/highRisk/%d", li-tenant)
		if strings.TrimSpace(l.Category) == "" {
			return domain.Invalid(field+"/category", "must not be empty")
		}
		covered := mergeRuleOrder(b.cover[l.Category], b.coverAny)
		hr := source{kind: HitHighRisk, category: l.Category, action: ActionTransfer, rule: -1, covered: covered,
			stops: len(covered) == 0}
		for _, r := range covered {
			hr.stops = hr.stops || b.g.sources[r].stops
		}
		if len(covered) > 0 {
			hr.action = b.g.sources[covered[0]].action
		}
		for ki, k := range l.Keywords {
			key := l.Category + "\x00" + string(normalize(strings.TrimSpace(k)))
			if seen[key] {
				continue
			}
			seen[key] = true
			s := hr
			s.pattern = k
			if err := b.pattern(b.source(s), fmt.Sprintf("%s/keywords/%d", field, ki), k, ModeExact); err != nil {
				return err
			}
		}
		owner := fmt.Sprintf("high-risk list %q", l.Category)
		for pi, p := range l.Patterns {
			s := hr
			s.pattern = p
			if err := b.regex(b.source(s), fmt.Sprintf("%s/patterns/%d", field, pi), owner, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// compileRegex compiles a configured expression within the bounds of
// package safere. It is matched on the normalised (case-folded) text, so
// it is compiled case-insensitive and upper-case letters in it still
// match. An expression that matches the empty text would hit every
// answer, so it is refused.
func compileRegex(expr string) (*safere.Regexp, error) {
	if strings.TrimSpace(expr) == "" {
		return nil, fmt.Errorf("empty expression")
	}
	if _, err := syntax.Parse(expr, syntax.Perl); err != nil {
		return nil, err // reported without the (?i) added below
	}
	re, err := safere.Compile("(?i)" + expr)
	if err != nil {
		return nil, err
	}
	if re.MatchString("") {
		return nil, fmt.Errorf("it matches the empty text, so it would hit every answer")
	}
	return re, nil
}

// ruleName names rule i for error messages.
func ruleName(r BehaviorRule, i int) string {
	switch {
	case r.Name != "":
		return fmt.Sprintf("rule %q", r.Name)
	case r.ID != "":
		return fmt.Sprintf("rule %q", r.ID)
	}
	return fmt.Sprintf("rule #%d", i+1)
}

// mergeRuleOrder merges two ascending lists of rule sources.
func mergeRuleOrder(a, b []int32) []int32 {
	out := make([]int32, 0, len(a)+len(b))
	for len(a) > 0 || len(b) > 0 {
		if len(b) == 0 || len(a) > 0 && a[0] < b[0] {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return out
}
