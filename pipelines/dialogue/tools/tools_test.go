package tools

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRegistry(t *testing.T) {
	t.Run("lists the three tools in a fixed order", func(t *testing.T) {
		var names []string
		for _, tool := range Registry() {
			names = append(names, tool.Name)
			assert.NotEmpty(t, tool.Description, tool.Name)
		}
		assert.Equal(t, []string{ToolKBSearch, ToolHandoff, ToolSlotFill}, names)
	})
	t.Run("every input schema is a JSON object schema naming its required properties", func(t *testing.T) {
		for _, tool := range Registry() {
			b, err := json.Marshal(tool.InputSchema)
			require.NoError(t, err, tool.Name)
			var s struct {
				Type       string                    `json:"type"`
				Required   []string                  `json:"required"`
				Properties map[string]map[string]any `json:"properties"`
			}
			require.NoError(t, json.Unmarshal(b, &s), tool.Name)
			assert.Equal(t, "object", s.Type, tool.Name)
			require.NotEmpty(t, s.Required, tool.Name)
			for _, r := range s.Required {
				assert.Contains(t, s.Properties, r, "%s requires a property it declares", tool.Name)
			}
		}
	})
	t.Run("a caller's change does not reach the next call", func(t *testing.T) {
		r := Registry()
		r[0].InputSchema["type"] = "array"
		r[0].Name = "changed"
		assert.Equal(t, ToolKBSearch, Registry()[0].Name)
		assert.Equal(t, "object", Registry()[0].InputSchema["type"])
	})
	t.Run("lookup finds a tool by name and nothing else", func(t *testing.T) {
		tool, ok := Lookup(ToolSlotFill)
		require.True(t, ok)
		assert.Equal(t, ToolSlotFill, tool.Name)
		_, ok = Lookup("nope")
		assert.False(t, ok)
	})
}
