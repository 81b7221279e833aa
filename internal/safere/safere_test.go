package safere

import (
	"errors"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bomb is the pattern of issue 24: 490 bytes that took 42 s of CPU on a
// 4,000-character message and 10 MB compiled.
var bomb = strings.Repeat(`.{0,999}`, 61) + `\d`

func TestCompileAcceptsPatternsTenantsWrite(t *testing.T) {
	for _, p := range []string{
		`order\s*#?\d{6,}`,
		`(?i)refund\s+my\s+order`,
		`[\w.+-]+@[\w-]+\.[\w.-]+`,
		`\+?\d[\d ()-]{6,}\d`,
		`^\d{4}-\d{2}-\d{2}$`,
		`^(?:order\s*)?(\d{8})$`,
		`订单号?\s*[:：]?\s*(\d{8,})`,
		`(?i)(cancel|cancellation|terminate|termination|unsubscribe|end my subscription|close my account|stop billing)`,
		`(?i)(where|track).*(order|package|parcel)`,
		`(?i)(refund|return|money back|reimburse(ment)?|chargeback|charge back|get my money|send it back)`, // half of a list too long as one
		`(?i)(exchange|replacement|broken|damaged|defective|wrong item|missing item|not as described)`,
		`\p{Han}{2,6}`,
		`^[A-Za-z0-9]{6,12}$`,
		`(\d{1,3}\.){3}\d{1,3}`,
	} {
		re, err := Compile(p)
		require.NoError(t, err, p)
		assert.LessOrEqual(t, re.Footprint().StepCost, MaxStepCost, p)
		assert.Equal(t, p, re.String())
	}
}

func TestCompileRefusesWhatBreaksABound(t *testing.T) {
	for _, c := range []struct {
		name, pattern string
		limit         Limit
		says          string
	}{
		{"the issue's 490-byte pattern", bomb, LimitRepeat, "the counted repeat {0,999} counts to 999, over the limit of 100"},
		{"a repeat over the bound", `\d{101}`, LimitRepeat, "over the limit of 100"},
		{"an open repeat counts its minimum", `x{200,}`, LimitRepeat, "counts to 200"},
		{"nested repeats multiply", `(?:(?:ab){0,20}c){1,20}`, LimitRepeatProduct, "the counted repeats nested in {1,20} multiply to 400 copies, over the limit of 200"},
		{"a long program", `(?:abcdefghijk){100}`, LimitInsts, "program instructions, over the limit of 1000"},
		{"a wide counted repeat", `refund.{0,50}order`, LimitStepCost, "over the limit of 48"},
		{"many digit positions alive at once", `\d{1,100}`, LimitStepCost, `use .* or \w+ instead`},
		{"a long list of alternatives", `(?i)(refund|return|money back|reimburse(ment)?|chargeback|charge back|get my money|send it back|` +
			`exchange|replacement|broken|damaged|defective|wrong item|missing item|not as described)`, LimitStepCost, "split it into several patterns"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Compile(c.pattern)
			var le *LimitError
			require.True(t, errors.As(err, &le), "%v", err)
			assert.Equal(t, c.limit, le.Limit)
			assert.Contains(t, err.Error(), c.says)
		})
	}
}

func TestCompileReportsSyntaxErrorsAsRegexpDoes(t *testing.T) {
	_, err := Compile(`(unclosed`)
	var se *syntax.Error
	require.True(t, errors.As(err, &se))
	assert.Equal(t, "error parsing regexp: missing closing ): `(unclosed`", err.Error())
}

func TestMeasure(t *testing.T) {
	for _, c := range []struct {
		pattern string
		size    int
		why     string
	}{
		{`refund.*order`, 15, "15 instructions, and no class (. is shared)"},
		{`[a-z0-9]{2,3}abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN`, 46 + 1 + 1, "46 instructions, the class's 4 characters once, 53 bytes"},
		{`^[a-z0-9]{2,3}$`, 8 + 3, "8 instructions, the class's 4 characters in 3 copies: one-pass may copy them"},
		{`\pL`, 3 + 329, "3 instructions, and the 1,316 characters of the letter class"},
	} {
		fp, err := Measure(c.pattern)
		require.NoError(t, err)
		assert.Equal(t, c.size, fp.Size, c.why)
		re, err := Compile(c.pattern)
		require.NoError(t, err)
		assert.Equal(t, fp, re.Footprint())
	}
	_, err := Measure(bomb)
	assert.Error(t, err)
}

func TestCostTellsAlternationsFromWideRepeats(t *testing.T) {
	prog := func(p string) *syntax.Prog {
		re, err := syntax.Parse(p, syntax.Perl)
		require.NoError(t, err)
		prog, err := syntax.Compile(re.Simplify())
		require.NoError(t, err)
		return prog
	}
	cost := func(p string) int { return Cost(prog(p)) }
	words := `(?i)(cancel|cancellation|terminate|termination|unsubscribe|end my subscription|close my account|stop billing)`
	wide := `.{0,30}x`
	assert.Greater(t, len(prog(words).Inst), len(prog(wide).Inst), "the word list is the larger program")
	assert.Less(t, cost(words), cost(wide), "but the cheaper one to run: few of its letters are alive at once")
	assert.Greater(t, cost(`\pL?\pL?\pL?`), cost(`.?.?.?`), "a long class costs more to test than any character")
}

func TestMatchingRunsOnTheFirstMaxInputRunes(t *testing.T) {
	re, err := Compile(`tail`)
	require.NoError(t, err)
	long := strings.Repeat("字", MaxInputRunes-4) + "tail"
	assert.True(t, re.MatchString(long), "the last four of 4,000 characters are read")
	assert.True(t, re.Match(Bounded(long)))
	assert.False(t, re.Match(Bounded("字"+long)))
	assert.Equal(t, long, Bounded(long+"!").String())
	assert.False(t, re.MatchString("字"+long), "a match that ends past the bound is not seen")
	assert.True(t, re.Whole().MatchString("字"+long), "Whole sees all of it")
	assert.Equal(t, []string{"tail"}, re.FindStringSubmatch(long))
	assert.Len(t, re.FindAllStringIndex(long+long, -1), 1)
}

func TestBound(t *testing.T) {
	for _, c := range []struct {
		name string
		in   string
		want int // runes kept
	}{
		{"empty", "", 0},
		{"short", "hello", 5},
		{"exactly the bound", strings.Repeat("a", MaxInputRunes), MaxInputRunes},
		{"over the bound, ASCII", strings.Repeat("a", MaxInputRunes+1), MaxInputRunes},
		{"over the bound, Chinese", strings.Repeat("退", MaxInputRunes+7), MaxInputRunes},
		{"Chinese under the bound, more bytes than it", strings.Repeat("退", MaxInputRunes-1), MaxInputRunes - 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Bound(c.in)
			assert.Equal(t, c.want, len([]rune(got)))
			assert.True(t, strings.HasPrefix(c.in, got))
		})
	}
}

func TestBudget(t *testing.T) {
	b := NewBudget("intent rule patterns")
	require.NoError(t, b.Add(Footprint{Size: MaxTenantSize - 10, StepCost: 5}))
	require.NoError(t, b.Add(Footprint{Size: 10, StepCost: 5}))
	var le *LimitError
	err := b.Add(Footprint{Size: 1, StepCost: 1})
	require.True(t, errors.As(err, &le))
	assert.Equal(t, LimitTenantSize, le.Limit)
	assert.Equal(t, Footprint{Size: MaxTenantSize, StepCost: 10}, b.Used(), "a refused pattern counts nothing")
	assert.Contains(t, err.Error(), "the tenant's intent rule patterns would take 100001 units of compiled size in all (about 50 bytes each), over the tenant quota of 100000")

	b = NewBudget("flow step checks")
	require.NoError(t, b.Add(Footprint{Size: 1, StepCost: MaxTenantStepCost}))
	err = b.Add(Footprint{Size: 1, StepCost: 1})
	require.True(t, errors.As(err, &le))
	assert.Equal(t, LimitTenantStepCost, le.Limit)
	assert.Contains(t, err.Error(), "the tenant's flow step checks would cost 20001 units of work per input character in all, over the tenant quota of 20000")
}
