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
		`订单号?\s*[:：]?\s*(\d{8,20})`,
		`(?i)(cancel|cancellation|terminate|termination|unsubscribe|end my subscription|close my account|stop billing)`,
		`(?i)(where|track).*(order|package|parcel)`,
		`\p{Han}{2,10}`,
		`^[A-Za-z0-9]{6,12}$`,
		`(\d{1,3}\.){3}\d{1,3}`,
	} {
		re, err := Compile(p)
		require.NoError(t, err, p)
		assert.LessOrEqual(t, re.StepCost(), MaxStepCost, p)
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
		{"a wide counted repeat", `refund.{0,50}order`, LimitStepCost, "over the limit of 64"},
		{"many digit positions alive at once", `\d{1,100}`, LimitStepCost, `use .* or \w+ instead`},
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

func TestSizeCountsWithoutTheCost(t *testing.T) {
	n, err := Size(`refund.{0,50}order`) // refused by Compile for its cost
	require.NoError(t, err)
	assert.Equal(t, 113, n)
	_, err = Size(bomb)
	assert.Error(t, err)
}

func TestCostTellsAlternationsFromWideRepeats(t *testing.T) {
	cost := func(p string) int {
		re, err := syntax.Parse(p, syntax.Perl)
		require.NoError(t, err)
		prog, err := syntax.Compile(re.Simplify())
		require.NoError(t, err)
		return Cost(prog)
	}
	words := `(?i)(cancel|cancellation|terminate|termination|unsubscribe|end my subscription|close my account|stop billing)`
	wide := `.{0,30}x`
	n, _ := Size(words)
	m, _ := Size(wide)
	assert.Greater(t, n, m, "the word list is the larger program")
	assert.Less(t, cost(words), cost(wide), "but the cheaper one to run: few of its letters are alive at once")
	assert.Greater(t, cost(`\pL?\pL?\pL?`), cost(`.?.?.?`), "a long class costs more to test than any character")
}

func TestMatchingRunsOnTheFirstMaxInputRunes(t *testing.T) {
	re, err := Compile(`tail`)
	require.NoError(t, err)
	long := strings.Repeat("字", MaxInputRunes-4) + "tail"
	assert.True(t, re.MatchString(long), "the last four of 4,000 characters are read")
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
	require.NoError(t, b.Add(MaxTenantInsts-10))
	require.NoError(t, b.Add(10))
	err := b.Add(1)
	var le *LimitError
	require.True(t, errors.As(err, &le))
	assert.Equal(t, LimitTenant, le.Limit)
	assert.Equal(t, MaxTenantInsts, b.Used(), "a refused addition counts nothing")
	assert.Contains(t, err.Error(), "the tenant's intent rule patterns would compile to 100001 program instructions in all, over the tenant quota of 100000")
}
