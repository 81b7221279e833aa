package decompose

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"slices"

	"github.com/cs-assistant/assistant/domain"
)

// Method says how a decomposition extracted its values.
type Method string

// The methods.
const (
	// MethodModel: the kb_processing model answered usable JSON.
	MethodModel Method = "model"
	// MethodFallback: the extractive fallback ran (no model configured, or
	// the model failed or answered something unusable).
	MethodFallback Method = "fallback"
)

// Refusal is an extracted value that the slot definitions or metadata
// fields refused.
type Refusal struct {
	Kind domain.DecompositionTargetKind
	Key  string
	// Value is the value as extracted (JSON text when not a string).
	Value  string
	Reason string
}

// Result is what a template version extracted from a text.
type Result struct {
	TemplateID string
	Version    int
	Method     Method
	// Slots are the accepted slot values, as a session stores them.
	Slots map[string]string
	// Metadata are the accepted metadata values, normalised as user
	// metadata is.
	Metadata map[string]any
	Refused  []Refusal
	// Skipped are the version's targets that name no active slot
	// definition or usable document field: nothing fills them.
	Skipped []domain.DecompositionTarget
	// ModelError says why the model's answer was not used; "" when it was,
	// or when no model is configured.
	ModelError string
}

// Detail is the result as a stage trace shows it.
func (r Result) Detail() map[string]any {
	refused := make([]map[string]any, len(r.Refused))
	for i, f := range r.Refused {
		refused[i] = map[string]any{"kind": string(f.Kind), "key": f.Key, "value": f.Value, "reason": f.Reason}
	}
	skipped := make([]string, len(r.Skipped))
	for i, t := range r.Skipped {
		skipped[i] = string(t.Kind) + ":" + t.Key
	}
	d := map[string]any{"templateId": r.TemplateID, "version": r.Version, "method": string(r.Method),
		"slots": r.Slots, "metadata": r.Metadata, "refused": refused, "skipped": skipped}
	if r.ModelError != "" {
		d["modelError"] = r.ModelError
	}
	return d
}

// Decomposer runs decomposition templates. It is safe for concurrent use.
type Decomposer struct {
	published Published
	slots     domain.SlotRulesReader
	fields    domain.MetadataFieldReader
	models    domain.ChatModels
	log       *slog.Logger
}

// New returns a decomposer reading the tenant's active template from
// published (a Cache), its definitions from slots and fields (caches,
// slots.Cache and metadata.Cache), and its kb_processing model from
// models.
func New(published Published, slots domain.SlotRulesReader, fields domain.MetadataFieldReader, models domain.ChatModels, log *slog.Logger) *Decomposer {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Decomposer{published: published, slots: slots, fields: fields, models: models, log: log}
}

// Message decomposes a customer message with the published version of the
// tenant's active template; ok is false when the tenant has none. Errors
// are the stores' (the model's failures are not errors, see Result).
func (d *Decomposer) Message(ctx context.Context, tenant domain.TenantID, message string) (Result, bool, error) {
	v, err := d.published.PublishedDecomposition(ctx, tenant)
	if domain.ErrorCodeOf(err) == domain.CodeNotFound {
		return Result{}, false, nil
	}
	if err != nil {
		return Result{}, false, err
	}
	r, err := d.Run(ctx, tenant, v, message)
	return r, err == nil, err
}

// Run runs version v over a customer message.
func (d *Decomposer) Run(ctx context.Context, tenant domain.TenantID, v domain.DecompositionVersion, message string) (Result, error) {
	ts, skipped, err := d.targets(ctx, tenant, v.Content, false)
	if err != nil {
		return Result{}, err
	}
	r := d.extract(ctx, tenant, v, ts, message, "Customer message")
	r.Skipped = skipped
	return r, nil
}

// ProposeMetadata runs the metadata targets of the tenant's active
// template over a document's text and returns the values the tenant's
// document fields accept; nil when the tenant has no active template or
// it names no metadata.
func (d *Decomposer) ProposeMetadata(ctx context.Context, tenant domain.TenantID, text string) (map[string]any, error) {
	v, err := d.published.PublishedDecomposition(ctx, tenant)
	if domain.ErrorCodeOf(err) == domain.CodeNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	ts, _, err := d.targets(ctx, tenant, v.Content, true)
	if err != nil || len(ts) == 0 {
		return nil, err
	}
	r := d.extract(ctx, tenant, v, ts, text, "Document")
	return r.Metadata, nil
}

// target is a template target with the definition that types its value.
type target struct {
	domain.DecompositionTarget
	typ     domain.MetadataFieldType
	enum    []string
	pattern string
	// value checks a slot target's value as the tenant's rules do
	// (domain.SlotRules.Value, the pattern compiled once).
	value func(string) (kept, msg string)
	field domain.MetadataField
}

// targets resolves the content's targets against the tenant's definitions:
// a slot target needs an active slot definition, a metadata target a
// usable document field; the others are skipped (returned second).
// metadataOnly leaves the slot targets out.
func (d *Decomposer) targets(ctx context.Context, tenant domain.TenantID, c domain.DecompositionContent, metadataOnly bool) ([]target, []domain.DecompositionTarget, error) {
	rules, err := d.slots.SlotRules(ctx, tenant)
	if err != nil {
		return nil, nil, err
	}
	fields, err := d.fields.MetadataFields(ctx, tenant, domain.MetadataFieldFilter{
		Scope: ptr(domain.ScopeDocument), IncludeDeprecated: true})
	if err != nil {
		return nil, nil, err
	}
	byKey := map[string]domain.MetadataField{}
	for _, f := range fields {
		byKey[f.Key] = f
	}
	var out []target
	var skipped []domain.DecompositionTarget
	for _, t := range c.Targets {
		switch t.Kind {
		case domain.TargetSlot:
			if metadataOnly {
				continue
			}
			def, ok := rules.Get(t.Key)
			if !ok || def.Status != domain.SlotActive {
				skipped = append(skipped, t)
				continue
			}
			key := t.Key
			out = append(out, target{DecompositionTarget: t, typ: def.Type, enum: def.EnumValues, pattern: def.Pattern,
				value: func(v string) (string, string) { return rules.Value(key, v) }})
		case domain.TargetMetadata:
			f, ok := byKey[t.Key]
			if !ok || !f.Status.Usable() {
				skipped = append(skipped, t)
				continue
			}
			out = append(out, target{DecompositionTarget: t, typ: f.Type, enum: f.EnumValues, field: f})
		}
	}
	return out, skipped, nil
}

// extract asks the kb_processing model when the tenant configured one,
// else (or when it fails) the fallback, and keeps what the definitions
// accept.
func (d *Decomposer) extract(ctx context.Context, tenant domain.TenantID, v domain.DecompositionVersion, ts []target, text, what string) Result {
	r := Result{TemplateID: v.TemplateID, Version: v.Version, Method: MethodFallback,
		Slots: map[string]string{}, Metadata: map[string]any{}}
	var raw values
	if len(ts) > 0 {
		var ok bool
		raw, ok, r.ModelError = d.askModel(ctx, tenant, v.Content.Instruction, ts, text, what)
		if ok {
			r.Method = MethodModel
		} else {
			raw = fallback(ts, text)
		}
		if r.ModelError != "" {
			d.log.WarnContext(ctx, "decomposition: the model's answer was not used; the fallback ran",
				"tenant", string(tenant), "template", v.TemplateID, "version", v.Version, "why", r.ModelError)
		}
	}
	accept(&r, ts, raw)
	if len(r.Refused) > maxRefusals {
		r.Refused = r.Refused[:maxRefusals]
	}
	return r
}

// maxRefusals bounds the refusals a result lists (a model may answer many
// keys that are not targets).
const maxRefusals = 100

// values are extracted values by kind and key, as decoded JSON.
type values map[domain.DecompositionTargetKind]map[string]any

func (v values) set(kind domain.DecompositionTargetKind, key string, x any) {
	if v[kind] == nil {
		v[kind] = map[string]any{}
	}
	v[kind][key] = x
}

// accept checks raw against the targets' definitions: slot values as
// SlotDefinition.Normalise reads them, metadata values as user metadata.
func accept(r *Result, ts []target, raw values) {
	byKind := map[domain.DecompositionTargetKind]map[string]target{}
	for _, t := range ts {
		if byKind[t.Kind] == nil {
			byKind[t.Kind] = map[string]target{}
		}
		byKind[t.Kind][t.Key] = t
	}
	for _, kind := range []domain.DecompositionTargetKind{domain.TargetSlot, domain.TargetMetadata} {
		for _, key := range slices.Sorted(maps.Keys(raw[kind])) {
			x := raw[kind][key]
			t, ok := byKind[kind][key]
			if !ok {
				r.Refused = append(r.Refused, refusal(kind, key, x, "not a target of the template"))
				continue
			}
			if kind == domain.TargetSlot {
				s, isText := slotText(x)
				if !isText {
					r.Refused = append(r.Refused, refusal(kind, key, x, "not a value a slot holds"))
					continue
				}
				kept, msg := t.value(s)
				if msg != "" {
					r.Refused = append(r.Refused, refusal(kind, key, x, msg))
					continue
				}
				r.Slots[key] = kept
				continue
			}
			kept, msg := domain.NormaliseMetadataValue(t.field, coerceMetadata(t.field, x))
			if msg != "" {
				r.Refused = append(r.Refused, refusal(kind, key, x, msg))
				continue
			}
			r.Metadata[key] = kept
		}
	}
}

// refusal records a refused value, its texts cut to what the contract
// allows.
func refusal(kind domain.DecompositionTargetKind, key string, x any, reason string) Refusal {
	return Refusal{Kind: kind, Key: clipText(key, 200), Value: shown(x), Reason: clipText(reason, 500)}
}

// shown is a value for a refusal: strings as they are, the rest as JSON.
func shown(x any) string {
	if s, ok := x.(string); ok {
		return clipText(s, 2000)
	}
	b, err := json.Marshal(x)
	if err != nil {
		return fmt.Sprint(x)
	}
	return clipText(string(b), 2000)
}

func clipText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

func ptr[T any](v T) *T { return &v }
