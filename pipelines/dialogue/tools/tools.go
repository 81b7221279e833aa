// Package tools is the dialogue runtime's tool registry: the tools the
// message pipeline calls (and records a tool trace for), with the JSON
// Schema of each one's input. It is pure data; the pipeline names the
// tools by the constants below.
package tools

// Tool names, as recorded in tool traces.
const (
	// ToolKBSearch searches the tenant's knowledge bases (retrieval).
	ToolKBSearch = "kb_search"
	// ToolHandoff hands the conversation over to a human.
	ToolHandoff = "handoff"
	// ToolSlotFill stores a value the customer gave in a session slot.
	ToolSlotFill = "slot_fill"
)

// Tool is one tool of the registry.
type Tool struct {
	Name        string
	Description string
	// InputSchema is the JSON Schema (draft 2020-12) of the tool's input,
	// as JSON-compatible values.
	InputSchema map[string]any
}

// slotKeyPattern is what a slot name looks like (as the slots API checks).
const slotKeyPattern = `^[a-z][a-z0-9_]{0,63}$`

// Registry returns every tool, in a fixed order. Each call builds new
// values, so a caller may change what it gets.
func Registry() []Tool {
	return []Tool{
		{
			Name: ToolKBSearch,
			Description: "Search the tenant's knowledge bases for the chunks that best answer a query, " +
				"optionally in some knowledge bases and under a metadata filter.",
			InputSchema: object([]string{"query"}, map[string]any{
				"query": map[string]any{"type": "string", "minLength": 1, "maxLength": 2000},
				"kbIds": map[string]any{"type": "array", "maxItems": 50, "uniqueItems": true,
					"items": map[string]any{"type": "string", "pattern": "^kb_[0-9a-f]{32}$"}},
				"filter": map[string]any{"type": "object", "description": "A metadata filter over fields with role filter."},
				"topK":   map[string]any{"type": "integer", "minimum": 1, "maximum": 50, "default": 5},
			}),
		},
		{
			Name:        ToolHandoff,
			Description: "Hand the conversation over to a human agent, with the reason.",
			InputSchema: object([]string{"reason"}, map[string]any{
				"reason":  map[string]any{"type": "string", "minLength": 1, "maxLength": 200},
				"summary": map[string]any{"type": "string", "maxLength": 2000},
			}),
		},
		{
			Name:        ToolSlotFill,
			Description: "Store a value the customer gave (an order number, a product) in a slot of the session.",
			InputSchema: object([]string{"slot", "value"}, map[string]any{
				"slot":  map[string]any{"type": "string", "pattern": slotKeyPattern},
				"value": map[string]any{"type": "string", "maxLength": 500},
			}),
		},
	}
}

// Lookup returns the tool named name.
func Lookup(name string) (Tool, bool) {
	for _, t := range Registry() {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

func object(required []string, props map[string]any) map[string]any {
	req := make([]any, len(required))
	for i, r := range required {
		req[i] = r
	}
	return map[string]any{"type": "object", "additionalProperties": false, "required": req, "properties": props}
}
