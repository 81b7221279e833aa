package intent

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/safere"
)

// bomb is the pattern of issue 24: 490 bytes that took 42 s of CPU on a
// 4,000-character message and 10 MB compiled.
var bomb = strings.Repeat(`.{0,999}`, 61) + `\d`

// hanRun is a literal of n distinct Han characters from the from-th on: a
// large program (one instruction a character) that costs little to run,
// since each input character can advance only one of its instructions.
func hanRun(from, n int) string {
	r := make([]rune, n)
	for i := range r {
		r[i] = rune(0x4E00 + (from+i)%20000)
	}
	return string(r)
}

// fits returns how many patterns of footprint fp a tenant's budget takes.
func fits(fp safere.Footprint) int {
	return min(safere.MaxTenantSize/fp.Size, safere.MaxTenantStepCost/max(fp.StepCost, 1))
}

func TestValidateHoldsPatternsToTheirBounds(t *testing.T) {
	ok := domain.IntentRule{ID: "r1", Name: "refund", ResponseType: ResponseFixed, FixedText: "x"}
	for _, c := range []struct {
		name    string
		pattern string
		says    string // "" when the pattern is accepted
	}{
		{"the issue's 490-byte pattern", bomb, "pattern 0 `.{0,999}.{0,999}.{0,999}.{0,999}.{0,999}.{0,999}.{0,999}.{0,…` is refused: " +
			"the counted repeat {0,999} counts to 999, over the limit of 100; use * or + for any number"},
		{"a repeat just over the bound", `\d{101}`, "counts to 101, over the limit of 100"},
		{"a wide counted repeat", `refund.{0,50}order`, "is refused: reading one input character can take"},
		{"a large program", `(?:abcdefghijk){100}`, "compiles to 1102 program instructions, over the limit of 1000"},
		{"an order number", `order\s*#?\d{6,}`, ""},
		{"a long word list", `(cancel|cancellation|terminate|termination|unsubscribe|end my subscription|close my account)`, ""},
		{"a counted repeat of digits", `订单号?\s*[:：]?\s*(\d{8,20})`, ""},
		{"a long literal", hanRun(0, 160), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := with(ok, func(r *domain.IntentRule) { r.Patterns = []string{c.pattern} })
			err := Validate(r)
			if c.says == "" {
				assert.NoError(t, err)
				return
			}
			assert.Contains(t, fields(t, err)["/patterns/0"], c.says)
		})
	}
}

func TestCompileLeavesOutStoredPatternsOverTheBounds(t *testing.T) {
	// Stored before the bounds existed: the rule still matches by its
	// keyword and its other pattern, never by the bomb.
	m, err := Compile([]domain.IntentRule{rule("r1", 1, ModeAny, kw("refund"), bomb, `order\s*#\d+`)})
	require.NoError(t, err)
	hit, ok := m.Best("a refund please")
	require.True(t, ok)
	assert.Equal(t, []string{"refund"}, hit.Keywords)
	hit, ok = m.Best("where is order #12")
	require.True(t, ok)
	assert.Equal(t, []string{`order\s*#\d+`}, hit.Patterns)
	_, ok = m.Best(strings.Repeat("x", 3000) + "7")
	assert.False(t, ok, "the bomb is not run")
}

func TestCompileKeepsTheBudgetInPriorityOrder(t *testing.T) {
	n := fits(patternFootprint(hanRun(0, 160)))/MaxPatterns + 2 // two rules past the budget
	var rules []domain.IntentRule
	for i := range n {
		var ps []string
		for j := range MaxPatterns {
			ps = append(ps, hanRun((i*MaxPatterns+j)*7, 160))
		}
		// Lower priority for later rules: the last ones lose their patterns.
		rules = append(rules, rule(fmt.Sprintf("r%03d", i), int32(n-i), ModeAny, nil, ps...))
	}
	m, err := Compile(rules)
	require.NoError(t, err)
	used := 0
	for i, c := range m.rules {
		kept := 0
		for _, p := range c.patterns {
			if p.re != nil {
				kept++
				used += p.re.Footprint().Size
			}
		}
		if i < n-2 {
			assert.Equal(t, MaxPatterns, kept, "rule %d is within the budget", i)
		}
	}
	assert.LessOrEqual(t, used, safere.MaxTenantSize)
	first, last := rules[0].Patterns[0], rules[n-1].Patterns[0]
	_, ok := m.Best("x" + first)
	assert.True(t, ok, "the highest rule's pattern matches")
	_, ok = m.Best("x" + last)
	assert.False(t, ok, "the lowest rule's pattern is past the budget")
}

func TestPatternsRunOnTheFirst4000Characters(t *testing.T) {
	m, err := Compile([]domain.IntentRule{rule("r1", 1, ModeAny, nil, `tracking\s*\d+`)})
	require.NoError(t, err)
	pad := strings.Repeat("我", safere.MaxInputRunes-len("tracking 1"))
	_, ok := m.Best(pad + "tracking 1")
	assert.True(t, ok, "a message of 4,000 characters is matched whole")
	_, ok = m.Best(pad + "!tracking 1")
	assert.False(t, ok, "what comes after the 4,000th character is not read")
}

func TestServiceRefusesAPatternPastTheTenantBudget(t *testing.T) {
	st := newFakeStore()
	s := NewService(st, st, st, nil)
	ctx := context.Background()
	fill := func(i int) domain.IntentRule {
		r := rag()
		r.Name = fmt.Sprintf("rule %d", i)
		for j := range MaxPatterns {
			r.Patterns = append(r.Patterns, hanRun((i*MaxPatterns+j)*7, 160))
		}
		return r
	}
	var last domain.IntentRule
	for i := range fits(patternFootprint(fill(0).Patterns[0])) / MaxPatterns {
		var err error
		last, err = s.Create(ctx, fill(i))
		require.NoError(t, err, "rule %d is within the budget", i)
	}
	_, err := s.Create(ctx, fill(1000))
	got := fields(t, err)
	require.Len(t, got, 1)
	for field, msg := range got {
		assert.Regexp(t, `^/patterns/\d+$`, field)
		assert.Contains(t, msg, "the tenant's intent rule patterns would take")
		assert.Contains(t, msg, "over the tenant quota of 100000")
	}

	// A rule's own stored patterns are not counted twice: an update that
	// keeps them passes, and one that shortens them makes room.
	_, err = s.Update(ctx, last)
	require.NoError(t, err)
	last.Patterns = last.Patterns[:1]
	_, err = s.Update(ctx, last)
	require.NoError(t, err)
	small := rag()
	small.Name, small.Patterns = "small", []string{`order\s*#\d+`}
	_, err = s.Create(ctx, small)
	assert.NoError(t, err)
}
