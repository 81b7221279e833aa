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

// Every sqlc query that touches a tenant-scoped table filters by tenant_id,
// so a missing tenant is a compile error at the call site, never a leak.
func TestEveryQueryOnATenantScopedTableFiltersByTenant(t *testing.T) {
	// The tables whose every row belongs to one tenant.
	tenantScopedTables := []string{"tenant_settings", "knowledge_bases", "documents", "metadata_fields",
		"document_files", "chunks", "chunk_vectors", "index_jobs", "index_job_tenants", "embedding_configs",
		"retrieval_strategies", "retrieval_strategy_audit", "retrieval_events", "llm_configs",
		"chat_sessions", "chat_messages", "tool_traces", "reply_events",
		"intent_rules", "intent_hits", "intent_evaluations", "script_flows", "flow_events",
		"prompt_templates", "prompt_template_versions", "prompt_scenes", "prompt_renders",
		"guard_forbidden_words", "guard_behavior_rules", "guard_settings", "guard_hits",
		"dashboard_rollups", "dashboard_rollup_marks",
		"share_links", "share_devices",
		"slot_definitions", "decomposition_templates", "decomposition_template_versions", "decomposition_active"}
	// The worker's queue queries act on jobs by id across tenants: a worker
	// serves every tenant, chooses whose turn it is, and holds the job it
	// updates by its lease.
	workerQueries := map[string]bool{"IndexJobTenantsToServe": true, "ClaimTenantIndexJob": true,
		"RenewIndexJobLeases": true, "SetIndexJobStage": true,
		"FinishIndexJob": true, "RequeueIndexJob": true,
		// The flow-timeout sweeper and the reply-event purge serve every tenant.
		"ListDueFlows": true, "PurgeReplyEvents": true,
		// The retention purge reads every tenant's retention (and deletes
		// tenant by tenant, filtered).
		"ListRetentionPolicies": true,
		// The metrics count the whole queue, and return no tenant's rows.
		"IndexJobQueueStats": true,
		// The public share page knows only a link's token; the link it
		// finds names the tenant every later query filters by.
		"ShareLinkByTokenHash": true,
		// Sealing the stored provider keys at start reads every tenant's
		// keys (and writes each back filtered by its tenant).
		"ListLLMConfigKeys": true, "ListEmbeddingConfigKeys": true}
	files, err := filepath.Glob("../../queries/*.sql")
	require.NoError(t, err)
	require.NotEmpty(t, files)
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
			if workerQueries[name] {
				continue
			}
			for _, table := range tenantScopedTables {
				if !regexp.MustCompile(`\b(from|into|update|join)\s+` + table + `\b`).MatchString(body) {
					continue
				}
				checked++
				filters := strings.Contains(body, "tenant_id = @tenant_id") || strings.Contains(body, "tenant_id) values (@tenant_id") ||
					(strings.HasPrefix(withoutComments(body), "insert") && strings.Contains(body, "@tenant_id"))
				assert.True(t, filters, "%s (%s) touches %s without filtering by tenant_id", name, filepath.Base(f), table)
			}
		}
	}
	assert.Greater(t, checked, 5, "the check saw the queries")
}

// withoutComments is a query's text without its leading comment lines
// and spaces: what it does first.
func withoutComments(body string) string {
	for {
		body = strings.TrimSpace(body)
		if !strings.HasPrefix(body, "--") {
			return body
		}
		_, rest, _ := strings.Cut(body, "\n")
		body = rest
	}
}
