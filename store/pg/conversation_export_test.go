package pg

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The export's hand-written query selects its sessions with the search's
// own HAVING clause, word for word, so the two can never disagree on which
// sessions match (cmd/assistant's export test checks the same through the
// API).
func TestExportFiltersAsTheSearchDoes(t *testing.T) {
	data, err := os.ReadFile("../../queries/conversations.sql")
	require.NoError(t, err)
	text := string(data)
	start := strings.Index(text, "-- name: SearchConversations :many")
	require.GreaterOrEqual(t, start, 0)
	end := strings.Index(text[start+1:], "-- name: ")
	require.Greater(t, end, 0)
	search := text[start : start+1+end]
	assert.Contains(t, search, exportSessionsHaving, "the export's HAVING clause is the search's")
	assert.Contains(t, exportMessagesSQL, exportSessionsHaving)
	for _, table := range []string{"chat_messages m", "chat_sessions s"} {
		assert.Contains(t, exportMessagesSQL, table)
	}
	assert.Equal(t, 4, strings.Count(exportMessagesSQL, "tenant_id = @tenant_id"), "every table the export reads is filtered by tenant")
}
