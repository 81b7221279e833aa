package slots_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// orderNo is a valid definition of acme.
func orderNo() domain.SlotDefinition {
	return domain.SlotDefinition{
		TenantID: acme, Key: "order_no", Label: "Order number", Type: domain.MetaString,
		Pattern: `[A-Z]\d{5}`, Prompt: "What is your order number?", Status: domain.SlotActive,
	}
}

func TestCreateStoresTheDefinitionWithANewID(t *testing.T) {
	t.Parallel()
	svc, _ := newService(t)
	ctx := t.Context()
	in := orderNo()
	in.ID = "slot_chosen_by_the_caller" // the service assigns ids

	made, err := svc.Create(ctx, in)
	require.NoError(t, err)
	assert.True(t, domain.ValidID(domain.PrefixSlotDefinition, made.ID), made.ID)
	assert.EqualValues(t, 1, made.Version)

	got, err := svc.Get(ctx, acme, made.ID)
	require.NoError(t, err)
	assert.Equal(t, "order_no", got.Key)
	assert.Equal(t, domain.MetaString, got.Type)
	assert.Equal(t, `[A-Z]\d{5}`, got.Pattern)
	assert.Equal(t, "What is your order number?", got.Prompt)
	assert.Equal(t, domain.SlotActive, got.Status)
	assert.Empty(t, got.MetadataFieldID)

	page, err := svc.List(ctx, acme, nil, domain.PageRequest{Limit: 10})
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	assert.Equal(t, made.ID, page.Items[0].ID)
	page, err = svc.List(ctx, other, nil, domain.PageRequest{Limit: 10})
	require.NoError(t, err)
	assert.Empty(t, page.Items, "another tenant lists none of acme's definitions")
	_, err = svc.Get(ctx, other, made.ID)
	assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err))
}

func TestCreateRefusesInvalidDefinitionsNamingTheField(t *testing.T) {
	t.Parallel()
	svc, _ := newService(t)
	cases := []struct {
		name   string
		edit   func(*domain.SlotDefinition)
		fields []string
	}{
		{"key with upper case and a space", func(d *domain.SlotDefinition) { d.Key = "Order No" }, []string{"/key"}},
		{"key starting with a digit", func(d *domain.SlotDefinition) { d.Key = "1st" }, []string{"/key"}},
		{"key of 65 characters", func(d *domain.SlotDefinition) { d.Key = "k" + strings.Repeat("x", 64) }, []string{"/key"}},
		{"unknown type", func(d *domain.SlotDefinition) { d.Type = "text"; d.Pattern = "" }, []string{"/type"}},
		{"enum without values", func(d *domain.SlotDefinition) { d.Type = domain.MetaEnum; d.Pattern = "" }, []string{"/enumValues"}},
		{"values on a string", func(d *domain.SlotDefinition) { d.EnumValues = []string{"a"} }, []string{"/enumValues"}},
		{"enum values equal but for case and spaces", func(d *domain.SlotDefinition) {
			d.Type, d.Pattern, d.EnumValues = domain.MetaEnum, "", []string{"Router", " router "}
		}, []string{"/enumValues/1"}},
		{"pattern on a number", func(d *domain.SlotDefinition) { d.Type = domain.MetaNumber }, []string{"/pattern"}},
		{"pattern that does not compile", func(d *domain.SlotDefinition) { d.Pattern = "([A-Z]" }, []string{"/pattern"}},
		{"pattern over 500 bytes", func(d *domain.SlotDefinition) { d.Pattern = strings.Repeat("a", domain.MaxSlotPatternLen+1) }, []string{"/pattern"}},
		{"unknown status", func(d *domain.SlotDefinition) { d.Status = "retired" }, []string{"/status"}},
		{"no status", func(d *domain.SlotDefinition) { d.Status = "" }, []string{"/status"}},
		{"every problem at once", func(d *domain.SlotDefinition) { d.Key, d.Type, d.Status = "", "text", "" },
			[]string{"/key", "/type", "/pattern", "/status"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := orderNo()
			c.edit(&d)
			_, err := svc.Create(t.Context(), d)
			require.Error(t, err)
			assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
			assert.Equal(t, c.fields, fieldsOf(t, err))
		})
	}
	page, err := svc.List(t.Context(), acme, nil, domain.PageRequest{Limit: 10})
	require.NoError(t, err)
	assert.Empty(t, page.Items, "nothing refused was stored")
}

func TestCreateChecksTheLinkedMetadataField(t *testing.T) {
	t.Parallel()
	svc, store := newService(t)
	ctx := t.Context()
	own := newField(t, store, acme, "order")
	foreign := newField(t, store, other, "order")

	for name, id := range map[string]string{
		"no such field":          domain.NewID(domain.PrefixMetadataField),
		"another tenant's field": foreign,
	} {
		t.Run(name, func(t *testing.T) {
			d := orderNo()
			d.MetadataFieldID = id
			_, err := svc.Create(ctx, d)
			assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
			assert.Equal(t, []string{"/metadataFieldId"}, fieldsOf(t, err))
		})
	}
	page, err := svc.List(ctx, acme, nil, domain.PageRequest{Limit: 10})
	require.NoError(t, err)
	assert.Empty(t, page.Items)

	d := orderNo()
	d.MetadataFieldID = own
	made, err := svc.Create(ctx, d)
	require.NoError(t, err)
	got, err := svc.Get(ctx, acme, made.ID)
	require.NoError(t, err)
	assert.Equal(t, own, got.MetadataFieldID)
}

func TestCreateRefusesATakenKey(t *testing.T) {
	t.Parallel()
	svc, _ := newService(t)
	ctx := t.Context()
	_, err := svc.Create(ctx, orderNo())
	require.NoError(t, err)

	again := orderNo()
	again.Type, again.Pattern = domain.MetaNumber, ""
	_, err = svc.Create(ctx, again)
	assert.Equal(t, domain.CodeConflict, domain.ErrorCodeOf(err))
	assert.Equal(t, []string{"/key"}, fieldsOf(t, err))

	theirs := orderNo()
	theirs.TenantID = other
	_, err = svc.Create(ctx, theirs)
	assert.NoError(t, err, "keys are per tenant")
}

func TestUpdateReplacesAllButTheKey(t *testing.T) {
	t.Parallel()
	svc, store := newService(t)
	ctx := t.Context()
	made, err := svc.Create(ctx, orderNo())
	require.NoError(t, err)
	field := newField(t, store, acme, "order")

	change := made
	change.Key = "" // an update's body has no key: the stored one is validated
	change.Label, change.Pattern, change.Status, change.MetadataFieldID = "Order", `[A-Z]\d{6}`, domain.SlotDeprecated, field
	updated, err := svc.Update(ctx, change)
	require.NoError(t, err)
	assert.EqualValues(t, 2, updated.Version)

	got, err := svc.Get(ctx, acme, made.ID)
	require.NoError(t, err)
	assert.Equal(t, "order_no", got.Key)
	assert.Equal(t, "Order", got.Label)
	assert.Equal(t, `[A-Z]\d{6}`, got.Pattern)
	assert.Equal(t, domain.SlotDeprecated, got.Status)
	assert.Equal(t, field, got.MetadataFieldID)

	status := domain.SlotActive
	active, err := svc.List(ctx, acme, &status, domain.PageRequest{Limit: 10})
	require.NoError(t, err)
	assert.Empty(t, active.Items, "a deprecated definition is not listed as active")

	_, err = svc.Update(ctx, change) // change.Version is 1, the stored one 2
	assert.Equal(t, domain.CodeVersionConflict, domain.ErrorCodeOf(err))

	rename := updated
	rename.Key = "renamed"
	_, err = svc.Update(ctx, rename)
	require.NoError(t, err)
	got, err = svc.Get(ctx, acme, made.ID)
	require.NoError(t, err)
	assert.Equal(t, "order_no", got.Key, "the key is fixed at creation")
	assert.EqualValues(t, 3, got.Version)
}

func TestUpdateRefusalsLeaveTheDefinitionAsItWas(t *testing.T) {
	t.Parallel()
	svc, store := newService(t)
	ctx := t.Context()
	made, err := svc.Create(ctx, orderNo())
	require.NoError(t, err)

	bad := made
	bad.Type = domain.MetaBoolean // keeps its pattern: booleans take none
	_, err = svc.Update(ctx, bad)
	assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
	assert.Equal(t, []string{"/pattern"}, fieldsOf(t, err))

	missing := made
	missing.MetadataFieldID = newField(t, store, other, "order")
	_, err = svc.Update(ctx, missing)
	assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
	assert.Equal(t, []string{"/metadataFieldId"}, fieldsOf(t, err))

	got, err := svc.Get(ctx, acme, made.ID)
	require.NoError(t, err)
	assert.Equal(t, made.Type, got.Type)
	assert.Empty(t, got.MetadataFieldID)
	assert.EqualValues(t, 1, got.Version)
}

func TestUpdateOfAnotherTenantsDefinitionIsNotFound(t *testing.T) {
	t.Parallel()
	svc, _ := newService(t)
	ctx := t.Context()
	made, err := svc.Create(ctx, orderNo())
	require.NoError(t, err)

	// Whatever the body says, even an invalid one naming a missing field,
	// another tenant learns only that there is no such definition.
	theirs := made
	theirs.TenantID, theirs.Type, theirs.MetadataFieldID = other, "bogus", domain.NewID(domain.PrefixMetadataField)
	_, err = svc.Update(ctx, theirs)
	assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err))

	got, err := svc.Get(ctx, acme, made.ID)
	require.NoError(t, err)
	assert.Equal(t, domain.MetaString, got.Type)
	assert.EqualValues(t, 1, got.Version)
}

func TestDelete(t *testing.T) {
	t.Parallel()
	svc, _ := newService(t)
	ctx := t.Context()
	made, err := svc.Create(ctx, orderNo())
	require.NoError(t, err)

	assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(svc.Delete(ctx, other, made.ID)))
	_, err = svc.Get(ctx, acme, made.ID)
	require.NoError(t, err, "another tenant's delete removed nothing")

	require.NoError(t, svc.Delete(ctx, acme, made.ID))
	_, err = svc.Get(ctx, acme, made.ID)
	assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err))
	assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(svc.Delete(ctx, acme, made.ID)))
}
