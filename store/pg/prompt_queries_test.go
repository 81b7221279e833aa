package pg

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The prompt-template queries filter by tenant_id like every other (see
// TestEveryQueryOnATenantScopedTableFiltersByTenant; kept apart so that
// parallel features do not edit one list).
func TestPromptQueriesFilterByTenant(t *testing.T) {
	tables := []string{"prompt_templates", "prompt_template_versions", "prompt_scenes", "prompt_renders"}
	header := regexp.MustCompile(`(?m)^-- name: (\w+) :\w+`)
	checked := 0
	for _, f := range []string{"../../queries/prompt_templates.sql", "../../queries/prompt_renders.sql"} {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		text := string(data)
		locs := header.FindAllStringSubmatchIndex(text, -1)
		for i, loc := range locs {
			end := len(text)
			if i+1 < len(locs) {
				end = locs[i+1][0]
			}
			name, body := text[loc[2]:loc[3]], strings.ToLower(text[loc[1]:end])
			for _, table := range tables {
				if !regexp.MustCompile(`\b(from|into|update|join)\s+` + table + `\b`).MatchString(body) {
					continue
				}
				checked++
				filters := strings.Contains(body, "tenant_id = @tenant_id") ||
					(strings.HasPrefix(strings.TrimSpace(body), "insert") && strings.Contains(body, "@tenant_id"))
				assert.True(t, filters, "%s touches %s without filtering by tenant_id", name, table)
			}
		}
	}
	assert.Greater(t, checked, 10)
}
