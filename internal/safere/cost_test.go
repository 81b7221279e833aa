package safere

import (
	"math/rand/v2"
	"regexp/syntax"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// costPatterns cover the instruction kinds Cost weighs and the shapes
// whose cost the exact search and the looser bound tell apart.
var costPatterns = []string{
	`order\s*#\d+`, `(?i)(cancel|cancellation|terminate|termination|unsubscribe)`, `.{0,20}x`, `\d{1,30}`,
	`(?i)[a-z_]?[a-z_]?[a-z_]?\d`, `\pL?\pL?k`, `(a|b)*c`, `^\d{4}-\d{2}$`, `\bfoo\b|bar`, `(?s)(.?)(.?)$`, `(?i)k{2,4}`,
}

func progOf(t *testing.T, p string) *syntax.Prog {
	re, err := syntax.Parse(p, syntax.Perl)
	require.NoError(t, err)
	prog, err := syntax.Compile(re.Simplify())
	require.NoError(t, err)
	return prog
}

// TestCostBoundsEverySetAnInputReaches runs random inputs drawn from the
// characters each pattern reads through the sets Cost follows, and checks
// that none weighs more than Cost, and that Cost is never more than the
// looser bound.
func TestCostBoundsEverySetAnInputReaches(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, p := range costPatterns {
		prog := progOf(t, p)
		a := newAnalysis(prog)
		cost := Cost(prog)
		assert.LessOrEqual(t, cost, a.unionBound(), p)
		for range 200 {
			set := a.start
			for range 50 {
				g := rng.IntN(len(a.reads))
				if next, ok := a.step(set, g); ok {
					set = next
				} else {
					set = a.start
				}
				require.LessOrEqual(t, a.weightOf(set), cost, p)
			}
		}
	}
}

func TestCostFallsBackToTheLooserBound(t *testing.T) {
	// The classic: which of the last 16 characters were an a is a set of
	// its own, 2^16 of them, too many to follow; the looser bound answers.
	prog := progOf(t, `a[ab]{15}`)
	a := newAnalysis(prog)
	_, ok := a.explore(-1)
	require.False(t, ok)
	assert.Equal(t, a.unionBound(), Cost(prog))
}
