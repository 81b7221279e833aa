package intent

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/internal/safere"
)

func TestRequiredLiterals(t *testing.T) {
	cases := []struct {
		pattern string
		want    []string
	}{
		{`order\s*#?\d+`, []string{"order"}},
		{`Refund`, []string{"refund"}},
		{`(退款|退货)`, []string{"退"}}, // the parser factors out the common prefix
		{`订单号\d{6}`, []string{"订单号"}},
		{`(?:cancel)+ my ORDER`, []string{"cancel", " my order"}},
		{`(?:abc){2,}`, []string{"abc", "abc"}},
		{`(?:abc)?x`, []string{"x"}},
		{`(?:abc)*`, nil},
		{`a|b`, nil},
		{`\d{6}`, nil},
		{`caféx`, []string{"caf", "x"}},
		{`(?-i)Refund`, []string{"Refund"}},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, requiredLiterals("(?i)"+c.pattern), c.pattern)
	}
}

// TestPrefilterNeverRefusesAMatch checks that the literal check only
// skips patterns that would not have matched.
func TestPrefilterNeverRefusesAMatch(t *testing.T) {
	patterns := []string{`order\s*#?\d+`, `REFUND`, `订单号\d{6}`, `(?:cancel)+ my order`, `caf[eé]`,
		`café`, `straße`, `ſtop`, `kelvin`, `\bart\b`, `e-mail`, `(?-i)Refund`, `ｒｅｆｕｎｄ`, `①`, `σ`, `x{2,3}y`}
	messages := []string{"Order #42", "ORDER 42", "订单号１２３４５６", "cancel cancel my order", "CAFÉ", "café",
		"STRASSE", "Straße", "ſtop", "STOP", "KELVIN", "Kelvin", "art", "e-mail", "Refund", "ＲＥＦＵＮＤ", "①",
		"ΣΑΣ", "ς", "xxy", "XXXY", ""}
	for _, p := range patterns {
		cp, err := compilePattern(p)
		require.NoError(t, err, p)
		for _, m := range messages {
			text := safere.Bounded(patternText(m))
			assert.Equal(t, cp.re.Whole().MatchString(text.String()), cp.match(text), "%s on %q", p, text)
		}
	}
}
