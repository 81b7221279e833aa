package slots_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/slots"
)

// bomb is the pattern of issue 24.
var bomb = strings.Repeat(`.{0,999}`, 61) + `\d`

func TestCreateHoldsThePatternToItsBounds(t *testing.T) {
	t.Parallel()
	svc, _ := newService(t)
	for _, c := range []struct {
		name, pattern, says string
	}{
		{"the issue's pattern", bomb, "the counted repeat {0,999} counts to 999, over the limit of 100"},
		{"a wide counted repeat", `.{0,60}`, "reading one input character can take"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := orderNo()
			d.Pattern = c.pattern
			_, err := svc.Create(t.Context(), d)
			var e *domain.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, domain.CodeValidation, e.Code)
			require.Len(t, e.Fields, 1)
			assert.Equal(t, "/pattern", e.Fields[0].Field)
			assert.Contains(t, e.Fields[0].Message, "is refused: "+c.says)
		})
	}
	_, err := svc.Create(t.Context(), orderNo())
	assert.NoError(t, err, "the order number's pattern is within the bounds")
}

func TestTheCacheCompilesPatternsWithinTheBounds(t *testing.T) {
	t.Parallel()
	store, _ := newStore(t)
	// Stored before the bounds existed, past the service.
	d := orderNo()
	d.ID, d.TenantID, d.Pattern = domain.NewID(domain.PrefixSlotDefinition), acme, bomb
	_, err := store.CreateSlotDefinition(t.Context(), d)
	require.NoError(t, err)
	ok := orderNo()
	ok.ID, ok.TenantID, ok.Key = domain.NewID(domain.PrefixSlotDefinition), acme, "ticket"
	_, err = store.CreateSlotDefinition(t.Context(), ok)
	require.NoError(t, err)

	rules, err := slots.NewCache(store, 0, nil).SlotRules(t.Context(), acme)
	require.NoError(t, err)
	_, msg := rules.Value(d.Key, "A12345")
	assert.Contains(t, msg, "must match", "a pattern over the bounds takes no value")
	kept, msg := rules.Value("ticket", "A12345")
	assert.Empty(t, msg)
	assert.Equal(t, "A12345", kept)
	_, msg = rules.Value("ticket", "12345")
	assert.Contains(t, msg, "must match")
}
