package pg

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The intent tables are tenant-scoped like the ones queries_test.go lists;
// they are checked here, in a file of their own, so that parallel features
// do not all edit that list.
func TestIntentQueriesFilterByTenant(t *testing.T) {
	tables := []string{"intent_rules", "intent_hits", "intent_evaluations"}
	files, err := filepath.Glob("../../queries/*.sql")
	require.NoError(t, err)
	header := regexp.MustCompile(`(?m)^-- name: (\w+) :\w+`)
	checked := 0
	for _, f := range files {
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
				assert.True(t, filters, "%s (%s) touches %s without filtering by tenant_id", name, filepath.Base(f), table)
			}
		}
	}
	assert.GreaterOrEqual(t, checked, 10, "the check saw the intent queries")
}
