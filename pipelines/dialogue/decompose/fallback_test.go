package decompose

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// slotTarget is a slot target typed by def.
func slotTarget(def domain.SlotDefinition, examples ...string) target {
	return target{DecompositionTarget: domain.DecompositionTarget{Kind: domain.TargetSlot, Key: def.Key, Examples: examples},
		typ: def.Type, enum: def.EnumValues, pattern: def.Pattern, value: def.Normalise}
}

func metaTarget(f domain.MetadataField) target {
	return target{DecompositionTarget: domain.DecompositionTarget{Kind: domain.TargetMetadata, Key: f.Key}, typ: f.Type, enum: f.EnumValues, field: f}
}

func TestFallbackFindsWhatTheMessageNames(t *testing.T) {
	product := domain.MetadataField{Key: "product", Type: domain.MetaEnum, EnumValues: []string{"router", "camera"}}
	ts := []target{
		slotTarget(domain.SlotDefinition{Key: "order_no", Type: domain.MetaString, Pattern: "^[A-Z][0-9]{5}$"}),
		slotTarget(domain.SlotDefinition{Key: "delivery", Type: domain.MetaDate}),
		slotTarget(domain.SlotDefinition{Key: "device", Type: domain.MetaEnum, EnumValues: []string{"Router", "Camera"}}),
		slotTarget(domain.SlotDefinition{Key: "quantity", Type: domain.MetaNumber}),
		slotTarget(domain.SlotDefinition{Key: "colors", Type: domain.MetaStringArray}, "red", "blue", "green"),
		slotTarget(domain.SlotDefinition{Key: "gift", Type: domain.MetaBoolean}),
		metaTarget(product),
	}
	got := fallback(ts, "My ROUTER order A10086 (red and green) arrived 2026/11/20; I need 3 more.")
	assert.Equal(t, map[string]any{"order_no": "A10086", "delivery": "2026-11-20", "device": "Router", "quantity": "3",
		"colors": "red, green"}, got[domain.TargetSlot], "no number is read inside the order number or the date; booleans are not guessed")
	assert.Equal(t, map[string]any{"product": "router"}, got[domain.TargetMetadata], "one word may fill several targets")
}

func TestFallbackReadsChineseDatesAndKeepsWordsWhole(t *testing.T) {
	ts := []target{
		slotTarget(domain.SlotDefinition{Key: "delivery", Type: domain.MetaDate}),
		slotTarget(domain.SlotDefinition{Key: "device", Type: domain.MetaEnum, EnumValues: []string{"cam", "路由器"}}),
	}
	got := fallback(ts, "我的路由器在2026年11月2日坏了, see camera")
	assert.Equal(t, map[string]any{"delivery": "2026-11-02", "device": "路由器"}, got[domain.TargetSlot],
		"CJK words match inside text; \"cam\" is not read inside \"camera\"")
	assert.Empty(t, fallback(ts, "on 2026-02-30")[domain.TargetSlot], "an impossible date is no date")
	assert.Equal(t, map[string]any{"device": "cam"}, fallback(ts, "two cams, please")[domain.TargetSlot], "a plural names its value")
}

func TestModelAnswersAreReadLeniently(t *testing.T) {
	v, err := parseAnswer("Sure!\n```json\n{\"slots\": {\"a\": \"x\", \"b\": null}, \"metadata\": {\"p\": [\"q\"]}}\n```")
	require.NoError(t, err)
	assert.Equal(t, values{domain.TargetSlot: {"a": "x"}, domain.TargetMetadata: {"p": []any{"q"}}}, v, "null means not given")

	v, err = parseAnswer(`{"order_no": "A10086"}`)
	require.NoError(t, err)
	assert.Equal(t, values{domain.TargetSlot: {"order_no": "A10086"}}, v, "a flat object is read as slots")

	for _, bad := range []string{"no idea", `{"slots": [1]}`, `{"slots": {`} {
		_, err := parseAnswer(bad)
		assert.Error(t, err, bad)
	}
}

func TestAcceptKeepsWhatTheDefinitionsAllow(t *testing.T) {
	year := domain.MetadataField{Key: "year", Type: domain.MetaNumber}
	ts := []target{
		slotTarget(domain.SlotDefinition{Key: "qty", Type: domain.MetaNumber}),
		slotTarget(domain.SlotDefinition{Key: "tags", Type: domain.MetaStringArray}),
		metaTarget(year),
	}
	r := Result{Slots: map[string]string{}, Metadata: map[string]any{}}
	accept(&r, ts, values{
		domain.TargetSlot:     {"qty": 2.0, "tags": []any{"a", "b"}, "other": "x"},
		domain.TargetMetadata: {"year": "2026", "nope": true},
	})
	assert.Equal(t, map[string]string{"qty": "2", "tags": "a, b"}, r.Slots)
	assert.Equal(t, map[string]any{"year": 2026.0}, r.Metadata, "a number the model wrote as text is read as a number")
	require.Len(t, r.Refused, 2)
	assert.Equal(t, Refusal{Kind: domain.TargetSlot, Key: "other", Value: "x", Reason: "not a target of the template"}, r.Refused[0])
	assert.Equal(t, "true", r.Refused[1].Value, "a refused value that is not text shows as JSON")
}
