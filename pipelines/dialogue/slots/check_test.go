package slots_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/slots"
)

// define creates acme's definitions of every type through the service.
func define(t *testing.T, svc *slots.Service) map[string]string {
	t.Helper()
	ids := map[string]string{}
	for _, d := range []domain.SlotDefinition{
		{Key: "order_no", Type: domain.MetaString, Pattern: `[A-Z]\d{5}`},
		{Key: "product", Type: domain.MetaEnum, EnumValues: []string{"Router", "Camera"}},
		{Key: "qty", Type: domain.MetaNumber},
		{Key: "gift", Type: domain.MetaBoolean},
		{Key: "due", Type: domain.MetaDate},
		{Key: "tags", Type: domain.MetaStringArray, Pattern: `[a-z]+`},
		{Key: "legacy", Type: domain.MetaString, Status: domain.SlotDeprecated},
	} {
		d.TenantID = acme
		if d.Status == "" {
			d.Status = domain.SlotActive
		}
		made, err := svc.Create(t.Context(), d)
		require.NoError(t, err, d.Key)
		ids[d.Key] = made.ID
	}
	return ids
}

func TestCheckNormalisesValuesThatFit(t *testing.T) {
	t.Parallel()
	svc, _ := newService(t)
	define(t, svc)

	got, err := svc.Check(t.Context(), acme, "/slots", map[string]string{
		"order_no": " A12345 ",
		"product":  "router",
		"qty":      "12.50",
		"gift":     "yes",
		"due":      "2026-11-22T23:30:00-02:00",
		"tags":     "red, blue,,green ",
		"legacy":   "kept though deprecated",
	})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{
		"order_no": "A12345",
		"product":  "Router",
		"qty":      "12.5",
		"gift":     "true",
		"due":      "2026-11-23",
		"tags":     "red, blue, green",
		"legacy":   "kept though deprecated",
	}, got)
}

func TestCheckRefusesEachValueThatDoesNotFit(t *testing.T) {
	t.Parallel()
	svc, _ := newService(t)
	define(t, svc)

	_, err := svc.Check(t.Context(), acme, "/slots", map[string]string{
		"order_no": "a12345",     // pattern: upper-case letter first
		"product":  "television", // not an enum value
		"qty":      "twelve",
		"gift":     "maybe",
		"due":      "tomorrow",
		"tags":     "red, Blue", // one item off the pattern
		"colour":   "red",       // no definition has this key
		"legacy":   "   ",       // empty once trimmed
	})
	require.Error(t, err)
	assert.Equal(t, domain.CodeSlotInvalid, domain.ErrorCodeOf(err))
	assert.Equal(t, []string{"/slots/colour", "/slots/due", "/slots/gift", "/slots/legacy",
		"/slots/order_no", "/slots/product", "/slots/qty", "/slots/tags"}, fieldsOf(t, err))

	var e *domain.Error
	require.ErrorAs(t, err, &e)
	byField := map[string]string{}
	for _, f := range e.Fields {
		byField[f.Field] = f.Message
	}
	assert.Contains(t, byField["/slots/order_no"], `must match [A-Z]\d{5}`)
	assert.Contains(t, byField["/slots/product"], "Router")
	assert.Contains(t, byField["/slots/tags"], `"Blue"`)
	assert.Contains(t, byField["/slots/colour"], "no slot definition")
}

func TestCheckRefusesMalformedSlotsBeforeTheDefinitions(t *testing.T) {
	t.Parallel()
	svc, _ := newService(t)
	define(t, svc)

	_, err := svc.Check(t.Context(), acme, "/slots", map[string]string{
		"Order-No": "A12345",
		"order_no": strings.Repeat("A", domain.MaxSlotValueLen+1),
	})
	assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
	assert.Equal(t, []string{"/slots/Order-No", "/slots/order_no"}, fieldsOf(t, err))

	many := map[string]string{}
	for i := range domain.MaxSessionSlots + 1 {
		many["s"+strings.Repeat("x", i)] = "v"
	}
	_, err = svc.Check(t.Context(), other, "/slots", many)
	assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
	assert.Equal(t, "/slots", fieldsOf(t, err)[0])
}

func TestCheckWithoutDefinitionsKeepsValuesAsTheyAre(t *testing.T) {
	t.Parallel()
	svc, _ := newService(t)
	define(t, svc) // acme's: they do not apply to the other tenant

	in := map[string]string{"colour": "  Red ", "order_no": "whatever", "empty": ""}
	got, err := svc.Check(t.Context(), other, "/slots", in)
	require.NoError(t, err)
	assert.Equal(t, in, got)

	rules, err := svc.Rules(t.Context(), other)
	require.NoError(t, err)
	assert.True(t, rules.Empty())
}

func TestCheckFollowsDefinitionChanges(t *testing.T) {
	t.Parallel()
	svc, _ := newService(t)
	ids := define(t, svc)
	ctx := t.Context()

	rules, err := svc.Rules(ctx, acme)
	require.NoError(t, err)
	_, ok := rules.Get("legacy")
	assert.True(t, ok, "Rules holds deprecated definitions too")

	// Widen the pattern: a value refused before now fits.
	_, err = svc.Check(ctx, acme, "/slots", map[string]string{"order_no": "AB1234"})
	assert.Equal(t, domain.CodeSlotInvalid, domain.ErrorCodeOf(err))
	d, err := svc.Get(ctx, acme, ids["order_no"])
	require.NoError(t, err)
	d.Pattern = `[A-Z]{1,2}\d{4,5}`
	_, err = svc.Update(ctx, d)
	require.NoError(t, err)
	got, err := svc.Check(ctx, acme, "/slots", map[string]string{"order_no": "AB1234"})
	require.NoError(t, err)
	assert.Equal(t, "AB1234", got["order_no"])

	// A deleted definition's key is no longer accepted while others remain.
	require.NoError(t, svc.Delete(ctx, acme, ids["qty"]))
	_, err = svc.Check(ctx, acme, "/slots", map[string]string{"qty": "3"})
	assert.Equal(t, domain.CodeSlotInvalid, domain.ErrorCodeOf(err))
	assert.Equal(t, []string{"/slots/qty"}, fieldsOf(t, err))
}
