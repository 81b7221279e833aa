package guard

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/safere"
)

// bomb is the pattern of issue 24.
var bomb = strings.Repeat(`.{0,999}`, 61) + `\d`

// regexRule is a behaviour rule of kind regex that hands over.
func regexRule(name, pattern string) BehaviorRule {
	return BehaviorRule{Name: name, Kind: RuleRegex, Pattern: pattern, Action: ActionTransfer}
}

func TestCompileHoldsRegexesToTheirBounds(t *testing.T) {
	for _, c := range []struct {
		name   string
		config Config
		field  string
		says   string
	}{
		{"the issue's pattern in a rule", Config{Rules: []BehaviorRule{regexRule("Bomb", bomb)}}, "/rules/0/pattern",
			"rule \"Bomb\": the pattern `.{0,999}.{0,999}.{0,999}.{0,999}.{0,999}.{0,999}.{0,999}.{0,…` is refused: the counted repeat {0,999}"},
		{"a wide repeat in a high-risk list", Config{HighRisk: []HighRisk{{Category: "fraud", Patterns: []string{`card.{0,60}number`}}}},
			"/highRisk/0/patterns/0", "high-risk list \"fraud\": the pattern `card.{0,60}number` is refused: reading one input character can take"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Compile(c.config)
			var e *domain.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, domain.CodeValidation, e.Code)
			require.Len(t, e.Fields, 1)
			assert.Equal(t, c.field, e.Fields[0].Field)
			assert.Contains(t, e.Fields[0].Message, c.says)
		})
	}
	_, err := Compile(Config{Rules: []BehaviorRule{regexRule("Cards", `\b\d{4}[ -]?\d{4}[ -]?\d{4}[ -]?\d{4}\b`)}})
	assert.NoError(t, err, "a card number is within the bounds")
}

func TestCompileHoldsTheTenantsRegexesToTheirBudget(t *testing.T) {
	p := `\b\d{4}[ -]?\d{4}\b`
	re, err := compileRegex(p)
	require.NoError(t, err)
	fp := re.Footprint()
	n := min(safere.MaxTenantSize/fp.Size, safere.MaxTenantStepCost/fp.StepCost)
	lists := []HighRisk{{Category: "cards", Patterns: make([]string, n+1)}}
	for i := range lists[0].Patterns {
		lists[0].Patterns[i] = p
	}
	_, err = Compile(Config{HighRisk: lists, SkipDefaultHighRisk: true})
	var e *domain.Error
	require.ErrorAs(t, err, &e)
	require.Len(t, e.Fields, 1)
	assert.Equal(t, "/highRisk/0/patterns/"+strconv.Itoa(n), e.Fields[0].Field, "the first pattern past the budget")
	assert.Contains(t, e.Fields[0].Message, "the tenant's guardrail regular expressions would")

	lists[0].Patterns = lists[0].Patterns[:n]
	_, err = Compile(Config{HighRisk: lists, SkipDefaultHighRisk: true})
	assert.NoError(t, err)
}

func TestAStoredRegexOverTheBoundsIsLeftOut(t *testing.T) {
	// Stored before the bounds: the tenant's other rules still run, and
	// the bomb is never run.
	c := NewGuards(func(context.Context, domain.TenantID) (domain.GuardConfig, error) {
		return domain.GuardConfig{Rules: []domain.BehaviorRule{
			{ID: "br_1", Name: "bomb", Kind: domain.GuardRuleRegex, Pattern: bomb, Action: domain.GuardTransfer, Enabled: true},
			{ID: "br_2", Name: "lawyer", Kind: domain.GuardRuleContains, Pattern: "lawyer", Action: domain.GuardTransfer, Enabled: true},
		}}, nil
	}, time.Minute, nil)
	g, err := c.For(t.Context(), "acme")
	require.NoError(t, err)
	assert.False(t, g.CheckOutput(strings.Repeat("x", 3000)+"7").Transfer, "the bomb does not hit")
	assert.True(t, g.CheckOutput("ask your lawyer").Transfer, "the other rule does")
}
