package pg

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The guardrail tables are tenant-scoped like the others (see
// TestEveryQueryOnATenantScopedTableFiltersByTenant); kept apart so that
// the feature branches do not all edit one list.
func TestGuardrailQueriesFilterByTenant(t *testing.T) {
	tables := []string{"guard_forbidden_words", "guard_behavior_rules", "guard_settings", "guard_hits"}
	header := regexp.MustCompile(`(?m)^-- name: (\w+) :\w+`)
	checked := 0
	for _, f := range []string{"../../queries/guardrails.sql", "../../queries/guard_hits.sql"} {
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
				assert.Contains(t, body, "@tenant_id", "%s touches %s without the tenant", name, table)
				insert := strings.HasPrefix(strings.TrimSpace(body), "insert")
				assert.True(t, insert || strings.Contains(body, "tenant_id = @tenant_id"), "%s touches %s without filtering by tenant_id", name, table)
			}
		}
	}
	assert.Greater(t, checked, 20)
}
