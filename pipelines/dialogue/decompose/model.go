package decompose

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/cs-assistant/assistant/domain"
)

// maxModelTokens bounds the model's answer: a JSON object of at most
// MaxDecompositionTargets short values.
const maxModelTokens = 600

// maxTextRunes bounds the text the model reads (a message is at most 4000
// characters; a document's sample is cut to this).
const maxTextRunes = 8000

// askModel asks the tenant's kb_processing model for the targets' values.
// ok is false when there is no model to ask (why is "") or its answer is
// not usable (why says what went wrong).
func (d *Decomposer) askModel(ctx context.Context, tenant domain.TenantID, instruction string, ts []target, text, what string) (values, bool, string) {
	if d.models == nil {
		return nil, false, ""
	}
	m, err := d.models.For(ctx, tenant, domain.UsageKBProcessing)
	if err != nil {
		return nil, false, "the kb_processing model is not available: " + domain.ErrorMessage(err)
	}
	if m.Model() == domain.OfflineChatModel {
		return nil, false, ""
	}
	gen, err := m.Generate(ctx, domain.GenerateRequest{Messages: modelPrompt(instruction, ts, text, what), Temperature: 0, MaxTokens: maxModelTokens})
	if err != nil {
		return nil, false, "the model failed: " + domain.ErrorMessage(err)
	}
	raw, err := parseAnswer(gen.Answer)
	if err != nil {
		return nil, false, "the model's answer is not usable: " + err.Error()
	}
	return raw, true, ""
}

// modelPrompt tells the model the instruction, the targets with their
// types and examples, and the answer's form.
func modelPrompt(instruction string, ts []target, text, what string) []domain.ChatMessage {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(instruction))
	b.WriteString("\n\nExtract the values below from the text. Answer with one JSON object and nothing else, of the form " +
		`{"slots": {"<key>": <value>}, "metadata": {"<key>": <value>}}` +
		". Leave out every key whose value the text does not give; never guess.\n")
	for _, kind := range []domain.DecompositionTargetKind{domain.TargetSlot, domain.TargetMetadata} {
		first := true
		for _, t := range ts {
			if t.Kind != kind {
				continue
			}
			if first {
				fmt.Fprintf(&b, "\n%s:\n", map[domain.DecompositionTargetKind]string{domain.TargetSlot: "slots", domain.TargetMetadata: "metadata"}[kind])
				first = false
			}
			fmt.Fprintf(&b, "- %s (%s)", t.Key, typeText(t))
			if t.Description != "" {
				b.WriteString(": " + t.Description)
			}
			if len(t.Examples) > 0 {
				ex, _ := json.Marshal(t.Examples)
				b.WriteString(" Examples: " + string(ex))
			}
			b.WriteString("\n")
		}
	}
	return []domain.ChatMessage{
		{Role: "system", Content: b.String()},
		{Role: "user", Content: what + ":\n" + clipText(text, maxTextRunes)},
	}
}

// typeText describes a target's values for the model.
func typeText(t target) string {
	switch t.typ {
	case domain.MetaNumber:
		return "a number"
	case domain.MetaBoolean:
		return "true or false"
	case domain.MetaDate:
		return "a date, YYYY-MM-DD"
	case domain.MetaEnum:
		ex, _ := json.Marshal(t.enum)
		return "one of " + string(ex)
	case domain.MetaStringArray:
		if t.pattern != "" {
			return "a list of strings, each matching " + t.pattern
		}
		return "a list of strings"
	}
	if t.pattern != "" {
		return "a string matching " + t.pattern
	}
	return "a string"
}

// parseAnswer reads the model's JSON object: {"slots": {...}, "metadata":
// {...}}, possibly in a code fence or with text around it. An object
// without those two keys is read as slots. Null values mean "not given"
// and are left out.
func parseAnswer(answer string) (values, error) {
	start, end := strings.Index(answer, "{"), strings.LastIndex(answer, "}")
	if start < 0 || end < start {
		return nil, fmt.Errorf("no JSON object in the answer")
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(answer[start:end+1]), &obj); err != nil {
		return nil, fmt.Errorf("the JSON object does not parse: %v", err)
	}
	out := values{}
	slots, hasSlots := obj["slots"]
	meta, hasMeta := obj["metadata"]
	if !hasSlots && !hasMeta {
		slots, hasSlots = obj, true
	}
	for kind, part := range map[domain.DecompositionTargetKind]any{domain.TargetSlot: slots, domain.TargetMetadata: meta} {
		if part == nil {
			continue
		}
		m, ok := part.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%q is not an object", map[domain.DecompositionTargetKind]string{domain.TargetSlot: "slots", domain.TargetMetadata: "metadata"}[kind])
		}
		for k, x := range m {
			if x != nil {
				out.set(kind, k, x)
			}
		}
	}
	return out, nil
}

// slotText turns a decoded JSON value into a slot's text: strings as
// they are, numbers as decimals, booleans, and lists of those joined by
// commas (a string_array value).
func slotText(x any) (string, bool) {
	switch v := x.(type) {
	case string:
		return v, true
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64), true
	case bool:
		return strconv.FormatBool(v), true
	case []any:
		items := make([]string, 0, len(v))
		for _, e := range v {
			s, ok := slotText(e)
			if !ok || strings.Contains(s, ",") {
				return "", false
			}
			items = append(items, s)
		}
		return strings.Join(items, ", "), len(items) > 0
	}
	return "", false
}

// coerceMetadata reads a string where the field wants a number, a
// boolean or a list, as a model may well answer one.
func coerceMetadata(f domain.MetadataField, x any) any {
	s, ok := x.(string)
	if !ok {
		return x
	}
	switch f.Type {
	case domain.MetaNumber:
		if n, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
			return n
		}
	case domain.MetaBoolean:
		if b, err := strconv.ParseBool(strings.TrimSpace(s)); err == nil {
			return b
		}
	case domain.MetaStringArray:
		var items []any
		for _, it := range strings.Split(s, ",") {
			if it = strings.TrimSpace(it); it != "" {
				items = append(items, it)
			}
		}
		return items
	}
	return x
}
