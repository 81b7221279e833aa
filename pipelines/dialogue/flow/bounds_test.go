package flow

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/safere"
	"github.com/cs-assistant/assistant/internal/tenantcache"
)

// bomb is the intent pattern of issue 24, 490 bytes; a flow step's regex
// may be 4,000.
var bomb = strings.Repeat(`.{0,999}`, 61) + `\d`

// regexFlow is a flow of n steps that each wait for an answer re must
// match, asking once again before handing over.
func regexFlow(id string, n int, re string) domain.ScriptFlow {
	f := domain.ScriptFlow{ID: id, TenantID: "acme", Name: "Checks " + id, Enabled: true}
	for i := 1; i <= n; i++ {
		f.Steps = append(f.Steps, domain.ScriptFlowStep{StepNo: i, Prompt: fmt.Sprintf("Answer %d?", i), WaitInput: true,
			Expect: &domain.ScriptFlowExpect{Regex: re, Slot: fmt.Sprintf("a%d", i), MaxRetries: 1}})
	}
	return f
}

func TestValidateHoldsRegexesToTheirBounds(t *testing.T) {
	for _, c := range []struct {
		name, regex string
		says        string // "" when accepted
	}{
		{"the issue's pattern", bomb, "step 1: the regex `.{0,999}.{0,999}.{0,999}.{0,999}.{0,999}.{0,999}.{0,999}.{0,…` is refused: " +
			"the counted repeat {0,999} counts to 999, over the limit of 100"},
		{"a 4,000-byte pattern", strings.Repeat(`(?:ab|cd)`, 444), "program instructions, over the limit of 1000"},
		{"a wide counted repeat", `^(.{0,60})$`, "is refused: reading one input character can take"},
		{"a syntax error", `(`, "step 1: the regex does not compile: error parsing regexp: missing closing ): `(`"},
		{"an order number", `^(?:order\s*)?(\d{8})$`, ""},
		{"an e-mail address", `[^@\s]+@[^@\s]+`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := Validate(regexFlow("f", 1, c.regex))
			if c.says == "" {
				assert.NoError(t, err)
				return
			}
			var de *domain.Error
			require.ErrorAs(t, err, &de)
			assert.Equal(t, domain.CodeValidation, de.Code)
			require.Len(t, de.Fields, 1)
			assert.Equal(t, "/steps/0/expect/regex", de.Fields[0].Field)
			assert.Contains(t, de.Fields[0].Message, c.says)
		})
	}
}

func TestAStoredRegexOverTheBoundsPassesNoAnswer(t *testing.T) {
	// Stored before the bounds: compiled, it accepts nothing (not
	// everything), so the step asks again and then hands over.
	c := compiled(t, regexFlow("f", 2, bomb))
	require.Nil(t, c.regexes[1])
	r, err := Start(c, t0())
	require.NoError(t, err)
	r, err = Advance(c, r.State, "12345", nil, t0())
	require.NoError(t, err)
	assert.Equal(t, []Taken{{StepNo: 1, Input: "12345", Action: ActionRetry}}, r.Taken)
	r, err = Advance(c, r.State, "12345", nil, t0())
	require.NoError(t, err)
	assert.True(t, r.Transfer)
	assert.Equal(t, ReasonInvalidInput, r.TransferReason)
}

func TestARegexReadsTheFirst4000CharactersOfTheAnswer(t *testing.T) {
	c := compiled(t, regexFlow("f", 1, `order (\d+)`))
	pad := strings.Repeat("字", safere.MaxInputRunes-len("order 1"))
	for _, tc := range []struct {
		answer string
		ok     bool
	}{
		{pad + "order 1", true},
		{pad + "!order 1", false},
	} {
		r, err := Start(c, t0())
		require.NoError(t, err)
		r, err = Advance(c, r.State, tc.answer, nil, t0())
		require.NoError(t, err)
		assert.Equal(t, tc.ok, r.Taken[0].Action == ActionAccepted, "%d characters", len([]rune(tc.answer)))
	}
}

// flowStore keeps flows in memory, for the service's budget and the
// cache.
type flowStore struct {
	domain.ScriptFlowStore
	flows map[string]domain.ScriptFlow
	gets  int
}

func (s *flowStore) CreateScriptFlow(_ context.Context, f domain.ScriptFlow) (domain.ScriptFlow, error) {
	s.flows[f.ID] = f
	return f, nil
}

func (s *flowStore) UpdateScriptFlow(_ context.Context, f domain.ScriptFlow) (domain.ScriptFlow, error) {
	s.flows[f.ID] = f
	return f, nil
}

func (s *flowStore) GetScriptFlow(_ context.Context, tenant domain.TenantID, id string) (domain.ScriptFlow, error) {
	s.gets++
	f, ok := s.flows[id]
	if !ok || f.TenantID != tenant {
		return domain.ScriptFlow{}, domain.Errorf(domain.CodeNotFound, "Script flow not found.")
	}
	return f, nil
}

func (s *flowStore) ListScriptFlows(_ context.Context, tenant domain.TenantID, p domain.PageRequest) (domain.Page[domain.ScriptFlow], error) {
	var out []domain.ScriptFlow
	for _, f := range s.flows {
		if f.TenantID == tenant {
			out = append(out, f)
		}
	}
	return domain.Page[domain.ScriptFlow]{Items: out}, nil
}

func TestServiceHoldsTheTenantsRegexesToTheirBudget(t *testing.T) {
	st := &flowStore{flows: map[string]domain.ScriptFlow{}}
	d := &drops{}
	s := NewService(st, nil, d)
	ctx := context.Background()
	re := `^(?:order\s*)?(\d{8})$`
	fp, err := safere.Measure(re)
	require.NoError(t, err)
	perFlow := MaxSteps
	fit := min(safere.MaxTenantSize/fp.Size, safere.MaxTenantStepCost/fp.StepCost)
	var last domain.ScriptFlow
	for i := range fit / perFlow {
		last, err = s.Create(ctx, regexFlow("", perFlow, re))
		require.NoError(t, err, "flow %d is within the budget", i)
	}
	assert.Len(t, *d, fit/perFlow, "every write drops the tenant's compiled flows")

	_, err = s.Create(ctx, regexFlow("", perFlow, re))
	var de *domain.Error
	require.ErrorAs(t, err, &de)
	require.Len(t, de.Fields, 1)
	assert.Equal(t, fmt.Sprintf("/steps/%d/expect/regex", fit%perFlow), de.Fields[0].Field, "the first regex past the budget")
	assert.Contains(t, de.Fields[0].Message, "the tenant's script flow regexes would")
	assert.Contains(t, de.Fields[0].Message, "over the tenant quota of")

	// The flow's own stored version is not counted twice.
	_, err = s.Update(ctx, last)
	assert.NoError(t, err)
}

// drops records the invalidations made.
type drops []string

func (d *drops) Drop(kind domain.ConfigKind, tenant domain.TenantID) {
	*d = append(*d, string(kind)+"/"+string(tenant))
}

func TestCacheCompilesAFlowOnceUntilItChanges(t *testing.T) {
	st := &flowStore{flows: map[string]domain.ScriptFlow{"f": regexFlow("f", 1, `^\d+$`)}}
	inv := tenantcache.NewRegistry()
	c := NewCache(st, 0, inv)
	ctx := context.Background()
	for range 3 {
		f, enabled, err := c.Flow(ctx, "acme", "f")
		require.NoError(t, err)
		assert.True(t, enabled)
		assert.NotNil(t, f.regexes[1])
	}
	assert.Equal(t, 1, st.gets, "loaded and compiled once")

	inv.Drop(domain.ConfigScriptFlows, "acme")
	_, _, err := c.Flow(ctx, "acme", "f")
	require.NoError(t, err)
	assert.Equal(t, 2, st.gets, "a write drops it")

	_, _, err = c.Flow(ctx, "globex", "f")
	assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err))
}
