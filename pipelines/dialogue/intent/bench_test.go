package intent

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// benchRules returns n rules of three to five keywords each, half Latin
// words and half Chinese; every patternEvery-th rule also has a pattern
// (0: none). Priorities repeat so that ties occur. The patterns are of
// three kinds in turn: one whose literal is in the benchmark message (the
// regexp runs), one with no literal (it always runs), and one whose
// literal is not (the prefilter skips it).
func benchRules(n, patternEvery int) []domain.IntentRule {
	rng := rand.New(rand.NewPCG(1, 2))
	han := []rune("退款订单取消发货物流地址修改发票优惠券会员积分密码登录账号支付失败")
	rules := make([]domain.IntentRule, n)
	for i := range rules {
		var keys []string
		for range 3 + rng.IntN(3) {
			if rng.IntN(2) == 0 {
				keys = append(keys, fmt.Sprintf("word%d", rng.IntN(2000)))
			} else {
				keys = append(keys, string([]rune{han[rng.IntN(len(han))], han[rng.IntN(len(han))], han[rng.IntN(len(han))]}))
			}
		}
		var patterns []string
		if patternEvery > 0 && i%patternEvery == 0 {
			switch (i / patternEvery) % 3 {
			case 0:
				patterns = []string{fmt.Sprintf(`order\s*#?%d\d{4}`, i)}
			case 1:
				patterns = []string{fmt.Sprintf(`\b\d{%d}-\d{4}\b`, 2+i%4)}
			default:
				patterns = []string{fmt.Sprintf(`tracking\s*(?:no|number)\s*%d`, i)}
			}
		}
		mode := ModeAny
		if i%3 == 0 {
			mode = ModeAll
		}
		rules[i] = rule(fmt.Sprintf("r%04d", i), int32(i%50), mode, keys, patterns...)
	}
	return rules
}

// benchMessage is a 200-character customer message, Chinese and English
// mixed, that matches a few rules.
func benchMessage() string {
	s := "你好，我上周的订单还没有发货，物流一直不更新，我想取消订单并申请退款。Order #12345 was paid with a coupon; " +
		"please also fix my address and send the invoice to me, word17 word1999 thanks! 会员积分也没有到账，谢谢。"
	for utf8.RuneCountInString(s) < 200 {
		s += " again please"
	}
	return string([]rune(s)[:200])
}

func benchmarkMatcher(b *testing.B, patternEvery int, all bool) {
	m, err := Compile(benchRules(500, patternEvery))
	require.NoError(b, err)
	msg := benchMessage()
	b.ReportAllocs()
	for b.Loop() {
		if all {
			m.All(msg)
		} else {
			m.Best(msg)
		}
	}
}

// BenchmarkBest: 500 rules, a fifth with a pattern; the usual lookup.
func BenchmarkBest(b *testing.B) { benchmarkMatcher(b, 5, false) }

// BenchmarkAll: every matching rule, as the admin test needs.
func BenchmarkAll(b *testing.B) { benchmarkMatcher(b, 5, true) }

// BenchmarkBestKeywordsOnly: no patterns at all.
func BenchmarkBestKeywordsOnly(b *testing.B) { benchmarkMatcher(b, 0, false) }

// BenchmarkBestEveryRuleAPattern: the worst case, every rule's pattern is
// tried.
func BenchmarkBestEveryRuleAPattern(b *testing.B) { benchmarkMatcher(b, 1, false) }

// BenchmarkNormalize: the message's normal form alone.
func BenchmarkNormalize(b *testing.B) {
	msg := benchMessage()
	b.ReportAllocs()
	for b.Loop() {
		Normalize(msg)
	}
}

// BenchmarkCompile: building a tenant's matcher, paid once per TTL.
func BenchmarkCompile(b *testing.B) {
	rules := benchRules(500, 5)
	b.ReportAllocs()
	for b.Loop() {
		_, _ = Compile(rules)
	}
}

func TestBenchFixture(t *testing.T) {
	m, err := Compile(benchRules(500, 5))
	require.NoError(t, err)
	msg := benchMessage()
	require.Equal(t, 200, utf8.RuneCountInString(msg))
	all := m.All(msg)
	require.NotEmpty(t, all, "the benchmark message matches some rules")
	best, ok := m.Best(msg)
	require.True(t, ok)
	require.Equal(t, all[0].Rule.ID, best.Rule.ID)
	t.Logf("%d of 500 rules match; best %s (priority %d); %s", len(all), best.Rule.ID, best.Rule.Priority,
		strings.Join(best.Keywords, ","))
}
