package pg

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// Every query of the script-flow files filters by tenant: the shared check
// in queries_test.go lists the tables of its time, this one covers
// script_flows and flow_events (every statement of both files names
// tenant_id = @tenant_id, or inserts @tenant_id).
func TestScriptFlowQueriesFilterByTenant(t *testing.T) {
	header := regexp.MustCompile(`(?m)^-- name: (\w+) :\w+`)
	seen := 0
	for _, f := range []string{"../../queries/script_flows.sql", "../../queries/flow_events.sql"} {
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
			seen++
			insert := strings.HasPrefix(strings.TrimSpace(body), "insert") && strings.Contains(body, "@tenant_id")
			assert.True(t, insert || strings.Contains(body, "tenant_id = @tenant_id"), "%s does not filter by tenant_id", name)
			// Each scan of a tenant table in the query is filtered on its own.
			scans := regexp.MustCompile(`\b(from|update|into)\s+(script_flows|flow_events)\b`).FindAllString(body, -1)
			filters := strings.Count(body, "tenant_id = @tenant_id")
			if insert {
				filters++
			}
			assert.LessOrEqual(t, len(scans), filters, "%s: every scan filters", name)
		}
	}
	assert.Equal(t, 9, seen)
}

func TestFlowStepsRoundTrip(t *testing.T) {
	steps := []domain.ScriptFlowStep{
		{StepNo: 1, Prompt: "Hello."},
		{
			StepNo: 2, Prompt: "Return or exchange?", WaitInput: true,
			Expect: &domain.ScriptFlowExpect{
				Options: []string{"Return", "Exchange"}, Regex: `^\d+$`, Slot: "kind", RetryPrompt: "Again?", MaxRetries: 2,
				OnInvalid: &domain.ScriptFlowTarget{Kind: "transfer", Reason: "stuck", Text: "One moment."},
			},
			Branches:    []domain.ScriptFlowBranch{{Option: "Exchange", Then: domain.ScriptFlowTarget{Kind: "next", StepNo: 1}}},
			DefaultNext: &domain.ScriptFlowTarget{Kind: "end"},
			Timeout:     1500 * time.Millisecond,
			OnTimeout:   &domain.ScriptFlowTarget{Kind: "end", Text: "Bye."},
		},
	}
	got, err := decodeFlowSteps(encodeFlowSteps(steps))
	require.NoError(t, err)
	assert.Equal(t, steps, got)
	assert.JSONEq(t, `[{"step_no":1,"prompt":"Hello."}]`, string(encodeFlowSteps(steps[:1])), "zero fields are left out")
}
